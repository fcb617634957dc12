#!/bin/sh
# The one way an array grows (common/grow.h): a million appends keep every
# element with a capacity that doubles (about twenty reallocations, not a
# million), and a size that would overflow is refused, the array unchanged.
. "$(dirname "$0")/lib.sh"

field() {	# key file
	sed -n "s/.*\<$1=\([0-9]*\).*/\1/p" "$2" | head -1
}

test_expect_success 'a million appends: all kept, few reallocations, overflow refused' '
	"$BUILD/tests/grow-check" >out &&
	cat out &&
	expect_eq 1000000 "$(field elements out)" "elements appended" &&
	expect_eq 0 "$(field lost out)" "elements changed by growth" &&
	expect_le 20 "$(field grows out)" "reallocations (doubling from 8)" &&
	expect_ge 15 "$(field grows out)" "reallocations (doubling from 8)" &&
	expect_eq 1 "$(field cap_ok out)" "capacity covers the elements" &&
	expect_eq 1 "$(field overflow_refused out)" "overflowing request refused" &&
	expect_eq 1 "$(field kept_cap out)" "capacity unchanged after a refusal"
'

test_done
