#!/bin/sh
# t4600-scripts-callpaths.sh - call-path trees, shares with intervals and
# flame graphs of the scripts (pytest: tests/scripts/test_callpaths.py)
. "$(dirname "$0")/lib.sh"
if ! /usr/bin/python3 -c 'import pytest' 2>/dev/null; then
	test_skip 'scripts/callpaths' 'python3-pytest is not installed (apt-get install python3-pytest)'
	test_done
	exit
fi
SAMPLER_BIN_DIR=$BUILD /usr/bin/python3 "$ROOT/tests/scripts/tap.py" "$TRASH" test_callpaths.py
