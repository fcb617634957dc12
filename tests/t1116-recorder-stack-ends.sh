#!/bin/bash
# How a stack ends, named and counted right (-d's "call stacks truncated"
# line and each thread-sample's stack_end): examples/stackends cuts stacks
# short for one reason at a time (assembly without CFI, as openssl's
# SHA-256; code in an anonymous mapping that calls back into the program,
# as a JIT's; a recursion deeper than --max-stack), and examples/churn
# starts threads, whose first instruction is right after clone3's system
# call.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/recorder-lib.sh"

# ends_d END: -d's count of stacks that ended so (0 when not listed).
ends_d() {
	n=$(sed -n "s/^sampler: call stacks truncated:.* $1 \([0-9]*\).*/\1/p" dbg)
	echo "${n:-0}"
}

# ends_dump END: thread-samples of the dump that ended so.
ends_dump() {
	grep -c "^ts .* stack_end=$1\$" p.prof.txt || true
}

# record MODE [SAMPLER OPTIONS] -- PROGRAM ARGS: p.prof, its dump, dbg (-d);
# -d's count of every end equals the profile's.
record() {
	mode=$1
	shift
	"$SAMPLER" -d -f 1000 --call-graph "$mode" -o p.prof "$@" >out 2>dbg &&
	dump p.prof &&
	grep "call stacks truncated" dbg &&
	for end in no-cfi copy-short unknown-map max-depth bad-frame unreadable; do
		expect_eq "$(ends_dump $end)" "$(ends_d $end)" "stacks ending $end counted by -d" || return 1
	done
}

# in_symbol NAME: the stack_end of each thread-sample whose PC is in NAME
# (one thread: the CSV's samples and the dump's come in the same order).
in_symbol() {
	"$EXPORT" --format csv --no-inline --symbols p.prof | grep -v "^#" | awk -F, '$4 == "sample" { print $9 }' >syms &&
	sed -n "s/^ts .* stack_end=//p" p.prof.txt >ends &&
	expect_eq "$(wc -l <ends)" "$(wc -l <syms)" "thread-samples in the CSV" &&
	paste -d" " syms ends | awk -v s="$1" '$1 == s { print $2 }'
}

test_expect_success 'assembly without CFI that uses rbp as data: its stacks end no-cfi, counted so' '
	record dwarf -- "$EXAMPLES/stackends" nocfi 1 &&
	in_symbol asm_hash >asm.ends &&
	n=$(wc -l <asm.ends) &&
	expect_ge 100 "$n" "thread-samples in asm_hash" &&
	expect_eq "$n" "$(grep -c "^no-cfi\$" asm.ends)" "of them ending no-cfi" &&
	expect_ge "$n" "$(ends_d no-cfi)" "no-cfi stacks counted by -d"
'

# libdwfl follows the JIT frame through rbp and goes on with CFI to _start:
# complete (node's stacks were all counted unknown-map).  Until the maps
# are read again (at most every 100 samples) the JIT code is in none.
test_expect_success 'through a JIT frame that keeps a frame pointer: complete stacks' '
	record dwarf -- "$EXAMPLES/stackends" jitcall 2 &&
	"$EXPORT" --format folded --no-inline --weight samples p.prof >p.folded &&
	through=$(awk "/^stackends;_start;.*;main;jit_caller;\\[unknown\\];c_work / { s += \$NF } END { print s + 0 }" p.folded) &&
	total=$(awk "{ s += \$NF } END { print s + 0 }" p.folded) &&
	echo "through the JIT frame to _start: $through of $total" &&
	expect_ge $((total / 2)) "$through" "thread-samples with complete stacks through the JIT frame" &&
	expect_ge "$through" "$(ends_dump complete)" "complete stacks"
'

test_expect_success 'a recursion deeper than --max-stack: max-depth, counted so, in dwarf and fp' '
	for mode in dwarf fp; do
		record $mode -- "$EXAMPLES/stackends" deep 1 &&
		n=$(records p.prof.txt ts) &&
		expect_ge $((n * 8 / 10)) "$(ends_d max-depth)" "$mode: max-depth stacks of $n" || exit 1
	done
'

# A new thread stops first right after clone3's syscall, where the CFI is
# still the parent's: it read a junk caller from the new, empty stack (510
# of 14,692 thread-samples of churn, marked unknown-map).  The child is at
# its outermost frame; the parent's caller is at its stack pointer.
test_expect_success 'threads at their first instruction in clone3: no junk caller, rooted' '
	record dwarf -- "$EXAMPLES/churn" 1 &&
	"$EXPORT" --format folded --no-inline --weight samples p.prof >p.folded &&
	junk=$(awk "\$1 ~ /^churn;\\[unknown\\]/ { s += \$NF } END { print s + 0 }" p.folded) &&
	rooted=$(awk "{ t += \$NF; split(\$1, f, \";\"); if (f[2] == \"_start\" || f[2] == \"clone3\") r += \$NF }
		     END { printf \"%.1f\", t ? 100 * r / t : -1 }" p.folded) &&
	expect_eq 0 "$junk" "thread-samples with an [unknown] outermost caller" &&
	expect_ge 97 "$rooted" "% of thread-samples on stacks rooted at _start or clone3"
'

test_expect_success 'the dynamic loader at start-up: its stacks end complete at its _start' '
	# ld.so relocating python3 with LD_BIND_NOW takes a few ms: record
	# until some samples land there (at most 8 runs), then assert
	: >l.folded &&
	for i in 1 2 3 4 5 6 7 8; do
		LD_BIND_NOW=1 "$SAMPLER" -f 5000 -g -o l.prof -- /usr/bin/python3 -c pass &&
		"$EXPORT" --format folded --no-inline --weight samples l.prof | grep ";_dl_start;" >>l.folded || :
		if test "$(wc -l <l.folded)" -ge 5; then break; fi
	done &&
	expect_ge 1 "$(wc -l <l.folded)" "stacks through the loader'"'"'s _dl_start" &&
	rooted=$(awk "\$1 ~ /^python3;_start;_dl_start;/ { r++ } END { print r + 0 }" l.folded) &&
	expect_eq "$(wc -l <l.folded)" "$rooted" "loader stacks rooted at _start, no [truncated: ...] marker"
'

test_done
