#!/bin/sh
# rapl plug-in against fake powercap trees under SAMPLER_SYSFS_ROOT.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/pmu/pmu-lib.sh"
FAKE="$PY $FAKES/fake-powercap.py"

test_expect_success 'all package domains by default; names, units and scale as the contract says' '
	$FAKE make two --packages 2 &&
	SAMPLER_SYSFS_ROOT=$TRASH/two $PROBE -n 1 -p rapl >out &&
	grep ^channel out >channels &&
	printf "%s\n" \
		"channel name=package-0 source=rapl unit=uJ scale=1e-06 kind=energy scope=sample" \
		"channel name=package-1 source=rapl unit=uJ scale=1e-06 kind=energy scope=sample" >expect &&
	diff expect channels
'

test_expect_success 'domains by name, qualified name and index; "all" takes every zone' '
	SAMPLER_SYSFS_ROOT=$TRASH/two $PROBE -n 1 -p rapl:1:1,package-0/core,package-1 >out &&
	grep ^channel out | sed "s/ source.*//" >names &&
	printf "%s\n" "channel name=package-0/core" "channel name=package-1" \
		"channel name=package-1/dram" >expect &&
	diff expect names &&
	SAMPLER_SYSFS_ROOT=$TRASH/two $PROBE -n 1 -p rapl:all >all &&
	expect_eq 6 "$(grep -c ^channel all)" "channels of rapl:all"
'

test_expect_success 'a sub-zone name that is unique stays unqualified' '
	$FAKE make one &&
	SAMPLER_SYSFS_ROOT=$TRASH/one $PROBE -n 1 -p rapl:core,dram,0 >out &&
	grep ^channel out | sed "s/ source.*//" >names &&
	printf "%s\n" "channel name=package-0" "channel name=core" "channel name=dram" >expect &&
	diff expect names
'

test_expect_success 'energy totals match what the fake counters gained, across wraps, within 1%' '
	$FAKE make wrap --range 1000000 --start 900000 &&
	SAMPLER_SYSFS_ROOT=$TRASH/wrap $PROBE -q -i 2 -p rapl:package-0,core,dram -- \
		$FAKE run wrap --rate intel-rapl:0=5 --rate intel-rapl:0:0=3 --seconds 0.6 --log wrap.log >out &&
	cat wrap.log &&
	expect_ge 2 "$(field wrap.log zone=intel-rapl:0:0 wraps)" "wraps of core" &&
	expect_ge 3 "$(field wrap.log "zone=intel-rapl:0 " wraps)" "wraps of package-0" &&
	within_percent "$(field wrap.log "zone=intel-rapl:0 " added)" "$(field out "total name=package-0 " value)" 1 "package-0 uJ" &&
	within_percent "$(field wrap.log zone=intel-rapl:0:0 added)" "$(field out "total name=core " value)" 1 "core uJ" &&
	expect_eq 0 "$(field out "total name=dram " value)" "dram uJ (its counter stood still)" &&
	expect_eq 0 "$(field out "total name=package-0 " missing)" "missing readings"
'

test_expect_success 'no powercap tree: one error line naming the path and the fix' '
	run_status env SAMPLER_SYSFS_ROOT=$TRASH/none $PROBE -p rapl 2>err &&
	expect_eq 125 $rc "exit status" &&
	expect_eq 1 "$(wc -l <err)" "error lines" &&
	expect_grep "rapl: no $TRASH/none/class/powercap on this machine (RAPL needs .*modprobe intel_rapl_msr" err
'

test_expect_success 'an unknown domain is refused with the list of domains' '
	run_status env SAMPLER_SYSFS_ROOT=$TRASH/one $PROBE -p rapl:uncore 2>err &&
	expect_eq 125 $rc "exit status" &&
	expect_grep "rapl: no RAPL domain .uncore. in .*(domains here: package-0 (0), core (0:0), dram (0:1); give names or indexes" err
'

test_expect_success 'a malformed counter range is refused, naming the file' '
	$FAKE make bad &&
	echo junk >bad/class/powercap/intel-rapl:0/max_energy_range_uj &&
	run_status env SAMPLER_SYSFS_ROOT=$TRASH/bad $PROBE -p rapl 2>err &&
	expect_eq 125 $rc "exit status" &&
	expect_grep "rapl: bad max_energy_range_uj .junk. in $TRASH/bad/class/powercap/intel-rapl:0 (expected" err
'

test_expect_success NOBODY_CAN_READ 'energy_uj unreadable (root-only since Linux 5.10): the error says so, with the fix' '
	$FAKE make locked &&
	chmod 000 locked/class/powercap/intel-rapl:0/energy_uj &&
	run_status as_nobody env SAMPLER_SYSFS_ROOT=$TRASH/locked $PROBE -p rapl 2>err &&
	expect_eq 125 $rc "exit status" &&
	expect_eq 1 "$(wc -l <err)" "error lines" &&
	expect_grep "rapl: cannot read $TRASH/locked/class/powercap/intel-rapl:0/energy_uj: Permission denied (since Linux 5.10 only root may read RAPL energy; run as root or: sudo chmod o+r " err
