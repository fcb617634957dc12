#!/bin/bash
# The test library itself (tests/lib.sh, tests/run): a failing test keeps
# its scratch directory and prints its path, prerequisites skip with their
# reason, -i stops at the first failure, -v shows what passed.  Each case
# runs a tiny test script in a project of its own.
. "$(dirname "$0")/lib.sh"

# A project with the real library and runner, and scratch directories of
# its own, so that what the tiny scripts keep stays in ours.
mkdir -p proj/tests tmp
ln -s "$ROOT/tests/lib.sh" proj/tests/lib.sh
cp "$ROOT/tests/run" proj/tests/run
export TMPDIR=$TRASH/tmp

# tiny NAME: the script on stdin becomes proj/tests/NAME.sh.
tiny() {
	{ echo '. "$(dirname "$0")/lib.sh"'; cat; } >"proj/tests/$1.sh"
}

# run_tiny NAME [OPTIONS]: run it; its output in NAME.out, status in $rc.
run_tiny() {
	local name=$1
	shift
	run_status bash "proj/tests/$name.sh" "$@" >"$name.out" 2>&1
}

# kept_dir FILE: the scratch directory a script said it kept.
kept_dir() {
	sed -n 's/^# trash directory kept: //p' "$1"
}

tiny t9001-fails <<-\EOF
	test_expect_success 'leaves a file' 'echo evidence >left-behind'
	test_expect_success 'fails' 'expect_eq 1 2 "the answer"'
	test_expect_success 'runs after the failure' 'true'
	test_done
EOF

test_expect_success 'a failing test: not ok, its output, status 1' '
	run_tiny t9001-fails &&
	expect_eq 1 "$rc" "status" &&
	expect_grep "^ok 1 - leaves a file$" t9001-fails.out &&
	expect_grep "^not ok 2 - fails$" t9001-fails.out &&
	expect_grep "^#   expected the answer .1., got .2.$" t9001-fails.out &&
	expect_grep "^ok 3 - runs after the failure$" t9001-fails.out &&
	expect_grep "^# 3 tests, 1 failed$" t9001-fails.out
'

test_expect_success 'a failing script keeps its scratch directory and prints its path' '
	dir=$(kept_dir t9001-fails.out) &&
	expect_eq "# trash directory kept: $dir" "$(tail -1 t9001-fails.out)" "last line" &&
	case $dir in "$TRASH"/tmp/sampler-test.t9001-fails.*) ;; *) echo "kept $dir"; false ;; esac &&
	expect_eq evidence "$(cat "$dir/left-behind")" "the file the test left"
'

tiny t9002-passes <<-\EOF
	test_expect_success 'writes its scratch path' 'pwd >"$TMPDIR/../passes.where"'
	test_expect_success 'prints something' 'echo "visible with -v"'
	test_done
EOF

test_expect_success 'a passing script removes its scratch directory and prints no path' '
	run_tiny t9002-passes &&
	expect_eq 0 "$rc" "status" &&
	expect_no_grep "trash directory" t9002-passes.out &&
	dir=$(cat passes.where) &&
	test -n "$dir" && test ! -e "$dir"
'

test_expect_success '-v shows the commands and output of passing tests; without it they stay quiet' '
	expect_no_grep "visible with -v" t9002-passes.out &&
	run_tiny t9002-passes -v &&
	expect_eq 0 "$rc" "status" &&
	expect_grep "^# expecting success of t9002-passes.2 .prints something.:$" t9002-passes.out &&
	expect_grep "^#   > echo \"visible with -v\"$" t9002-passes.out &&
	expect_grep "^#   visible with -v$" t9002-passes.out
'

test_expect_success '-i stops at the first failure, keeping the scratch directory' '
	run_tiny t9001-fails -i &&
	expect_eq 1 "$rc" "status" &&
	expect_grep "^not ok 2 - fails$" t9001-fails.out &&
	expect_no_grep "runs after the failure" t9001-fails.out &&
	expect_grep "stopped at the first failure (-i)" t9001-fails.out &&
	test -f "$(kept_dir t9001-fails.out)/left-behind"
