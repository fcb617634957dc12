#!/bin/sh
# t4150-scripts-job.sh - a job's profiles: report --by rank,function, compare a job per side
# (pytest: tests/scripts/test_job.py, one TAP line per test)
. "$(dirname "$0")/lib.sh"
if ! /usr/bin/python3 -c 'import pytest' 2>/dev/null; then
	test_skip 'scripts/job' 'python3-pytest is not installed (apt-get install python3-pytest)'
	test_done
	exit
fi
SAMPLER_BIN_DIR=$BUILD /usr/bin/python3 "$ROOT/tests/scripts/tap.py" "$TRASH" test_job.py
