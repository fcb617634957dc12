#!/bin/bash
# A PMU plug-in's device disappears in the middle of a run: the fake
# powercap tree is emptied and removed, or the fake SCPI meter is killed.
# Behaviour (docs/RELIABILITY.md): the run goes on, the target is not
# disturbed, the readings from then on are missing (NaN) and counted in the
# stats; at the end one warning says that readings were missing.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/recorder-lib.sh"
. "$ROOT/tests/pmu/pmu-lib.sh"
. "$ROOT/tests/hardening/hardening-lib.sh"

# readings TEXT: "GOOD NAN" counts of the first per-sample value.
readings() {
	echo "$(($(grep -c "^sample " "$1") - $(sample_nan "$1" 1))) $(sample_nan "$1" 1)"
}

# good_after_nan TEXT: readings of the first value after the first NaN.
good_after_nan() {
	sed -n "s/^sample .* values=\([^ ,]*\).*/\1/p" "$1" |
	awk '$1 == "nan" { gone = 1; next } gone { n++ } END { print n + 0 }'
}

# The device goes 0.3 s after the target started (it says so in a file);
# the target waits until it has gone (at most 20 s), then runs 1.5 s:
# readings before and after, however late the test gets the CPU, at any
# rate the machine allows (MIN_HZ, recorder-lib.sh).
TARGET='echo >started; i=0
	while [ ! -e gone ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i + 1)); done
	exec "$0" 1.5'

# The meter is started at the top level, so that test_atexit can stop it.
$PY "$FAKES/fake-scpi.py" --tcp meter.port --value 7 >>fakes.out 2>&1 &
METER=$!
FAKE_PIDS=$METER
wait_for_file meter.port >/dev/null

test_expect_success 'rapl: the powercap tree vanishes mid-run; the run goes on with readings missing' '
	$PY "$FAKES/fake-powercap.py" make tree
	rm -f started gone &&
	(wait_for_file started >/dev/null && sleep 0.3; : >tree/class/powercap/intel-rapl:0/energy_uj; rm -rf tree; : >gone) &
	SAMPLER_SYSFS_ROOT=$TRASH/tree "$SAMPLER" -f 100 -p rapl -o rapl -- sh -c "$TARGET" "$HW/hw-writer" >rapl.out 2>rapl.err &&
	expect_grep "^finished 1 threads after 1.5 s" rapl.out &&
	[ ! -d tree ] &&
	dump rapl &&
	read good nan <<<"$(readings rapl.txt)" &&
	expect_ge "$(min_samples 0.3)" "$good" "readings before the removal" &&
	expect_ge "$(min_samples 1)" "$nan" "readings missing after it" &&
	expect_eq "$nan" "$(stat_of rapl.txt missing)" "stats missing" &&
	expect_eq 0 "$(good_after_nan rapl.txt)" "readings after the first missing one"
'

test_expect_success 'rapl: the missing readings are reported in one warning' '
	expect_eq 1 "$(but_rate_warning rapl.err | wc -l)" "stderr lines (but the rate warning)" &&
	expect_grep "^sampler: warning: .*rapl.*missing\|^sampler: warning: .*missing.*rapl" rapl.err
'

test_expect_success 'scpi: the meter dies mid-run; the run goes on with readings missing' '
	port=$(cat meter.port)
	rm -f started gone &&
	(wait_for_file started >/dev/null && sleep 0.3; kill '"$METER"'; : >gone) &
	"$SAMPLER" -f 100 -p scpi:tcp://127.0.0.1:$port -o scpi -- sh -c "$TARGET" "$HW/hw-writer" >scpi.out 2>scpi.err &&
	expect_grep "^finished 1 threads after 1.5 s" scpi.out &&
	dump scpi &&
	read good nan <<<"$(readings scpi.txt)" &&
	expect_ge "$(min_samples 0.3)" "$good" "readings while the meter lived" &&
	expect_ge "$(min_samples 1)" "$nan" "readings missing after it died" &&
	expect_eq "$nan" "$(stat_of scpi.txt missing)" "stats missing" &&
	expect_eq 7 "$(sed -n "s/^sample .* values=\([^ ,]*\).*/\1/p" scpi.txt | grep -v nan | sort -u)" "readings"
'

test_expect_success 'scpi: the missing readings are reported in one warning' '
	expect_eq 1 "$(but_rate_warning scpi.err | wc -l)" "stderr lines (but the rate warning)" &&
	expect_grep "^sampler: warning: .*scpi.*missing\|^sampler: warning: .*missing.*scpi" scpi.err
'

test_done
