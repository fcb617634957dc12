#!/bin/sh
# The recorder against adversarial command lines (issue 11): more channels
# than a profile holds (#1), and frequencies whose period cannot be
# scheduled (#9).
# Each is refused with one error line before the target starts.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/recorder-lib.sh"

# refused_before_start FILE: exit 125, one error line in FILE, and the
# target (touch started) never ran.
refused_before_start() {
	expect_eq 125 "$rc" "exit status" &&
	one_error_line "$1" &&
	if [ -e started ]; then echo "the target started"; return 1; fi
}

# The count itself is checked in the PMU set (t5140); the engine, whose
# per-run arrays the profile sizes, must never index past them either.
test_expect_success '200 per-thread channels: one error line before the target runs, no crash' '
	ev=$(printf "perf::PAGE-FAULTS,%.0s" $(seq 200)) &&
	run_status "$SAMPLER" -o /dev/null -p "perf:${ev%,}" -- touch started 2>err &&
	refused_before_start err
'

# The period (1e9 / HZ ns) is checked, not only HZ: 1e-17 Hz passes HZ > 0
# but its period does not fit the schedule's 64-bit nanoseconds.
test_expect_success 'frequencies without a usable period: one error line naming the accepted range' '
	for f in 1e-17 0.0009 4.9e-324 1e-300 0 -0 -5 nan inf -inf 1e300 100001 0x1p-70; do
		rm -f started &&
		run_status "$SAMPLER" -f "$f" -o p -- touch started 2>err &&
		refused_before_start err &&
		expect_grep "^sampler: error: bad frequency .$f. (use a number of Hz from 0.001 to 100000, e.g. -f 1000)$" err ||
		return 1
	done
'

test_expect_success 'the lowest and highest accepted frequencies record' '
	"$SAMPLER" -f 0.001 -o low -- "$EXAMPLES/busy" 0.05 &&
	dump low && expect_grep "target_hz=0.001" low.txt &&
	expect_eq 0 "$(records low.txt sample)" "samples in 50 ms at 0.001 Hz" &&
	"$SAMPLER" -f 100000 -o high -- "$EXAMPLES/busy" 0.05 &&
	dump high && expect_ge 50 "$(records high.txt sample)" "samples in 50 ms at 100 kHz"
'

test_done
