#!/bin/sh
# t4060-scripts-columns.sh - the scripts read profiles through sampler-export
# --format columns: the same reports as through the CSV (generated profile,
# many keys, a recording with exit rows), damaged streams are one clear error
# (pytest: tests/scripts/test_columns.py, one TAP line per test)
. "$(dirname "$0")/lib.sh"
if ! /usr/bin/python3 -c 'import pytest, numpy' 2>/dev/null; then
	test_skip 'scripts/columns' 'python3-pytest or python3-numpy is not installed (make deps)'
	test_done
	exit
fi
SAMPLER_BIN_DIR=$BUILD /usr/bin/python3 "$ROOT/tests/scripts/tap.py" "$TRASH" test_columns.py
