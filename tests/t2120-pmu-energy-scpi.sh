#!/bin/sh
# Energy per function from an external power meter against the truth
# (docs/ENERGY.md): examples/phases (alpha 13 W, beta 28 W, gamma 8 W,
# phases of 5 to 15 ms) drives a fake SCPI meter that updates its reading
# at 500 Hz with the mean power of its last period as it was 10 ms earlier;
# the scpi plug-in reads it at every sample.  10 runs of 1.2 s at 1 kHz.
# The meter's delay is not given: the estimator fits it on the profile
# (about 10 ms: a reading is the mean of the meter's period before its
# update, placed at the plug-in's query, sent right after the previous
# sample).  A power reading stands for the meter's period, and the updates
# a long interval hid are filled by the fitted powers (docs/ENERGY.md,
# step 5).  10 runs a set, since examples/phases keeps a work clock
# (docs/notes/accuracy-notebook.md): quiet 0.75% mean absolute error,
# 2.91% worst, 100%
# coverage; under two busy loops, five sets (two on the sanitizer build),
# 1.79-7.26% / 4.68-28.3% / 100%: under load many of the meter's updates
# reach no reading, and the fitted powers fill them.  Before the work
# clock a fresh clone's make check under two busy loops had 13.6% / 45.0%
# / 97.5%, and a heavier load (the sampler at 300-500 Hz) 11.1% / 30.6% /
# 80%; before step 5's rule two busy loops gave 14-18% mean, every
# function low.  The bar was mean <= 15%, worst <= 60%, coverage >= 80%
# before the update interval needed 5 readings without an update; now 8%,
# 30%, 85% (below); the end rule (63-74% mean,
# 154-183% worst, 22-38% coverage) fails it.
#
# The same meter integrates too (MEAS:ENER?, the energy it counted until
# its latest update, same clock and delay): read with unit=J, each sample
# gets the energy since the previous count, so no update is lost between
# samples (under two busy loops 10-65% of the updates reached no power
# reading; the counts add up to 99.5-100.1% of the energy drawn).  Its
# delay is fitted too.  10 runs a set, with the work clock: quiet
# 0.68% / 2.74% / 100%; under two busy loops 0.97-2.39% / 3.02-6.72% / 100%
# (five sets, two on the sanitizer build); before it 3.12-3.42% /
# 6.10-13.1% / 100% under the same or heavier load.  So: mean <= 4%, worst
# <= 15%, coverage >= 90%.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/pmu/pmu-lib.sh"
. "$ROOT/tests/pmu/energy-lib.sh"
test_have_prereq NUMPY || { skip_all="missing $test_missing_"; test_done; }
start_scpi state
SCPI=scpi:tcp://127.0.0.1:$(cat scpi.port),timeout_ms=200

# A power meter updating every 2 ms, made by hand: 100 samples 1 ms apart
# whose reading changes every other sample (so the update is measured as
# 2 ms), then 50 samples 6 ms apart, each interval holding 3 updates of
# which its reading shows the last.  Missed: 50 x 2 of the 100 x 0.5 +
# 50 x 3 updates, 50%, and sampler-report --accuracy says to poll.
test_expect_success 'sampler-report --accuracy: the share of a power meter'"'"'s updates no reading saw' '
	{
	echo "host hostname=t os_release=6.1 os_version=1 arch=x86_64 cpu_desc=c cpu_id=i nr_cpus_online=2 nr_cpus_avail=2 total_mem_kb=1 sampler_version=0.1.0 cmdline=t realtime_ns=1700000000000000000 monotonic_ns=1000000000 start_ns=1000000000 target_hz=1000"
	echo "channel name=meter source=test unit=W scale=1 kind=power scope=sample"
	echo "process pid=100 ppid=0 time=1000000000"
	echo "thread tid=100 pid=100 time=1000000000"
	t=1000000000
	for j in $(seq 150); do
		if [ $j -le 100 ]; then
			t=$((t + 1000000)) v=$((10 + 2 * ((j - 1) / 2 % 2)))
		else
			t=$((t + 6000000)) v=$((10 + 2 * ((j + 1) % 2)))
		fi
		echo "sample time=$t nthreads=1 values=$v"
		echo "ts tid=100 pid=100 pc=0xa cpu=$((t - 1000000000))"
	done
	echo "exit tid=100 pid=100 time=$t whole=1"
	echo "stats wall=$((t - 1000000000)) latency=0 samples=150 thread_samples=150 missed=0 missing=0 signals=0 threads=1 processes=1 exit=0 totals=1650"
	} >missed.txt &&
	$PROFILE build missed.prof <missed.txt &&
	$EXPORT --format csv -o missed.csv missed.prof &&
	grep "^# meter" missed.csv &&
	expect_near 2 "$(sed -n "s/^# meter .* update_ms=\([^ ]*\) .*/\1/p" missed.csv)" 0.01 "update (ms)" &&
	expect_near 0.5 "$(sed -n "s/^# meter .* missed=\([^ ]*\).*/\1/p" missed.csv)" 0.001 "share of the updates missed" &&
	$PY "$ROOT/scripts/sampler-report" --accuracy missed.prof >acc.missed &&
	cat acc.missed &&
	expect_grep "^meter .* 50\.0\$" acc.missed &&
	expect_grep "^# missed: 50.0% of meter.s updates reached no reading .* poll the meter (-p scpi:...,poll_hz=N" acc.missed
