#!/bin/sh
# sensors plug-in against a fake hwmon tree.  libsensors reads /sys itself,
# so the fake class tree is bind-mounted over /sys/class in a private mount
# namespace (root only).
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/pmu/pmu-lib.sh"
FAKE="$PY $FAKES/fake-hwmon.py"
CHIP=fakepower-virtual-0

# in_fake_sys CMD...: run CMD with $TRASH/class as /sys/class
in_fake_sys() {
	unshare -m sh -c 'mount --make-rprivate / && mount --bind "$0" /sys/class && exec "$@"' \
		"$TRASH/class" "$@"
}

$FAKE make "$TRASH/class"
test_lazy_prereq FAKE_SYS '
	test_have_prereq UNSHARE || { echo "to mount the fake tree over /sys/class, $test_missing_"; exit 1; }
	in_fake_sys test -d /sys/class/hwmon/hwmon0 2>/dev/null ||
	{ echo "cannot bind-mount over /sys/class in a private mount namespace here"; exit 1; }
'

test_expect_success FAKE_SYS 'without an argument: every power, energy, current and voltage input, no temperature' '
	in_fake_sys $PROBE -n 2 -p sensors >out &&
	grep ^channel out | sort >channels &&
	printf "%s\n" \
		"channel name=$CHIP/curr1 source=sensors unit=A scale=1 kind=current scope=sample" \
		"channel name=$CHIP/energy1 source=sensors unit=J scale=1 kind=energy scope=sample" \
		"channel name=$CHIP/in0 source=sensors unit=V scale=1 kind=voltage scope=sample" \
		"channel name=$CHIP/power1 source=sensors unit=W scale=1 kind=power scope=sample" >expect &&
	diff expect channels
'

test_expect_success FAKE_SYS 'readings in SI units: 12.5 W, 12 V, 1.042 A' '
	in_fake_sys $PROBE -q -n 3 -p sensors:$CHIP/power1,$CHIP/in0,$CHIP/curr1 >out &&
	expect_eq 12.5 "$(field out "total name=$CHIP/power1 " mean)" "mean power" &&
	expect_eq 12 "$(field out "total name=$CHIP/in0 " mean)" "mean voltage" &&
	expect_eq 1.042 "$(field out "total name=$CHIP/curr1 " mean)" "mean current" &&
	expect_eq 0 "$(field out "total name=$CHIP/power1 " missing)" "missing readings"
'

test_expect_success FAKE_SYS 'a whole chip by name' '
	in_fake_sys $PROBE -n 1 -p sensors:$CHIP >out &&
	expect_eq 4 "$(grep -c ^channel out)" "channels"
'

test_expect_success FAKE_SYS 'energy input: the total is what the counter gained while running' '
	in_fake_sys $PROBE -q -i 2 -p sensors:$CHIP/energy1 -- \
		$FAKE run "$TRASH/class" --watts 4 --seconds 0.3 --log energy.log >out &&
	added=$(sed -n "s/^added_uj=//p" energy.log) &&
	expect_near "$(awk -v a=$added "BEGIN { print a / 1e6 }")" \
		"$(field out "total name=$CHIP/energy1 " value)" 0.001 "total J"
'

test_expect_success FAKE_SYS '-p help lists the inputs found' '
	in_fake_sys $PROBE -p help >help &&
	expect_grep "usable on this machine; inputs: .*$CHIP/power1 (W)" help
'

test_expect_success FAKE_SYS 'an unknown input is refused with the list of inputs' '
	run_status in_fake_sys $PROBE -p sensors:$CHIP/power9 2>err &&
	expect_eq 125 $rc "exit status" &&
	expect_eq 1 "$(wc -l <err)" "error lines" &&
	expect_grep "sensors: no input .$CHIP/power9. (inputs here: .*$CHIP/power1 (W).*; use -p sensors:CHIP/FEATURE" err
'

test_expect_success FAKE_SYS 'no inputs at all: the error says so and how to fix it' '
	mkdir -p empty/hwmon &&
	run_status unshare -m sh -c "mount --make-rprivate / && mount --bind $TRASH/empty /sys/class && exec $PROBE -p sensors" 2>err &&
	expect_eq 125 $rc "exit status" &&
	expect_grep "sensors: no hwmon power, energy, current or voltage input on this machine (libsensors finds none" err
'

test_expect_success FAKE_SYS 'sensors twice is refused (libsensors is process-wide)' '
	run_status in_fake_sys $PROBE -p sensors:$CHIP/power1 -p sensors:$CHIP/in0 2>err &&
	expect_eq 125 $rc "exit status" &&
	expect_grep "sensors: given twice (use one -p sensors:A,B,... listing everything)" err
'

test_expect_success FAKE_SYS 'sampler -p sensors: every sample holds 12.5 W' '
	in_fake_sys $SAMPLER -f 200 -p sensors:$CHIP/power1 -o prof -- sleep 0.2 &&
	$PROFILE dump prof >dump &&
	expect_grep "^channel name=$CHIP/power1 source=sensors unit=W scale=1 kind=power scope=sample" dump &&
	sed -n "s/^sample .* values=\([^ ]*\).*/\1/p" dump | sort -u >values &&
	expect_eq 12.5 "$(cat values)" "distinct sample values"
'

test_done
