#!/bin/sh
# rapl-perf plug-in: RAPL through the perf power PMU, against a fake PMU
# whose events are the software cpu-clock (1 J per second per package).
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/pmu/pmu-lib.sh"
FAKE=$FAKES/fake-power-pmu.sh

$FAKE one 0
# two packages: CPUs 0 and 1, or CPU 0 twice on a one-CPU machine
[ "$(nproc)" -ge 2 ] && $FAKE two 0-1 || $FAKE two 0,0

test_expect_success ROOT 'package energy by default, named like the rapl plug-in' '
	SAMPLER_SYSFS_ROOT=$TRASH/one $PROBE -n 1 -p rapl-perf >out &&
	grep ^channel out >channels &&
	echo "channel name=package-0 source=rapl-perf unit=uJ scale=1e-06 kind=energy scope=sample" >expect &&
	diff expect channels
'

test_expect_success ROOT 'two packages, all events: psys once, the others per package' '
	SAMPLER_SYSFS_ROOT=$TRASH/two $PROBE -n 1 -p rapl-perf:all >out &&
	grep ^channel out | sed "s/ source.*//" >names &&
	printf "channel name=%s\n" package-0 package-1 package-0/dram package-1/dram psys >expect &&
	diff expect names
'

test_expect_success ROOT 'energy in uJ: 20 reads 10 ms apart gain at least 0.2 J at 1 W' '
	SAMPLER_SYSFS_ROOT=$TRASH/two $PROBE -q -n 20 -i 10 -p rapl-perf:package,dram >out &&
	cat out &&
	for ch in package-0 package-1 package-0/dram; do
		total=$(field out "total name=$ch " value) &&
		expect_ge 200000 "$total" "$ch uJ (20 sleeps of 10 ms)" &&
		expect_le 2000000 "$total" "$ch uJ" || exit 1
	done &&
	within_percent "$(field out "total name=package-0 " value)" "$(field out "total name=package-1 " value)" 5 "package-1 vs package-0"
'

test_expect_success 'an unknown event is refused with the list of events' '
	run_status env SAMPLER_SYSFS_ROOT=$TRASH/one $PROBE -p rapl-perf:core 2>err &&
	expect_eq 125 $rc "exit status" &&
	one_error err "rapl-perf: no event .core. in the power PMU (events here: energy-pkg (package), energy-ram (dram), energy-psys (psys); give event or domain names)"
'

test_expect_success 'no power PMU: one error line naming the path' '
	run_status env SAMPLER_SYSFS_ROOT=$TRASH/none $PROBE -p rapl-perf 2>err &&
	expect_eq 125 $rc "exit status" &&
	one_error err "rapl-perf: no $TRASH/none/bus/event_source/devices/power on this machine (the perf power PMU needs"
'

test_expect_success NOBODY_CAN_READ 'unprivileged: system-wide events refused, with the fix' '
	run_status as_nobody env SAMPLER_SYSFS_ROOT=$TRASH/one $PROBE -p rapl-perf 2>err &&
	expect_eq 125 $rc "exit status" &&
	one_error err "rapl-perf: cannot open energy-pkg on CPU 0: Permission denied (system-wide events need root or CAP_PERFMON: sudo setcap cap_perfmon=ep"
'

test_expect_success 'a malformed event file is refused, naming the file' '
	$FAKE bad 0 &&
	echo junk >bad/bus/event_source/devices/power/events/energy-pkg &&
	run_status env SAMPLER_SYSFS_ROOT=$TRASH/bad $PROBE -p rapl-perf 2>err &&
	one_error err "rapl-perf: cannot parse $TRASH/bad/bus/event_source/devices/power/events/energy-pkg: .junk. (expected event=0xNN)"
'

test_expect_success ROOT 'sampler -p rapl-perf: the profile total is about 1 J per second of the run' '
	SAMPLER_SYSFS_ROOT=$TRASH/one $SAMPLER -f 200 -p rapl-perf -o prof -- sleep 0.3 &&
	$PROFILE dump prof >dump &&
	expect_grep "^channel name=package-0 source=rapl-perf unit=uJ scale=1e-06 kind=energy scope=sample" dump &&
	total=$(field dump stats totals) &&
	expect_ge 300000 "$total" "uJ over a run of at least 0.3 s" &&
	expect_le 3000000 "$total" "uJ"
'

test_done