'

# A handful of readings without an update measure no update interval
# (energy/metermodel.c, MIN_NO_UPDATE): 190 intervals of 2 ms and 10 of
# 0.1 ms, every reading changed but 3 of the short ones.  With one such
# reading enough (an earlier rule) the interval came out 0.14 ms (10 x (1 - 0.1/U) = 3) and 93% of
# the updates were taken as missed; a live run under load had the same
# (3 of 1418 readings, 0.10 ms, the run's energy half the truth).  Now
# not measured: each reading holds since the one before.
test_expect_success 'a few readings without an update: no update interval measured on them' '
	{
	echo "host hostname=t os_release=6.1 os_version=1 arch=x86_64 cpu_desc=c cpu_id=i nr_cpus_online=2 nr_cpus_avail=2 total_mem_kb=1 sampler_version=0.1.0 cmdline=t realtime_ns=1700000000000000000 monotonic_ns=1000000000 start_ns=1000000000 target_hz=1000"
	echo "channel name=meter source=test unit=W scale=1 kind=power scope=sample"
	echo "process pid=100 ppid=0 time=1000000000"
	echo "thread tid=100 pid=100 time=1000000000"
	t=1000000000 v=10
	for j in $(seq 200); do
		if [ $((j % 20)) -eq 0 ]; then
			t=$((t + 100000))
		else
			t=$((t + 2000000))
		fi
		case $j in 20|40|60) ;; *) v=$((22 - v)) ;; esac
		echo "sample time=$t nthreads=1 values=$v"
		echo "ts tid=100 pid=100 pc=0xa cpu=$((t - 1000000000))"
	done
	echo "exit tid=100 pid=100 time=$t whole=1"
	echo "stats wall=$((t - 1000000000)) latency=0 samples=200 thread_samples=200 missed=0 missing=0 signals=0 threads=1 processes=1 exit=0 totals=2200"
	} >few.txt &&
	$PROFILE build few.prof <few.txt &&
	$EXPORT --format csv -o few.csv few.prof &&
	grep "^# meter" few.csv &&
	expect_grep "^# meter .* update_ms=0 measured=0 .* no_update=3 .* missed=0 " few.csv
'

# Under load (the machine shared with other builds and tests), four sets of 10 runs: at load 5-15 1.57% / 9.16% / 100%, 1.37% /
# 6.31% / 100%, 1.41% / 8.08% / 100%; at load 17-20 4.25% / 18.9% / 93.3%
# (the end rule 69.5% / 178% / 22.5%, 73.1% / 188% / 30%, 16.5% / 44.2% /
# 56.7%).  The issue's 3% and 10% hold at the lighter loads only, and 27
# Nov had up to 7.26% / 28.3% on the sanitizer build.  So mean <= 8%,
# worst <= 30%, coverage >= 85%.
test_expect_success 'trapezoid rule, delay fitted: error <= 8% (worst 30%), coverage >= 85%' '
	record s1k 1000 10 50 $SCPI &&
	$CHECK --channel scpi --rule trapezoid $(runs s1k) >new &&
	$PY "$ROOT/scripts/sampler-report" --accuracy s1k.1.prof >acc &&
	cat acc &&
	bar new 8 30 85
