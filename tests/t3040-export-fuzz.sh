#!/bin/bash
# A short, bounded libFuzzer run over the profile reader and the exporters
# (`make fuzz` runs it longer).  It must find no crash, leak or UB.
. "$(dirname "$0")/lib.sh"

FUZZER=$BUILD/fuzz/fuzz-export

test_expect_success CLANG_FUZZER 'the seed corpus replays cleanly' '
	"$FUZZER" -runs=0 "$ROOT/fuzz/corpus" >replay.log 2>&1 &&
	expect_grep "INITED" replay.log &&
	expect_no_grep "ERROR: \|runtime error" replay.log
'

# A fixed number of inputs, not of seconds (as t5030): ten seconds ran
# about 70 inputs under a load of 25 (an input costs ~22 ms of CPU time:
# 2000 took 45 s), so what was fuzzed depended on the load.  500 inputs
# are about the ten seconds of an idle machine; 300 s only bounds a stuck
# run.  A hang is one input past 60 s: the largest seed takes 1.3 s of CPU
# time on this build, and went past 5 s (the earlier bound) at load 26.
test_expect_success CLANG_FUZZER 'five hundred inputs of fuzzing find nothing' '
	mkdir corpus &&
	run_status "$FUZZER" -runs=500 -max_total_time=300 -timeout=60 -rss_limit_mb=1024 \
		-artifact_prefix="$TRASH/" corpus "$ROOT/fuzz/corpus" >fuzz.log 2>&1 &&
	expect_eq 0 "$rc" "fuzzer status (see fuzz.log: crash-*, leak-*, timeout-* in $TRASH)" &&
	expect_grep "^Done [0-9]* runs" fuzz.log &&
	expect_ge 500 "$(sed -n "s/^Done \([0-9]*\) runs.*/\1/p" fuzz.log)" "inputs run" &&
	expect_no_grep "ERROR: \|runtime error" fuzz.log &&
	expect_empty "$(ls "$TRASH" | grep "^\(crash\|leak\|timeout\|oom\)-")" "artifacts"
'

test_done
