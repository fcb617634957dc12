#!/bin/sh
# t4150-scripts-job.sh - a job's profiles: report --by rank,function, compare a job per side
# (pytest: tests/scripts/test_job.py, one TAP line per test)
. "$(dirname "$0")/lib.sh"
test_have_prereq PYTEST || { skip_all="missing $test_missing_"; test_done; }
SAMPLER_BIN_DIR=$BUILD /usr/bin/python3 "$ROOT/tests/scripts/tap.py" "$TRASH" test_job.py
