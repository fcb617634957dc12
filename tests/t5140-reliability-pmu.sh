#!/bin/sh
# Adversarial plug-in scenarios (issue 11; docs/RELIABILITY.md): more
# channels than a profile holds, a channel given twice.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/pmu/pmu-lib.sh"

# ---- channels ---------------------------------------------------------------

test_expect_success '200 perf events: refused before the target starts, one line naming the limit' '
	events=$(for i in $(seq 200); do printf "perf::PAGE-FAULTS,"; done) &&
	run_status "$SAMPLER" -o prof -p "perf:${events%,}" -- touch started 2>err &&
	expect_eq 125 $rc "exit status (139 was a stack overflow)" &&
	one_error err "^sampler: error: perf: 200 channels are more than the 64 a run can record (record fewer" &&
	test ! -e started && test ! -e prof
'

test_expect_success 'at most 64 channels over all -p options: 64 recorded, 65 refused' '
	$PY $FAKES/fake-powercap.py make many --packages 21 &&
	SAMPLER_SYSFS_ROOT=$TRASH/many "$SAMPLER" -f 100 -o p64 -p rapl:all -p perf:perf::PAGE-FAULTS -- true &&
	$PROFILE dump p64 >p64.txt &&
	expect_eq 64 "$(grep -c "^channel " p64.txt)" "channels in the profile" &&
	expect_grep "^channel name=perf::PAGE-FAULTS source=perf " p64.txt &&
	SAMPLER_SYSFS_ROOT=$TRASH/many run_status "$SAMPLER" -o p65 \
		-p rapl:all -p perf:perf::PAGE-FAULTS,perf::MINOR-FAULTS -- touch started 2>err &&
	expect_eq 125 $rc "exit status" &&
	one_error err "^sampler: error: perf: 2 channels, with the 63 of the -p options before it, are more than the 64 a run can record" &&
	test ! -e started
'

test_expect_success 'an event given twice in one -p is refused like two -p options' '
	run_status "$SAMPLER" -o prof -p perf:perf::PAGE-FAULTS,perf::TASK-CLOCK,perf::PAGE-FAULTS -- touch started 2>err &&
	expect_eq 125 $rc "exit status" &&
	one_error err "^sampler: error: perf: channel .perf::PAGE-FAULTS. is given twice (name each channel once)$" &&
	test ! -e started &&
	run_status $PROBE -p perf:perf::TASK-CLOCK,perf::TASK-CLOCK 2>err &&
	expect_eq 125 $rc "exit status of the probe" &&
	one_error err "perf: channel .perf::TASK-CLOCK. is given twice"
'

test_done
