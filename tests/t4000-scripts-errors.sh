#!/bin/sh
# t4000-scripts-errors.sh - bad input gives one error line and exit 1, never a traceback
# (pytest: tests/scripts/test_errors.py, one TAP line per test)
. "$(dirname "$0")/lib.sh"
if ! /usr/bin/python3 -c 'import pytest' 2>/dev/null; then
	test_skip 'scripts/errors' 'python3-pytest is not installed (apt-get install python3-pytest)'
	test_done
	exit
fi
SAMPLER_BIN_DIR=$BUILD /usr/bin/python3 "$ROOT/tests/scripts/tap.py" "$TRASH" test_errors.py
