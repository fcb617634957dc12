#!/bin/bash
# Call stacks in the native format: every stack stored once (a prefix tree
# of (parent, address) nodes), a thread-sample refers to it by a varint;
# the text view round-trips them; the reader checks every id and node of
# hostile input with one error line and bounded memory; profiles without
# stacks are as before.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/recorder-lib.sh"

PROFILE=$BUILD/sampler-profile
FIXTURE=$ROOT/tests/fixtures/stacks.txt
FUZZ="/usr/bin/python3 $ROOT/tests/format/fuzz-dump.py $PROFILE"
LIMIT_KB=65536
if grep -q __asan_init "$PROFILE"; then
	LIMIT_KB=unlimited
	echo "# sanitizer build: no ulimit -v"
fi

stacks_of() {	# text: the stack fields of its ts lines
	grep -o " stack=[^ ]* stack_end=[a-z-]*" "$1"
}

flags_of() {	# profile: the u32 header flags
	od -An -tu4 -j12 -N4 "$1" | tr -d " "
}

test_expect_success 'text round trip: stacks, how they ended, exits after stacks' '
	"$PROFILE" build st.prof <"$FIXTURE" &&
	"$PROFILE" dump st.prof >st.txt &&
	expect_grep "^format name=native compressed=0 stacks=1$" st.txt &&
	stacks_of "$FIXTURE" >want && stacks_of st.txt >got &&
	diff want got &&
	expect_eq 11 "$(wc -l <got)" "thread-samples with a stack" &&
	expect_eq 1 "$(flags_of st.prof)" "header flags" &&
	"$PROFILE" build st.prof.bz2 <st.txt &&
	"$PROFILE" dump st.prof.bz2 | stacks_of /dev/stdin >got2 &&
	diff want got2
'

test_expect_success 'without stacks: header flags 0, no stack fields, the same bytes per sample' '
	grep -v "^format" "$FIXTURE" | sed "s/ stack=[^ ]* stack_end=[a-z-]*//" >plain.txt &&
	"$PROFILE" build plain.prof <plain.txt &&
	expect_eq 0 "$(flags_of plain.prof)" "header flags" &&
	"$PROFILE" dump plain.prof >plain.dump &&
	expect_no_grep " stack=" plain.dump &&
	expect_grep "^format name=native compressed=0$" plain.dump &&
	dump_plain=$(grep -v "^format" plain.dump) && dump_st=$(grep -v "^format" st.txt | sed "s/ stack=[^ ]* stack_end=[a-z-]*//") &&
	expect_eq "$dump_plain" "$dump_st" "records apart from the stacks" &&
	extra=$(( $(stat -c %s st.prof) - $(stat -c %s plain.prof) )) &&
	expect_le 80 "$extra" "bytes the stacks add to 11 thread-samples with 7 distinct stacks"
'

