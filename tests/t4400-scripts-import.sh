#!/bin/sh
# t4400-scripts-import.sh - sampler-import of Lynsyn CSV and meter timelines
# (pytest: tests/scripts/test_import.py, one TAP line per test)
. "$(dirname "$0")/lib.sh"
test_have_prereq PYTEST || { skip_all="missing $test_missing_"; test_done; }
SAMPLER_BIN_DIR=$BUILD /usr/bin/python3 "$ROOT/tests/scripts/tap.py" "$TRASH" test_import.py
