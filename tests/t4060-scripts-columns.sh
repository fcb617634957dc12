#!/bin/sh
# t4060-scripts-columns.sh - the scripts read profiles through sampler-export
# --format columns: the same reports as through the CSV (generated profile,
# many keys, a recording with exit rows), damaged streams are one clear error
# (pytest: tests/scripts/test_columns.py, one TAP line per test)
. "$(dirname "$0")/lib.sh"
test_have_prereq PYTEST,NUMPY || { skip_all="missing $test_missing_"; test_done; }
SAMPLER_BIN_DIR=$BUILD /usr/bin/python3 "$ROOT/tests/scripts/tap.py" "$TRASH" test_columns.py
