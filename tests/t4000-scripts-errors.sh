#!/bin/sh
# t4000-scripts-errors.sh - bad input gives one error line and exit 1, never a traceback
# (pytest: tests/scripts/test_errors.py, one TAP line per test)
. "$(dirname "$0")/lib.sh"
test_have_prereq PYTEST || { skip_all="missing $test_missing_"; test_done; }
SAMPLER_BIN_DIR=$BUILD /usr/bin/python3 "$ROOT/tests/scripts/tap.py" "$TRASH" test_errors.py
