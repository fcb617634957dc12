#!/bin/sh
# Energy per function from an external power meter against the truth
# (docs/ACCURACY.md): examples/phases (alpha 13 W, beta 28 W, gamma 8 W,
# phases of 5 to 15 ms) drives a fake SCPI meter that updates its reading
# at 500 Hz with the mean power of its last period as it was 10 ms earlier;
# the scpi plug-in reads it at every sample.  10 runs of 1.2 s at 1 kHz.
# The meter's delay is not given: the estimator fits it on the profile
# (about 13 ms: the meter's 10, half its 2 ms period, and the plug-in's
# query sent one sample early).  The bar is set to hold on a loaded
# machine: quiet, 10 runs measured 2.7% mean absolute error, 10.7% worst,
# 100% coverage; with two busy loops competing (the sampler at 420-810 Hz,
# the target held stopped 38-64% of the time) 13.9%, 67% and 83% (one run
# in ten fitted the delay at 5.2 ms), and again 6.4%, 21.5% and 73%: beta
# lost 10-22% in six runs of ten, a bias the intervals do not cover
# (docs/ACCURACY.md; issue 22 keeps it open).  So: mean <= 20%, worst
# <= 100%, coverage >= 50%; the end rule (54.6-72.6% mean, 147-214% worst,
# 3-22% coverage) fails it.
#
# The same meter integrates too (MEAS:ENER?, the energy it counted until
# its latest update, same clock and delay): read with unit=J, each sample
# gets the energy since the previous count, so no update is lost between
# samples, where a power reading held over a long interval misses some
# (under two busy loops 10-65% of the updates reached no reading, and the
# readings summed to 68-179% of the meter's energy, run by run; the counts
# to 99.5-100.1%).  Its delay is given, as from the meter's manual (the
# estimator fits a delay for power channels only).  10 runs each, 27 Nov,
# on a 2-CPU VM other engineers also used: quiet (or nearly), 1.10-2.26%
# mean absolute error, 3.62-7.72% worst, 100% coverage (4 sets); with two
# busy loops competing (the sampler at 235-820 Hz) 1.12-3.16%, 4.48-13.06%,
# 100% (6 sets: the issue's bar, 2% / 5%, held in three, not under the
# heaviest load).  The power readings of the same runs: 2.5-9.0%, 5.6-27%,
# 90-100% quiet; 9.0-25%, 30-158%, 80-100% loaded.  So: mean <= 5%, worst
# <= 20%, coverage >= 90%, which every loaded power set failed.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/pmu/pmu-lib.sh"
. "$ROOT/tests/pmu/energy-lib.sh"
test_have_prereq NUMPY || { skip_all="missing $test_missing_"; test_done; }
$METER state state
$RT $METER scpi scpi.port state --rate-hz 500 --delay-ms 10 >>fakes.out 2>&1 &
FAKE_PIDS="$FAKE_PIDS $!"
for i in $(seq 100); do
	[ -s scpi.port ] && break
	sleep 0.05
done
SCPI=scpi:tcp://127.0.0.1:$(cat scpi.port),timeout_ms=200

test_expect_success 'trapezoid rule, delay fitted: error <= 20% (worst 100%), coverage >= 50%' '
	record s1k 1000 10 50 $SCPI &&
	$CHECK --channel scpi --rule trapezoid $(runs s1k) >new &&
	$PY "$ROOT/scripts/sampler-report" --accuracy s1k.1.prof >acc &&
	cat acc &&
	bar new 20 100 50
'

test_expect_success 'the end rule fails the same check on the same profiles' '
	$CHECK --channel scpi --rule end $(runs s1k) >old &&
	cat old &&
	! passes old 20 100 50
'

test_expect_success 'an integrating meter (unit=J): the counts add up to the energy drawn' '
	record e1k 1000 10 50 $SCPI,unit=J &&
	for i in $(seq $RUNS); do
		$PROFILE dump e1k.$i.prof >e1k.$i.dump &&
		expect_grep "^channel name=scpi source=scpi unit=J scale=1 kind=energy scope=sample" e1k.$i.dump &&
		awk -v got=$(sample_sum e1k.$i.dump 1) "{ for (i = 2; i <= NF; i++) { split(\$i, kv, \"=\"); t += kv[2] } }
			END { printf \"%.4f\\n\", got / t }" e1k.$i.truth >>ratio || return 1
	done &&
	cat ratio &&
	# the meter lags 10 ms: the last 10 ms of rest (5 W) are not counted yet
	expect_ge 0.98 "$(sort -n ratio | head -1)" "lowest ratio of the counts to the energy drawn" &&
	expect_le 1.01 "$(sort -n ratio | tail -1)" "highest ratio"
'

test_expect_success 'an integrating meter (unit=J), its delay given: error <= 5% (worst 20%), coverage >= 90%' '
	$CHECK --channel scpi --rule trapezoid --report-arg=--meter-delay --report-arg=scpi=10 \
		$(runs e1k) >energy &&
	bar energy 5 20 90
'

test_done
