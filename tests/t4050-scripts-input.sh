#!/bin/sh
# t4050-scripts-input.sh - CSV v2 totals, the numpy reader against a per-row
# reference, the escape rule, pipes, devices and bzip2 bombs
# (pytest: tests/scripts/test_input.py, one TAP line per test)
. "$(dirname "$0")/lib.sh"
test_have_prereq PYTEST,NUMPY || { skip_all="missing $test_missing_"; test_done; }
SAMPLER_BIN_DIR=$BUILD /usr/bin/python3 "$ROOT/tests/scripts/tap.py" "$TRASH" test_input.py
