#!/bin/sh
# t4300-scripts-plot.sh - sampler-plot writes valid PNG and SVG files
# (pytest: tests/scripts/test_plot.py, one TAP line per test)
. "$(dirname "$0")/lib.sh"
if ! /usr/bin/python3 -c 'import pytest' 2>/dev/null; then
	test_skip 'scripts/plot' 'python3-pytest is not installed (apt-get install python3-pytest)'
	test_done
	exit
fi
SAMPLER_BIN_DIR=$BUILD /usr/bin/python3 "$ROOT/tests/scripts/tap.py" "$TRASH" test_plot.py
