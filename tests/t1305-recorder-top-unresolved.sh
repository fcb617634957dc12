#!/bin/sh
# sampler top groups code without symbols as sampler-report does (issue 46
# #7): one row "[file]" per file, not one row per address.  Before, a
# stripped program's loop showed as six rows 0x11f4, 0x11f7, ... of 6-9%
# each, where the report of the same profile has one [busy-nopie-stripped]
# row.
. "$(dirname "$0")/lib.sh"
test_have_prereq NUMPY || { skip_all="missing $test_missing_"; test_done; }
export SAMPLER_BIN_DIR=$BUILD SAMPLER_NO_CACHE=1

test_expect_success 'a stripped program: one [file] row in top, as in the report, with its CPU time' '
	"$SAMPLER" top --stdio -r 10 -o kept.prof -- "$EXAMPLES/busy-nopie-stripped" 0.5 >top.out 2>top.err &&
	cat top.out &&
	expect_eq 0 "$(grep -c " 0x[0-9a-f]* " top.out)" "rows of bare addresses" &&
	expect_eq 1 "$(grep -c " \\[busy-nopie-stripped\\] " top.out)" "rows of the stripped file" &&
	/usr/bin/python3 "$ROOT/scripts/sampler-report" --csv kept.prof >r.csv &&
	want=$(awk -F, "\$1 == \"[busy-nopie-stripped]\" { print \$3 }" r.csv) &&
	expect_ge 20 "$want" "the report'"'"'s samples of [busy-nopie-stripped]" &&
	got=$(awk "\$6 == \"[busy-nopie-stripped]\" { print \$5 }" top.out | tail -n 1) &&
	expect_eq "$want" "$got" "samples of the row: top as the report"
'

test_done