'

test_expect_success 'sampler -p rapl: the profile total matches the fake counter within 1%' '
	$FAKE make run --range 1000000 --start 500000 &&
	SAMPLER_SYSFS_ROOT=$TRASH/run $SAMPLER -f 1000 -p rapl -o prof -- \
		$FAKE run run --rate intel-rapl:0=5 --seconds 0.6 --settle-ms 200 --log run.log &&
	$PROFILE dump prof >dump &&
	expect_grep "^channel name=package-0 source=rapl unit=uJ scale=1e-06 kind=energy scope=sample" dump &&
	added=$(field run.log zone=intel-rapl:0 added) &&
	within_percent "$added" "$(field dump stats totals)" 1 "stats totals (uJ)" &&
	within_percent "$added" "$(sample_sum dump 1)" 1 "sum of per-sample values (uJ)"
'
# background_watts TREE: the package counter of TREE gains 5 W in the
# background until the test ends (pid in $fake; a deadline of its own ran
# out before the last of six recordings on a loaded sanitizer build);
# returns once it has started moving.
background_watts() {
	{ $FAKE run "$1" --rate intel-rapl:0=5 --seconds 600 --step-ms 1 --log "$1.log" & } &&
	fake=$! &&
	test_when_finished "kill $fake" &&
	n=0 &&
	while [ "$(cat "$1/class/powercap/intel-rapl:0/energy_uj")" -eq 0 ]; do
		n=$((n + 1)) && [ $n -lt 600 ] || return 1
		sleep 0.05
	done
}

# The counter gains energy while the sampler runs, so every reading
# sees some; the samples must carry all of it.
test_expect_success 'sampler -p rapl: no bogus missing readings, samples add up to the stats total' '
	$FAKE make bg &&
	background_watts bg &&
	for i in 1 2 3 4 5 6; do
		SAMPLER_SYSFS_ROOT=$TRASH/bg $SAMPLER -p rapl -o bg$i -- sleep 0.2 2>err$i &&
		expect_no_grep "readings missing" err$i &&
		$PROFILE dump bg$i >dump$i &&
		expect_eq 0 "$(field dump$i stats missing)" "stats missing" &&
		expect_ge 1 "$(field dump$i stats totals)" "energy total (uJ)" &&
		expect_eq "$(field dump$i stats totals)" "$(sample_sum dump$i 1)" "sum of per-sample energy (uJ)" ||
		return 1
	done &&
	{ kill $fake 2>/dev/null; wait $fake || true; }
'

# While every thread is held by job control no sample is taken: the
# energy of that time goes into the next sample, not into the total alone.
test_expect_success 'sampler -p rapl: energy while the target is stopped goes into the next sample' '
	$FAKE make jc &&
	background_watts jc &&
	{ SAMPLER_SYSFS_ROOT=$TRASH/jc $SAMPLER -p rapl -o jc.prof -- \
		sh -c "echo \$\$ >jc.pid; kill -STOP \$\$; sleep 0.1" 2>jc.err & } &&
	sampler=$! &&
	i=0 &&
	while ! grep -q "^[0-9]* (sh) [tT] " /proc/$(cat jc.pid 2>/dev/null || echo none)/stat 2>/dev/null; do
		i=$((i + 1)) && [ $i -lt 600 ] && kill -0 $sampler || break
		sleep 0.05
	done &&
	sleep 0.5 &&
	kill -CONT "$(cat jc.pid)" &&
	run_status wait $sampler &&
	{ kill $fake 2>/dev/null; wait $fake || true; } &&
	expect_eq 0 $rc "sampler status" &&
	expect_no_grep "readings missing" jc.err &&
	$PROFILE dump jc.prof >jc.dump &&
	total=$(field jc.dump stats totals) &&
	expect_eq "$total" "$(sample_sum jc.dump 1)" "sum of per-sample energy (uJ)" &&
	largest=$(sed -n "s/^sample .* values=\([^ ]*\).*/\1/p" jc.dump | sort -g | tail -1) &&
	expect_ge 1500000 "$largest" "largest sample (uJ): the 0.5 s stop at 5 W"
'
test_expect_success NOBODY_CAN_READ 'sampler -p rapl with an unreadable counter exits 125 before starting the target' '
	run_status as_nobody env SAMPLER_SYSFS_ROOT=$TRASH/locked $SAMPLER -p rapl -o $TRASH/p2 -- touch $TRASH/started 2>err &&
	expect_eq 125 $rc "exit status" &&
	expect_grep "^sampler: error: rapl: cannot read .*energy_uj: Permission denied (since Linux 5.10" err &&
	test ! -e started
'

test_done
