#!/bin/sh
# The one table keyed by thread or process id (common/idmap.h), which the
# recorder, the perf plug-in, the profile coder and the exporter share:
# insert, find, remove and reinsert against a reference, with ids that all
# share one home slot.
. "$(dirname "$0")/lib.sh"

CHECK=$BUILD/tests/idmap-check

field() {	# key file
	sed -n "s/.*\<$1=\([0-9]*\).*/\1/p" "$2" | head -1
}

test_expect_success 'colliding, sequential and random ids: every answer as the reference' '
	"$CHECK" 1 300000 >out &&
	cat out &&
	expect_eq 0 "$(field mismatches out)" "mismatches" &&
	expect_eq 600 "$(field colliding out)" "ids sharing one home slot" &&
	expect_ge 90000 "$(field removes out)" "removals" &&
	expect_ge 2000 "$(field peak out)" "most ids at once" &&
	expect_eq 0 "$(field final out)" "ids left after removing all"
'

test_expect_success 'other seeds' '
	for seed in 2 3 4 5; do
		"$CHECK" $seed 100000 >out.$seed || { cat out.$seed; exit 1; }
		expect_eq 0 "$(field mismatches out.$seed)" "mismatches with seed $seed"
	done
'

test_done
