#!/bin/sh
# t4050-scripts-input.sh - CSV v2 totals, the numpy reader against a per-row
# reference, the escape rule, pipes, devices and bzip2 bombs
# (pytest: tests/scripts/test_input.py, one TAP line per test)
. "$(dirname "$0")/lib.sh"
if ! /usr/bin/python3 -c 'import pytest, numpy' 2>/dev/null; then
	test_skip 'scripts/input' 'python3-pytest or python3-numpy is not installed (make deps)'
	test_done
	exit
fi
SAMPLER_BIN_DIR=$BUILD /usr/bin/python3 "$ROOT/tests/scripts/tap.py" "$TRASH" test_input.py