'

test_expect_success 'the end rule fails the same check on the same profiles' '
	$CHECK --channel scpi --rule end $(runs s1k) >old &&
	cat old &&
	misses_bar old 8 30 85
'

# counts_add_up NAME: each run's energy counts against the energy its
# phases drew (the truth), as ratios in NAME.ratio
counts_add_up() {
	for i in $(seq $RUNS); do
		$PROFILE dump $1.$i.prof >$1.$i.dump &&
		expect_grep "^channel name=scpi source=scpi unit=J scale=1 kind=energy scope=sample" $1.$i.dump &&
		count_ratio $1.$i.dump $1.$i.truth >>$1.ratio || return 1
	done &&
	cat $1.ratio &&
	# the meter lags 10 ms: the last 10 ms of rest (5 W) are not counted yet
	expect_ge 0.98 "$(sort -n $1.ratio | head -1)" "lowest ratio of the counts to the energy drawn" &&
	expect_le 1.01 "$(sort -n $1.ratio | tail -1)" "highest ratio"
}

test_expect_success 'an integrating meter (unit=J): the counts add up to the energy drawn' '
	record e1k 1000 10 50 $SCPI,unit=J &&
	counts_add_up e1k
'

test_expect_success 'an integrating meter (unit=J), delay fitted: error <= 4% (worst 15%), coverage >= 90%' '
	$CHECK --channel scpi --rule trapezoid $(runs e1k) >energy &&
	bar energy 4 15 90
'

# poll_hz=: the plug-in's thread polls the power meter twice per update
# and counts each update's power for the time since the one before, so the
# channel counts energy as unit=J does and no update is lost to a long
# interval.  Quiet, 10 runs, 0.64% / 1.90% / 100%; at load 5 (two
# busy loops and a make check), 20 runs, 1.19% / 4.71% / 100%, the counts
# 99.3-100.0% of the energy drawn.  Read once per sample under two busy
# loops the same meter gave 3.79% / 10.7%, counting itself (unit=J)
# 2.06% / 6.28%.  (Holding each reading over the time after it, a first
# try, leaned 2.2% from beta to gamma even when quiet; counting each
# update as a period of the meter, a second, counted a loaded run 1.7%
# over when the period came out long.)  So the RAPL bar: mean <= 3%,
# worst <= 7%, coverage >= 90%.
test_expect_success 'a power meter polled (poll_hz=1000): the counts add up to the energy drawn' '
	record p1k 1000 10 50 $SCPI,poll_hz=1000 &&
	counts_add_up p1k
'

test_expect_success 'a power meter polled (poll_hz=1000), delay fitted: error <= 3% (worst 7%), coverage >= 90%' '
	$CHECK --channel scpi --rule trapezoid $(runs p1k) >polled &&
	bar polled 3 7 90
'

# The same meter's timing declared where it is named (update_ms=2,
# delay_ms=10, from its manual): the profile keeps the delay plus half a
# poll period (an update is counted when a poll sees it), and the
# estimate takes them instead of measuring and fitting.  The fit does
# better: the poller keeps its phase against the meter's clock all run,
# so a run's lag is its own (the fitted delays 10.4-10.6 ms).  Quiet,
# 10 runs: declared 10 ms as given 3.74% / 13.9%, plus half a
# poll 1.92% / 6.79%; fitted on the same kind of runs 0.90% / 6.29%.
# So the unit=J bar: mean <= 4%, worst <= 15%, coverage >= 90%.
test_expect_success 'polled, update_ms= and delay_ms= declared: the estimate takes them, error <= 4% (worst 15%)' '
	record pd 1000 10 50 $SCPI,poll_hz=1000,update_ms=2,delay_ms=10 &&
	$EXPORT --format csv -o pd.csv pd.1.prof &&
	expect_grep "^# meter index=0 rule=trapezoid update_ms=2 measured=0 delay_ms=10.5 delay_measured=0 " pd.csv &&
	$CHECK --channel scpi --rule trapezoid $(runs pd) >declared &&
	bar declared 4 15 90
'

test_done