test_expect_success 'the same 50-frame stack in 2000 samples is stored once' '
	awk -v n=2000 "NR <= 5 || /^(process|exec|thread tid=500|map) / { print; next }
		END { for (i = 1; i <= n; i++) {
			printf \"sample time=%d nthreads=1 values=%d\n\", 123456790000 + i * 1000000, i
			s = \"\"; for (f = 0; f < 50; f++) s = s (f ? \",\" : \"\") sprintf(\"0x%x\", 93824992235520 + 16 * f)
			printf \"ts tid=500 pc=0x555555555140 cpu=%d counters=%d stack=%s stack_end=complete\n\", i * 1000000, i, s } }" \
		"$FIXTURE" >same.txt &&
	sed "s/ stack=[^ ]* stack_end=[a-z-]*//; /^format/d" same.txt >same-plain.txt &&
	"$PROFILE" build same.prof <same.txt && "$PROFILE" build same-plain.prof <same-plain.txt &&
	"$PROFILE" dump same.prof | stacks_of /dev/stdin | sort | uniq -c >distinct &&
	expect_eq 1 "$(wc -l <distinct)" "distinct stacks read back" &&
	extra=$(( $(stat -c %s same.prof) - $(stat -c %s same-plain.prof) )) &&
	expect_le 2300 "$extra" "bytes for 2000 references and one 50-frame stack"
'

# How many clock samples a thread-sample carries depends on how much CPU
# the thread got in its interval, that is on the load (12-14.5 bytes per
# thread-sample together, run to run): so each kind is bounded apart.
# Quiet, 6.2 bytes per thread-sample; under a load of 30, 9.3 (fewer
# samples share the profile's fixed part, the distinct stacks above all).
bytes_of_profile() {
	sed -n "s/^sampler: profile: \([0-9]*\) bytes, .*/\1/p" "$1"
}
test_expect_success 'a profile of the demo with -g costs at most 12 bytes per thread-sample' '
	"$SAMPLER" -d -g --no-cpu-clock -o plain.prof -- "$EXAMPLES/demo-workload" >/dev/null 2>dbg &&
	per=$(sed -n "s/^sampler: profile: .* bytes, \([0-9.]*\) bytes per thread-sample$/\1/p" dbg) &&
	echo "$per bytes per thread-sample" &&
	expect_le 12 "$per" "bytes per thread-sample with -g" &&
	expect_eq 1 "$(flags_of plain.prof)" "header flags (stacks)"
'

test_expect_success 'with clock samples: at most 12 bytes per thread-sample and 7 per clock sample' '
	"$SAMPLER" -d -g -o demo.prof -- "$EXAMPLES/demo-workload" >/dev/null 2>dbg &&
	bytes=$(bytes_of_profile dbg) &&
	samples=$(sed -n "s/^sampler: threads: .* seen, \([0-9]*\) thread-samples.*/\1/p" dbg) &&
	clocks=$(sed -n "s/^sampler: clock samples: \([0-9]*\) .*/\1/p" dbg) &&
	echo "$bytes bytes, $samples thread-samples, $clocks clock samples" &&
	expect_ge 100 "$clocks" "clock samples of the demo (12,000 quiet, 155 under a load of 30)" &&
	expect_le $((12 * samples + 7 * clocks)) "$bytes" "profile bytes (12 per thread-sample, 7 per clock sample)" &&
	expect_eq 5 "$(flags_of demo.prof)" "header flags (stacks, clock samples)"
'

test_expect_success 'hostile stacks: one error line naming the offset, bounded memory' '
	/usr/bin/python3 "$ROOT/tests/format/make-hostile-stacks.py" . &&
	for f in undefined parent empty deep deeper claim cut nodes; do
		run_status sh -c "ulimit -v $LIMIT_KB; \"$PROFILE\" dump $f.prof >/dev/null 2>$f.err" &&
		expect_eq 1 "$rc" "exit status for $f.prof" &&
		expect_eq 1 "$(wc -l <$f.err)" "error lines for $f.prof" &&
		expect_grep "^sampler-profile: error: $f.prof: corrupt profile at byte offset [0-9]*: .*stack" $f.err || exit 1
	done &&
	expect_grep "stack 9 not defined (3 so far)" undefined.err &&
	expect_grep "stack of 1025 frames (at most 1024)" deeper.err &&
	expect_grep "more than 2097152 distinct stack nodes" nodes.err
'

test_expect_success 'hostile stacks reach the exporters as the same one error' '
	run_status "$EXPORT" --format folded undefined.prof >/dev/null 2>err &&
	expect_eq 2 "$rc" "exit status (partial export)" &&
	expect_grep "stack 9 not defined" err &&
	run_status "$EXPORT" -o u.data undefined.prof 2>err &&
	expect_eq 2 "$rc" "perf export exit status"
'

test_expect_success '200 bit flips in a profile with stacks: every one detected, no crash' '
	(ulimit -v $LIMIT_KB; $FUZZ st.prof 200 7) >out &&
	cat out &&
	line=$(cat out) &&
	for k in other rc0 bad_messages; do
		expect_eq 0 "$(echo "$line" | tr " " "\n" | sed -n "s/^$k=//p")" "$k" || exit 1
	done
'

test_expect_success 'the fuzz corpus holds a profile with stacks, and it reads' '
	"$PROFILE" dump "$ROOT/fuzz/corpus/native-stacks" >corpus.txt &&
	expect_grep "stacks=1" corpus.txt &&
	expect_grep " stack=0x" corpus.txt
'

test_done