'

test_expect_success 'an unknown option is refused' '
	run_tiny t9002-passes --bogus &&
	expect_eq 1 "$rc" "status" &&
	expect_grep "unknown option .--bogus." t9002-passes.out
'

# fails_saying MESSAGE ASSERTION...: the assertion fails and prints MESSAGE.
fails_saying() {
	local want=$1
	shift
	run_status "$@" >said
	expect_eq 1 "$rc" "status of $*" &&
	expect_eq "$want" "$(cat said)" "message of $*"
}

test_expect_success 'numeric assertions hold on numbers, and fail on a miss' '
	expect_le 5 4.5 && expect_le 5 5 && expect_ge 0 0 && expect_ge -1 1e-3 &&
	expect_near 10 9.5 0.5 && expect_near +10 10.4 .5 &&
	fails_saying "expected share <= 5, got 6" expect_le 5 6 share &&
	fails_saying "expected >= 7, got 6.9" expect_ge 7 6.9 &&
	fails_saying "expected x 10 +- 1, got 11.5" expect_near 10 11.5 1 x
'

test_expect_success 'numeric assertions fail on an empty value, saying so' '
	fails_saying "expected share to be a number, got an empty value" expect_le 5 "" share &&
	fails_saying "expected the value to be a number, got an empty value" expect_ge 0 "" &&
	fails_saying "expected x to be a number, got an empty value" expect_near 0 "" 1 x &&
	fails_saying "expected the maximum to be a number, got an empty value" expect_le "" 5
'

test_expect_success 'numeric assertions fail on a value that is not a number, saying so' '
	fails_saying "expected share to be a number, got '"'"'n/a'"'"'" expect_ge 0 n/a share &&
	fails_saying "expected the value to be a number, got '"'"'abc'"'"'" expect_le 5 abc &&
	fails_saying "expected the value to be a number, got '"'"'1 2'"'"'" expect_near 1 "1 2" 1 &&
	fails_saying "expected the value to be a number, got '"'"'0x10'"'"'" expect_ge 0 0x10 &&
	fails_saying "expected the value to be a number, got '"'"'nan'"'"'" expect_near 0 nan 1 &&
	fails_saying "expected the tolerance for x to be a number, got '"'"'1%'"'"'" expect_near 0 0 1% x
'

test_expect_success 'numeric assertions take one finite number: not two lines, not 1e999' '
	fails_saying "expected the value to be one number, got several lines: '"'"'5 99'"'"'" expect_ge 10 "5
99" &&
	fails_saying "expected the value to be one number, got several lines: '"'"'2 500'"'"'" expect_near 2 "2
500" 0.01 &&
	fails_saying "expected the value to be a number, got '"'"'1e999'"'"'" expect_ge 0 1e999 &&
	fails_saying "expected the maximum to be a number, got '"'"'-1e999'"'"'" expect_le -1e999 0 &&
	expect_le 1e300 1e299
'

# energy-lib.sh's misses_bar backs "the end rule fails the bar" (t2110,
# t2120): a summary of nan or with a figure missing must not count as a
# miss, a real miss must, and a pass must not.
test_expect_success 'misses_bar: nan or a missing figure is no miss; a miss is one, a pass is not' '
	. "$ROOT/tests/pmu/pmu-lib.sh" && . "$ROOT/tests/pmu/energy-lib.sh" &&
	echo "summary rule=end pairs=30 mean_abs_err=nan worst=nan coverage=nan" >nan.txt &&
	fails_saying "expected the mean absolute error (%) to be a number, got '"'"'nan'"'"'" misses_bar nan.txt 8 30 85 &&
	echo "summary rule=end pairs=30 mean_abs_err=70 coverage=20" >part.txt &&
	fails_saying "expected the worst error (%) to be a number, got an empty value" misses_bar part.txt 8 30 85 &&
	echo "summary rule=end pairs=30 mean_abs_err=70 worst=180 coverage=20" >miss.txt &&
	misses_bar miss.txt 8 30 85 &&
	echo "summary rule=end pairs=30 mean_abs_err=2 worst=9 coverage=100" >pass.txt &&
	fails_saying "expected a miss of the bar (mean <= 8, worst <= 30, coverage >= 85), got mean 2, worst 9, coverage 100" misses_bar pass.txt 8 30 85
