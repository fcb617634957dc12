#!/bin/sh
# The recorder against adversarial command lines (issue 11): more channels
# than a profile holds, and frequencies whose period cannot be scheduled.
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

test_done
