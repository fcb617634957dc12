#!/bin/sh
# t4650-scripts-weights.sh - perf's defaults: CPU time first, one --weight
# everywhere, --sort honoured by the tree; unresolved addresses one row per
# DSO; --no-demangle passed to the exporter (pytest:
# tests/scripts/test_weights.py)
. "$(dirname "$0")/lib.sh"
if ! /usr/bin/python3 -c 'import pytest' 2>/dev/null; then
	test_skip 'scripts/weights' 'python3-pytest is not installed (apt-get install python3-pytest)'
	test_done
	exit
fi
SAMPLER_BIN_DIR=$BUILD /usr/bin/python3 "$ROOT/tests/scripts/tap.py" "$TRASH" test_weights.py