'

test_expect_success 'expect_eq refuses two empty values; expect_empty checks for nothing' '
	fails_saying "expected rows a value, got two empty ones (expect_empty checks for nothing)" expect_eq "" "" rows &&
	fails_saying "expected errors to be empty, got '"'"'oops'"'"'" expect_empty oops errors &&
	expect_empty "" errors &&
	expect_eq a a
'

tiny t9003-prereqs <<-\EOF
	test_lazy_prereq HAVE 'echo checked >>"$TMPDIR/../have.count"'
	test_lazy_prereq LACK 'echo "the frobnicator is not installed (apt-get install frob)"; false'
	test_expect_success HAVE 'needs HAVE' 'true'
	test_expect_success LACK 'needs LACK' 'false'
	test_expect_success HAVE,LACK 'needs both' 'false'
	test_expect_success !LACK 'needs LACK not to hold' 'true'
	test_expect_success !HAVE 'needs HAVE not to hold' 'false'
	test_expect_success 'test_have_prereq in a script' '
		test_have_prereq HAVE && ! test_have_prereq LACK
	'
	test_lazy_prereq TWOSTEP '
		false || { echo "step one fails"; exit 1; }
		echo "step two passes"
	'
	test_have_prereq TWOSTEP || echo "# asked in a condition: $test_missing_"
	test_expect_success TWOSTEP 'needs TWOSTEP' 'true'
	test_done
EOF

test_expect_success 'prerequisites: a test runs when they hold, else skips saying which and why' '
	run_tiny t9003-prereqs &&
	expect_eq 0 "$rc" "status" &&
	expect_grep "^ok 1 - needs HAVE$" t9003-prereqs.out &&
	expect_grep "^ok 2 # skip needs LACK (missing LACK: the frobnicator is not installed (apt-get install frob))$" t9003-prereqs.out &&
	expect_grep "^ok 3 # skip needs both (missing LACK: the frobnicator" t9003-prereqs.out &&
	expect_grep "^ok 4 - needs LACK not to hold$" t9003-prereqs.out &&
	expect_grep "^ok 5 # skip needs HAVE not to hold (missing !HAVE: HAVE holds here)$" t9003-prereqs.out &&
	expect_grep "^ok 6 - test_have_prereq in a script$" t9003-prereqs.out &&
	expect_grep "^# asked in a condition: TWOSTEP: step one fails$" t9003-prereqs.out &&
	expect_grep "^ok 7 # skip needs TWOSTEP (missing TWOSTEP: step one fails)$" t9003-prereqs.out
'

test_expect_success 'a lazy prerequisite is checked once per script' '
	expect_eq 1 "$(wc -l <have.count)" "checks of HAVE"
'

tiny t9004-typo <<-\EOF
	test_expect_success PREF 'a typo in a prerequisite' 'true'
	test_done
EOF

test_expect_success 'an unknown prerequisite fails the script instead of skipping for ever' '
	run_tiny t9004-typo &&
	expect_eq 1 "$rc" "status" &&
	expect_grep "^not ok 1 - bug in the test script: .a typo in a prerequisite. asks for an unknown prerequisite: PREF" t9004-typo.out
'

tiny t9005-skip-all <<-\EOF
	test_lazy_prereq LACK 'echo "no frobnicator here"; false'
	test_have_prereq LACK || { skip_all="missing $test_missing_"; test_done; }
	test_expect_success 'never runs' 'false'
	test_done
EOF

