#!/bin/sh
# t4100-scripts-report.sh - sampler-report shares, energy, intervals, formats
# (pytest: tests/scripts/test_report.py, one TAP line per test)
. "$(dirname "$0")/lib.sh"
test_have_prereq PYTEST || { skip_all="missing $test_missing_"; test_done; }
SAMPLER_BIN_DIR=$BUILD /usr/bin/python3 "$ROOT/tests/scripts/tap.py" "$TRASH" test_report.py
