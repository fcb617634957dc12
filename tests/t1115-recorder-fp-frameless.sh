#!/bin/bash
# Frame pointers and leaves without a frame: gcc -O2 -fno-omit-frame-pointer
# still gives a leaf (a function that calls nothing) no frame, so while it
# runs rbp is its caller's, and a walk of the frame-pointer chain from there
# skips that caller.  fp mode takes the sampled PC's caller from the CFI,
# then walks frame pointers: examples/frameless (main -> direct -> spin,
# main -> outer -> inner -> spin, spin frameless) measures its callers'
# shares itself, and fp must give each within 3 points, as dwarf does.
# (Without the CFI step fp gave direct 0.07% for a measured 39.5%.)
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/recorder-lib.sh"
. "$ROOT/tests/callstack-lib.sh"

test_expect_success 'the workload'"'"'s leaf has no frame of its own' '
	objdump -d --no-show-raw-insn "$EXAMPLES/frameless" >dis &&
	sed -n "/<spin>:/,/^\$/p" dis >spin.s &&
	sed -n "/<direct>:/,/^\$/p" dis >direct.s &&
	expect_grep "push *%rbp" direct.s &&
	expect_no_grep "%rbp" spin.s
'

# record MODE: a run of $secs seconds: out (the workload's shares), p.folded,
# paths (the profile's), neff.
record() {
	"$SAMPLER" -d -f 2000 --call-graph "$1" -o p.prof -- "$EXAMPLES/frameless" "$secs" >out 2>dbg &&
	"$EXPORT" --format folded --no-inline --weight cpu p.prof >p.folded &&
	frame_shares p.folded direct outer inner >paths &&
	effective_samples p.prof cpu_delta_ns >neff &&
	echo "measured: $(measured out)" && echo "profiled: $(cat paths)" &&
	echo "effective samples: $(cat neff), margin $(tolerance 3 "$(cat neff)") points"
}

for mode in fp dwarf; do
	test_expect_success PLAIN_BUILD "$mode: the callers of a frameless leaf within 3 points of their measured shares" '
		enough_samples 3 record '$mode' &&
		compare_paths "$(measured out)" "$(cat paths)" "$(tolerance 3 "$(cat neff)")" "direct outer inner"
	'
done

test_done