test_expect_success 'skip_all: one skip line with the reason, status 0' '
	run_tiny t9005-skip-all &&
	expect_eq 0 "$rc" "status" &&
	expect_eq "ok 1 # skip t9005-skip-all: missing LACK: no frobnicator here" "$(cat t9005-skip-all.out)"
'

tiny t9006-atexit <<-\EOF
	test_atexit 'echo cleaned >"$TMPDIR/../atexit.out"'
	test_expect_success 'fails' 'false'
	test_done
EOF

test_expect_success 'test_atexit commands run at the end, even after a failure' '
	run_tiny t9006-atexit &&
	expect_eq 1 "$rc" "status" &&
	expect_eq cleaned "$(cat atexit.out)" "what the command wrote"
'

tiny t9008-when-finished <<-\EOF
	test_expect_success 'fails, leaving a stopped process' '
		sleep 60 &
		pid=$!
		test_when_finished "kill -CONT $pid; kill $pid"
		wait_exec $pid sleep
		test_when_finished "echo first >>\"$TMPDIR/../finished.out\""
		kill -STOP $pid
		false
	'
	test_expect_success 'passes' 'test_when_finished "echo second >>\"$TMPDIR/../finished.out\""'
	test_done
EOF

test_expect_success 'test_when_finished runs when the test ends, pass or fail, last first; nothing hangs' '
	run_status timeout 30 bash proj/tests/t9008-when-finished.sh >t9008.out 2>&1 &&
	expect_eq 1 "$rc" "status (124: the stopped process held the output)" &&
	expect_grep "^not ok 1 - fails, leaving a stopped process" t9008.out &&
	expect_grep "^ok 2 - passes" t9008.out &&
	expect_eq "first second" "$(echo $(cat finished.out))" "cleanups run"
'

tiny t9007-dies <<-\EOF
	test_expect_success 'passes' 'echo x >here'
	echo "${no_such_variable}"
	test_done
EOF

test_expect_success 'a script that dies outside a test keeps its scratch directory too' '
	run_tiny t9007-dies &&
	test "$rc" != 0 &&
	test -f "$(kept_dir t9007-dies.out)/here"
'

test_expect_success 'tests/run: adds up, names the failing scripts and the directories kept' '
	rm -f proj/tests/t9004-typo.sh proj/tests/t9006-atexit.sh proj/tests/t9007-dies.sh proj/tests/t9008-when-finished.sh &&
	run_status proj/tests/run >run.out 2>&1 &&
	expect_eq 1 "$rc" "status" &&
	# the failed test again at the end, with its output (CI keeps the end)
	sed -n "/^\*\*\* the failures again/,\$p" run.out >again &&
	expect_grep "^t9001-fails.sh: not ok 2 - fails$" again &&
	expect_grep "^#   expected the answer .1., got .2.$" again &&
	expect_grep "^failed in: t9001-fails.sh$" run.out &&
	expect_grep "^trash directories kept:$" run.out &&
	expect_grep "^  $TRASH/tmp/sampler-test.t9001-fails\." run.out &&
	expect_eq "5 skipped (each says why above)" "$(tail -2 run.out | head -1)" "skip line" &&
	expect_eq "7 passed, 1 failed" "$(tail -1 run.out)" "last line"
'

test_expect_success 'tests/run -i stops at the first failing script; a pattern picks scripts' '
	run_status proj/tests/run -i >run.out 2>&1 &&
	expect_eq 1 "$rc" "status" &&
	expect_grep "stopped at the first failing script (-i)" run.out &&
	expect_no_grep "t9002-passes" run.out &&
	expect_no_grep "runs after the failure" run.out &&
	run_status proj/tests/run t9002 t9003 >run.out 2>&1 &&
	expect_eq 0 "$rc" "status" &&
	expect_eq "2 *** t9002-passes.sh *** t9003-prereqs.sh" "$(grep -c "^\*\*\* " run.out) $(grep "^\*\*\* " run.out | tr "\n" " " | sed "s/ $//")" "scripts run"
'

test_done
