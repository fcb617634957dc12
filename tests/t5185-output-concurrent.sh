#!/bin/bash
# Issue 11 #2: two samplers writing the same file at once.  Each writes a
# file of its own and moves it into place, so the name ends up holding one
# complete profile (and FILE.old the other), never one run's header with
# the other run's data.
. "$(dirname "$0")/lib.sh"

# consistent PROFILE: reads back complete, and every sampled thread belongs
# to the one command its header names.
consistent() {
	"$BUILD/sampler-profile" dump "$1" >"$1.txt" &&
	expect_grep "^stats " "$1.txt" &&
	pids=$(sed -n "s/^ts .* pid=\([0-9]*\) .*/\1/p" "$1.txt" | sort -u) &&
	expect_eq 1 "$(echo "$pids" | wc -l)" "processes sampled in $1" &&
	arg=$(sed -n "s/^exec pid=$pids .* argv=[^ ]*%20\([0-9.]*\)$/\1/p" "$1.txt") &&
	expect_grep "^host .*cmdline=.*busy%20$arg " "$1.txt"
}

for round in 1 2 3; do
	test_expect_success "round $round: two samplers on one name give two complete profiles" '
		rm -f same.prof same.prof.old &&
		{ "$SAMPLER" -f 200 -o same.prof -- "$EXAMPLES/busy" 0.4$round >a.out 2>a.err & } &&
		{ "$SAMPLER" -f 200 -o same.prof -- "$EXAMPLES/busy" 0.3$round >b.out 2>b.err & } &&
		wait &&
		cat a.err b.err >errs &&
		expect_no_grep "error:" errs &&
		consistent same.prof &&
		consistent same.prof.old &&
		! cmp -s same.prof same.prof.old
	'
done

test_done
