#!/bin/sh
# t4520-scripts-types.sh - the scripts' type hints: every public function of
# samplerlib has them (tests/scripts/hints.py), and mypy, configured in
# scripts/pyproject.toml, finds no error in the package
. "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3

test_lazy_prereq MYPY '
	$PY -m mypy --version >/dev/null 2>&1 ||
	{ echo "mypy is not installed (apt-get install python3-mypy, or make deps)"; exit 1; }
'

# mypy as the project runs it, in a copy of scripts/ (its cache in the trash)
mypy_in() {
	(cd "$1" && $PY -m mypy --cache-dir "$TRASH/mypy-cache") >mypy.out 2>&1
}

test_expect_success MYPY 'mypy finds no error in samplerlib' '
	run_status mypy_in "$ROOT/scripts"
	cat mypy.out
	expect_eq 0 "$rc" "mypy exit status"
	expect_grep "^Success: no issues found in [0-9]* source files" mypy.out
'

test_expect_success MYPY 'a call against a hint is an error mypy reports' '
	cp -R "$ROOT/scripts" src
	printf "\n\ndef _wrong() -> float:\n    return stats.z_of(\"95%%\")\n" >>src/samplerlib/metrics.py
	run_status mypy_in src
	cat mypy.out
	expect_eq 1 "$rc" "mypy exit status"
	expect_grep "^samplerlib/metrics.py:[0-9]*: error: Argument 1 to \"z_of\" has incompatible type \"str\"; expected \"float\"" mypy.out
'

test_expect_success 'every public function of samplerlib has type hints' '
	$PY "$ROOT/tests/scripts/hints.py" "$ROOT/scripts/samplerlib" >hints.out || { cat hints.out; false; }
	cat hints.out
	expect_grep "^[0-9]* public functions, 0 without full hints" hints.out
'

test_expect_success 'a public function without hints is listed' '
	mkdir -p pkg
	printf "def hinted(x: int) -> int:\n    return x\n\n\ndef bare(x, y: int):\n    return x\n" >pkg/mod.py
	run_status $PY "$ROOT/tests/scripts/hints.py" pkg >hints.out
	cat hints.out
	expect_eq 1 "$rc" "hints.py exit status"
	expect_grep "^mod.py:5: bare: no hint for x, return" hints.out
	expect_grep "^2 public functions, 1 without full hints" hints.out
'

test_done
