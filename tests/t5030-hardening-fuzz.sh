#!/bin/bash
# Short, bounded libFuzzer runs over the plug-ins' parsers: argument strings
# (pmu/args.c, scpi, rapl) and device/sysfs text (sysfs numbers, scpi
# replies, powercap trees).  The committed seeds replay first: an input that
# once crashed is kept there as its regression test.  `make fuzz` runs longer.
. "$(dirname "$0")/lib.sh"

for target in pmu-args pmu-text; do
	FUZZER=$BUILD/fuzz/fuzz-$target
	SEEDS=$ROOT/fuzz/corpus-$target
	test_expect_success CLANG_FUZZER "$target: the committed seeds replay cleanly" '
		expect_ge 8 "$(ls "$SEEDS" | wc -l)" "seeds in $SEEDS" &&
		"$FUZZER" -runs=0 "$SEEDS" >replay-$target.log 2>&1 &&
		expect_grep "INITED" replay-$target.log &&
		expect_no_grep "ERROR: \|runtime error" replay-$target.log
	'
	# A fixed number of inputs, not of seconds: a loaded machine ran fewer
	# than 500 in five seconds (300 s is only the bound of a stuck run;
	# 60 s that of a hung input: a slow one went past 5 s at load 26).
	test_expect_success CLANG_FUZZER "$target: a thousand inputs of fuzzing find nothing" '
		mkdir corpus-$target artifacts-$target &&
		run_status env TMPDIR="$TRASH" "$FUZZER" -runs=1000 -max_total_time=300 -timeout=60 -rss_limit_mb=1024 \
			-artifact_prefix="$TRASH/artifacts-$target/" corpus-$target "$SEEDS" >fuzz-$target.log 2>&1 &&
		expect_eq 0 "$rc" "fuzzer status (see fuzz-$target.log)" &&
		expect_grep "^Done [0-9]* runs" fuzz-$target.log &&
		expect_ge 1000 "$(sed -n "s/^Done \([0-9]*\) runs.*/\1/p" fuzz-$target.log)" "runs" &&
		expect_no_grep "ERROR: \|runtime error" fuzz-$target.log &&
		expect_empty "$(ls artifacts-$target)" "artifacts (crash-*, leak-*, timeout-*)" &&
		expect_empty "$(ls "$TRASH" | grep "^fuzz-sysfs\.")" "fake sysfs trees left behind"
	'
done

test_done
