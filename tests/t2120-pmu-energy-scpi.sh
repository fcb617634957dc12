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

test_done
