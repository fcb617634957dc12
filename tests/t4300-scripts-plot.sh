#!/bin/sh
# t4300-scripts-plot.sh - sampler-plot writes valid PNG and SVG files
# (pytest: tests/scripts/test_plot.py, one TAP line per test)
. "$(dirname "$0")/lib.sh"
test_have_prereq PYTEST || { skip_all="missing $test_missing_"; test_done; }
SAMPLER_BIN_DIR=$BUILD /usr/bin/python3 "$ROOT/tests/scripts/tap.py" "$TRASH" test_plot.py
