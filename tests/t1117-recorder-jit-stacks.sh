#!/bin/bash
# Call stacks through JIT code that keeps a frame pointer, as V8's and
# HotSpot's does: the unwinder follows its frames through rbp and goes on
# with CFI below them; a stack that reaches its outermost frame (_start, a
# thread's start) is complete, with no [truncated: ...] marker, and the
# JIT's frames are named from /tmp/perf-PID.map.  Before, every stack
# whose sampled PC was JIT code was marked unknown-map (node: 83% of the
# CPU time under the marker, though 86% of those stacks reached _start),
# and node's own module was lost (V8 maps a copy of node's code elsewhere,
# which libdwfl took for an overlap and dropped node's module for).
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/recorder-lib.sh"

test_lazy_prereq X86_64 '
	test "$(uname -m)" = x86_64 || { echo "examples/jit generates x86-64 code"; exit 1; }
'
test_lazy_prereq NODE '
	command -v node >/dev/null || { echo "node (to run JavaScript under --perf-basic-prof)"; exit 1; }
'
test_have_prereq X86_64 || { skip_all="missing $test_missing_"; test_done; }

# weight PATTERN FILE: the summed weight of the folded lines matching the
# awk regular expression PATTERN (all lines: "").
weight() {
	awk -v re="$1" '$0 ~ re { s += $NF } END { printf "%.0f\n", s }' "$2"
}

# examples/jit: main -> jit_caller -> the generated loop (frame pointer
# kept) -> jit_callback.  Until the recorder reads the maps again (at most
# every 100 samples) the generated code is in none of them: those stacks
# stop there (unknown-map), up to 100 of them.
test_expect_success 'examples/jit with CFI: stacks in and through the JIT frame reach _start, complete' '
	"$SAMPLER" -d -f 1000 --call-graph dwarf -o j.prof -- "$EXAMPLES/jit" 2 2>dbg &&
	grep "call stacks truncated" dbg &&
	"$EXPORT" --format folded --no-inline --weight samples j.prof >j.folded &&
	total=$(weight "" j.folded) &&
	in_jit=$(weight "^jit;_start;.*;main;jit_caller;\\\\[unknown\\\\] " j.folded) &&
	through=$(weight "^jit;_start;.*;main;jit_caller;\\\\[unknown\\\\];jit_callback " j.folded) &&
	echo "of $total: $in_jit in the JIT frame, $through in its callee, rooted at _start" &&
	expect_ge $((total / 2)) "$in_jit" "thread-samples in the JIT frame on complete stacks" &&
	expect_ge $((total / 20)) "$through" "thread-samples through the JIT frame on complete stacks" &&
	expect_le $((100 + total / 20)) "$(weight "\\\\[truncated: " j.folded)" "thread-samples marked truncated"
'

# fp mode follows the same frames, and ends where Debian's libc keeps no
# frame pointer (bad-frame, not unknown-map: the chain went on).
test_expect_success 'examples/jit with frame pointers: the chain goes through the JIT frame' '
	"$SAMPLER" -d -f 1000 --call-graph fp -o f.prof -- "$EXAMPLES/jit" 2 2>dbg &&
	"$EXPORT" --format folded --no-inline --weight samples f.prof >f.folded &&
	total=$(weight "" f.folded) &&
	expect_ge $((total * 7 / 10)) "$(weight ";main;jit_caller;\\\\[unknown\\\\]" f.folded)" \
		"thread-samples with main and jit_caller below the JIT frame" &&
	expect_le $((100 + total / 20)) "$(weight "\\\\[truncated: unknown-map\\\\]" f.folded)" "thread-samples marked unknown-map"
'

# node's module was lost because V8 maps a copy of node's code elsewhere:
# examples/remap-nopie, not PIE either, maps a copy of its own code and
# works in remap_outer -> remap_inner.  (Before: all stacks unknown-map,
# remap_outer missing, found through rbp without the program's CFI.)
test_expect_success 'an executable that maps a copy of its code: its stacks complete, with its CFI' '
	"$SAMPLER" -d -f 1000 -g -o r.prof -- "$EXAMPLES/remap-nopie" 1 >out 2>dbg &&
	grep -q "^copy=0x" out &&
	"$EXPORT" --format folded --no-inline --weight samples r.prof >r.folded &&
	total=$(weight "" r.folded) &&
	expect_ge $((total * 8 / 10)) "$(weight "^remap-nopie;_start;.*;main;remap_outer;remap_inner " r.folded)" \
		"thread-samples on complete stacks main;remap_outer;remap_inner" &&
	expect_eq 0 "$(weight "\\\\[truncated: " r.folded)" "thread-samples marked truncated"
'

# node --perf-basic-prof writes /tmp/perf-PID.map; fib runs optimized
# (JS:*fib), recursing through its own frames, for most of the CPU time
# (a third under the sanitizer build, where node's start costs more).
test_expect_success NODE 'node --perf-basic-prof: complete stacks unmarked, JIT frames named' '
	cat >busy.js <<-\EOF &&
	function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
	const end = Date.now() + 3000;
	let s = 0;
	while (Date.now() < end) s += fib(20);
	console.log(s);
	EOF
	"$SAMPLER" -g -o n.prof -- node --perf-basic-prof busy.js >out &&
	dump n.prof &&
	pid=$(sed -n "s/^process pid=\\([0-9]*\\).*/\\1/p" n.prof.txt | head -n 1) &&
	test_when_finished "rm -f /tmp/perf-$pid.map" &&
	test -s /tmp/perf-$pid.map &&
	"$EXPORT" --format folded --no-inline n.prof >n.folded &&
	total=$(weight "" n.folded) &&
	rooted=$(weight "^node;(\\\\[truncated: [a-z-]*\\\\];)?(_start|clone3?);" n.folded) &&
	marked=$(weight "^node;\\\\[truncated: [a-z-]*\\\\];(_start|clone3?);" n.folded) &&
	fib=$(weight ";JS:\\\\*?fib [^;]*$" n.folded) &&
	echo "CPU ns: $total, $rooted rooted at _start or clone, $marked of them marked, $fib in fib" &&
	expect_ge $((total * 7 / 10)) "$rooted" "CPU time on stacks rooted at _start or clone" &&
	# (92.8% before; a few clock samples, whose stacks the kernel copied,
	# reach _start marked: 0.01% in one run of make check)
	expect_le $((rooted / 100)) "$marked" "CPU time on rooted stacks marked truncated" &&
	expect_ge $((total / 4)) "$fib" "CPU time in fib, named from the perf map"
'

test_done
