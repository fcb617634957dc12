#!/bin/sh
# sampler-report's shares are of every thread-sample the profile holds,
# the unresolved addresses included: a stripped copy of examples/attrib
# (its own code all addresses, a [attrib-s] row, or one row per address
# with --addresses) recorded live; each row's share must be its samples
# over the profile's thread-sample count (the recorder's stats line), and
# the rows must add up to that count.  Seen failing: with the denominator
# leaving out the unresolved addresses (agg.totals skipping them), the
# libc rows took 100% between them and the stripped code 1400%.
. "$(dirname "$0")/lib.sh"
test_have_prereq NUMPY || { skip_all="missing $test_missing_"; test_done; }
export SAMPLER_BIN_DIR=$BUILD SAMPLER_NO_CACHE=1

test_expect_success 'a stripped program recorded: its thread-samples counted by the recorder' '
	cp "$EXAMPLES/attrib" attrib-s && strip attrib-s &&
	"$SAMPLER" -f 500 -o s.prof -- ./attrib-s 0.3 >/dev/null &&
	"$BUILD/sampler-profile" dump s.prof >s.txt &&
	sed -n "s/^stats .* thread_samples=\([0-9]*\) .*/\1/p" s.txt >total &&
	expect_ge 20 "$(cat total)" "thread-samples"
'

# shares_hold CSV: each row's share = 100 x samples / the profile's
# thread-samples (within the CSV's rounding), and the samples add up
for addresses in "" --addresses; do
	test_expect_success "report ${addresses:-by function}: shares over every thread-sample, unresolved ones included" '
		/usr/bin/python3 "$ROOT/scripts/sampler-report" --csv $addresses s.prof >r.csv &&
		total=$(cat total) &&
		unresolved=$(awk -F, "NR > 1 && \$1 ~ /^(\\[attrib-s\\]|0x)/ { n += \$3 } END { print n + 0 }" r.csv) &&
		expect_ge 10 "$unresolved" "samples at unresolved addresses" &&
		expect_eq "$total" "$(awk -F, "NR > 1 { n += \$3 } END { print n + 0 }" r.csv)" "samples of all rows" &&
		awk -F, -v total="$total" "NR > 1 { d = \$4 - 100 * \$3 / total; if (d < 0) d = -d
			if (d > 0.001) { print \"row \" \$1 \": share \" \$4 \", \" \$3 \" of \" total \" thread-samples\"; bad = 1 } }
			END { exit bad }" r.csv
	'
done

test_done
