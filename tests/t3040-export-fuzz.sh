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

test_expect_success CLANG_FUZZER 'ten seconds of fuzzing find nothing' '
	mkdir corpus &&
	run_status "$FUZZER" -max_total_time=10 -timeout=5 -rss_limit_mb=1024 \
		-artifact_prefix="$TRASH/" corpus "$ROOT/fuzz/corpus" >fuzz.log 2>&1 &&
	expect_eq 0 "$rc" "fuzzer status (see fuzz.log: crash-*, leak-*, timeout-* in $TRASH)" &&
	expect_grep "^Done [0-9]* runs" fuzz.log &&
	expect_no_grep "ERROR: \|runtime error" fuzz.log &&
	expect_eq "" "$(ls "$TRASH" | grep "^\(crash\|leak\|timeout\|oom\)-")" "artifacts"
'

test_done
