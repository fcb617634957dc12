#!/bin/sh
# t4690-scripts-flame.sh - the flame graph's rendering (samplerlib/flame.py):
# widths, tooltips, the frames' places for the browser's script, stacks
# 1,024 frames deep (pytest: tests/scripts/test_flame.py; t4700 runs the
# script in a browser)
. "$(dirname "$0")/lib.sh"
if ! /usr/bin/python3 -c 'import pytest' 2>/dev/null; then
	test_skip 'scripts/flame' 'python3-pytest is not installed (apt-get install python3-pytest)'
	test_done
	exit
fi
SAMPLER_BIN_DIR=$BUILD /usr/bin/python3 "$ROOT/tests/scripts/tap.py" "$TRASH" test_flame.py
