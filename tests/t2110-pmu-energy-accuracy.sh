#!/bin/sh
# Energy per function against the truth (docs/ENERGY.md).  examples/phases
# runs alpha (13 W), beta (28 W) and gamma (8 W) in turn (a short delta,
# 10 W, after every twelfth gamma), phases of 2.5 to 7.5 ms, and drives a
# fake RAPL domain that updates every 1 ms (+-0.1 ms) with the energy its
# phases drew; the workload prints each function's true energy.  10 runs
# of 3 s each (PHASE_SECONDS; the hand-made and simulated tests and the
# --accuracy ones 1.2 s): the report's energy per function against the
# truth, and whether its 95% interval of the energy share holds the true
# share.  Before them, the rule alone on profiles simulated with an exact
# meter (tests/pmu/phase-sim.py).
#
# The bar: intervals covering the truth in >= 90% of the (function, run)
# pairs, mean absolute error <= 3%, worst <= 7% at 1 kHz (10% on call
# paths, below); 10 kHz (faster than the meter) no worse than 1 kHz: the same bar,
# and its mean error at most a point above 1 kHz's.  (A 1%/3% bar for 10
# kHz, from 0.14-0.21%/0.50-0.73% measured here, failed once in CI on the
# sanitizer build, whose sampler may reach far less than 10 kHz on a
# slower VM; its figures were not kept.)  The issue's 2% and
# 5% hold in make bench (quiet: 0.83%, 2.59%); a loaded machine adds a
# lean of about a point that longer runs do not shrink (3 s runs under
# load below: 1.19-1.88% mean; 1.2 s quiet: 1.31%), so the bar keeps that
# margin.  A
# function's sampling error, where its phases began and ended, shrinks as
# 1/sqrt(run length): 3 s runs, where 1.2 s ones needed 12% worst.
# Measured on this 2-CPU VM with 3 s runs, at load 4-15 (a
# make check with two busy loops and a second test run beside it), three
# times: 1.20%, 4.81%; 1.19%, 3.18%; 1.88%, 4.65% (-g 1.17%, 3.31%; 1.56%,
# 4.44%; 0.85%, 3.28%; 10 kHz 0.18%, 0.73%; 0.21%, 0.63%; 0.14%, 0.50%);
# 97.5-100% covered.  (1.2 s runs the same day: quiet 1.31%, 4.38%;
# under two busy loops up to 1.46%, 6.09% on the sanitizer build.)  The
# old rule (--energy-rule end) must fail the bar on the same profiles
# (18-20% mean, 47-56% worst): its error is a bias, each function losing
# energy to the one after it.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/pmu/pmu-lib.sh"
. "$ROOT/tests/pmu/energy-lib.sh"
test_have_prereq NUMPY || { skip_all="missing $test_missing_"; test_done; }

# The rule on a profile made by hand: one thread at PC 0xa for 10 samples
# 1 ms apart (13 uJ per interval), then at 0xb (28 uJ), the change half-way
# through interval 11 (20.5 uJ).  The truth: 0xa 136.5 uJ, 0xb 266; the end
# rule gives 0xa 130 and 0xb 272.5.
test_expect_success 'a change of code mid-interval: each side gets its own energy' '
	{
	echo "host hostname=t os_release=6.1 os_version=1 arch=x86_64 cpu_desc=c cpu_id=i nr_cpus_online=2 nr_cpus_avail=2 total_mem_kb=1 sampler_version=0.1.0 cmdline=t realtime_ns=1700000000000000000 monotonic_ns=1000000000 start_ns=1000000000 target_hz=1000"
	echo "channel name=meter source=test unit=uJ scale=1e-06 kind=energy scope=sample"
	echo "process pid=100 ppid=0 time=1000000000"
	echo "thread tid=100 pid=100 time=1000000000"
	for j in $(seq 20); do
		v=13 pc=0xa
		[ $j -eq 11 ] && v=20.5
		[ $j -ge 11 ] && pc=0xb
		[ $j -gt 11 ] && v=28
		echo "sample time=$((1000000000 + j * 1000000)) nthreads=1 values=$v"
		echo "ts tid=100 pid=100 pc=$pc cpu=$((j * 1000000))"
	done
	echo "exit tid=100 pid=100 time=1021000000 whole=1"
	echo "stats wall=21000000 latency=0 samples=20 thread_samples=20 missed=0 missing=0 signals=0 threads=1 processes=1 exit=0 totals=402.5"
	} >hand.txt &&
	$PROFILE build hand.prof <hand.txt &&
	for rule in trapezoid end; do
		$EXPORT --format csv --energy-rule $rule -o hand.$rule.csv hand.prof &&
		awk -F, "/^[0-9]/ && \$4 == \"sample\" { e[\$5] += \$8 } END { printf \"a=%.2f b=%.2f\\n\", e[\"0xa\"], e[\"0xb\"] }" hand.$rule.csv >hand.$rule || return 1
	done &&
	cat hand.trapezoid hand.end &&
	expect_near 136.5 "$(sed "s/a=\([^ ]*\) .*/\1/" hand.trapezoid)" 0.3 "0xa, trapezoid (uJ)" &&
	expect_near 266 "$(sed "s/.* b=//" hand.trapezoid)" 0.3 "0xb, trapezoid (uJ)" &&
	expect_near 130 "$(sed "s/a=\([^ ]*\) .*/\1/" hand.end)" 0.01 "0xa, end rule (uJ)" &&
	expect_near 272.5 "$(sed "s/.* b=//" hand.end)" 0.01 "0xb, end rule (uJ)" &&
	grep "^# meter" hand.trapezoid.csv >meter &&
	expect_grep "update_ms=0 measured=0 delay_ms=0 delay_measured=0 intervals=20 no_update=0 cells=energy" meter &&
	$PY "$ROOT/scripts/sampler-report" --accuracy hand.prof >acc &&
	cat acc &&
	expect_grep "^meter  *0.000  *assumed  *0.000  *given/0  *20  *0.0 " acc
'

# The model's own uncertainty on the same profile (docs/ENERGY.md): the
# change point in interval 11 is unknown; the rule gave its sides
# e_a = 6.682 and e_b = 13.818 uJ, so the energy it moved between 0xa and
# 0xb has the variance 4/3 (e_a e_b / (e_a + e_b))^2 = 27.05 uJ^2, in the
# var cells of the rows on both sides of it (samples 10 and 11), 0 in the
# others.  The 95% interval of 0xa's share (33.958%) adds it to the
# ratio estimator's: half-width 1.96 sqrt(sum_a e^2 (1-s)^2 + sum_b e^2
# s^2 + 27.05) / 402.5 = 20.039 points (19.878 without the model's term).
test_expect_success 'the model variance of a change of code, and the share interval it widens' '
	grep "^time_ns" hand.trapezoid.csv >header &&
	expect_grep "^time_ns,pid,tid,kind,pc,cpu_delta_ns,wall_delta_ns,meter,meter:var$" header &&
	awk -F, "/^[0-9]/ && \$4 == \"sample\" { if (\$9 > 0) printf \"%d:%.2f \", \$1 / 1000000, \$9 } END { print \"\" }" \
		hand.trapezoid.csv >var &&
	expect_eq "10:27.05 11:27.05 " "$(cat var)" "the rows holding the model variance (ms:uJ^2)" &&
	$PY "$ROOT/scripts/sampler-report" --addresses --json --no-cache hand.trapezoid.csv >hand.json &&
	$PY -c "import json, sys
for r in json.load(open(\"hand.json\"))[\"rows\"]:
	if r[\"name\"] == \"0xa\":
		print(\"%.3f %.3f %.3f\" % (r[\"meter_share\"], r[\"meter_share\"] - r[\"meter_share_lo\"], r[\"meter_share_hi\"] - r[\"meter_share\"]))" >ci &&
	cat ci &&
	expect_near 33.958 "$(cut -d" " -f1 ci)" 0.002 "share of 0xa (%)" &&
	expect_near 20.039 "$(cut -d" " -f2 ci)" 0.003 "half-width below (points)" &&
	expect_near 20.039 "$(cut -d" " -f3 ci)" 0.003 "half-width above (points)"
'

# The estimator alone: profiles simulated with an exact meter
# (tests/pmu/phase-sim.py: a 1 ms RAPL counter, the sampler at 1 kHz, its
# hold), so that no fake, sampler or load stands between the rule and the
# truth.  simulate [--trapezoid] NAME SEEDS [phase-sim.py options]: per
# rule (both, or the trapezoid's only), NAME.RULE holds the signed errors
# of every (function, seed) (tests/pmu/sim-errors.py), and NAME.RULE.meter
# the estimate's meter of every seed ("update_ms=U delay_ms=D").
simulate() {
	rules="trapezoid end"
	[ "$1" = --trapezoid ] && rules=trapezoid && shift
	name=$1 seeds=$2
	shift 2
	for s in $(seq $seeds); do
		$PY "$ROOT/tests/pmu/phase-sim.py" --seed $s "$@" $name.$s.truth >$name.$s.txt &&
		$PROFILE build $name.$s.prof <$name.$s.txt &&
		for rule in $rules; do
			$PY "$ROOT/tests/pmu/sim-errors.py" --meter $name.$s.$rule.meter $name.$s.truth \
				$name.$s.prof --energy-rule $rule >>$name.$rule &&
			cat $name.$s.$rule.meter >>$name.$rule.meter || return 1
		done || return 1
	done
}

# meter_field NAME FIELD: the trapezoid estimate's FIELD of each seed;
# within LO HI FILE: how many of FILE's numbers lie in [LO, HI]
meter_field() {
	sed -n "s/.*$2=\([0-9.]*\).*/\1/p" $1.trapezoid.meter
}
within() {
	awk -v lo=$1 -v hi=$2 '$1 >= lo && $1 <= hi { n++ } END { print n + 0 }' "$3"
}

# mean_signed FILE PC: the mean signed error (%) of a function
mean_signed() {
	awk -v pc=$2 '$1 == pc { s += $2; n++ } END { if (n) printf "%.3f\n", s / n }' "$1"
}

# Measured (10 seeds; mean signed alpha, beta, gamma): the rule
# +0.30%, -0.23%, +0.33%; with each update placed at its mean time and
# the halves cut in two (an earlier rule) +3.1%, -4.1%, +9.2%, the
# blur of docs/ENERGY.md, step 4; the end rule about -7%, -10%, +49%.
test_expect_success 'the estimator alone (simulated exact meter): no bias, the end rule biased' '
	simulate sim 10 &&
	simulate --trapezoid hold 6 --hold-us 500 &&
	for f in sim hold; do
		for pc in 0xa 0xb 0xc; do
			expect_near 0 "$(mean_signed $f.trapezoid $pc)" 1.5 "$f: mean signed error of $pc (%)" ||
			return 1
		done || return 1
	done &&
	expect_ge 20 "$(mean_signed sim.end 0xc)" "end rule: mean signed error of gamma (0xc, %)"
'

# mean_abs FILE / worst FILE: over every (function, seed)
mean_abs() {
	awk '{ s += $2 < 0 ? -$2 : $2; n++ } END { if (n) printf "%.3f\n", s / n }' "$1"
}
worst() {
	awk '{ a = $2 < 0 ? -$2 : $2; if (a > w) w = a } END { printf "%.3f\n", w }' "$1"
}

# The issue's bar (2% mean, 5% worst) on the estimator alone, over runs of
# 3 s: a function's error is mostly where its phases began and ended,
# unknown within a sample interval, so it shrinks as 1/sqrt(run length).
# 10 seeds: 3 s 0.56% mean, 2.26% worst (1.2 s: 1.01%, 6.32%,
# gamma, the least energy); the end rule 22.4%, 54.0%.
test_expect_success 'the estimator alone, 3 s runs: mean error <= 2%, worst <= 5%; not the end rule' '
	simulate long 10 --seconds 3 &&
	expect_le 2 "$(mean_abs long.trapezoid)" "mean absolute error (%)" &&
	expect_le 5 "$(worst long.trapezoid)" "worst absolute error (%)" &&
	expect_ge 5 "$(worst long.end)" "end rule: worst absolute error (%)"
'

# Phases in a fixed order, of fixed lengths (issue 42: 13 W for 8 ms,
# 28 W for 20 ms, 8 W for 12 ms, again and again; rising, 13 -> 28 -> 8,
# and falling, 8 -> 28 -> 13), on RAPL-like counters that update every
# 1 ms and every 0.2 ms, at 1 kHz: where a lean at a change of power does
# not cancel out, as it does over phases of random lengths.  A counter
# faster than the sampling shows an update in every interval, and the
# estimate took it to update every 0.976 ms (RAPL's period): each update
# placed 0.4 ms too early, the code before a rise took the energy of the
# code after it.  8 seeds of 3 s each: rising 0.2 ms alpha
# +4.79% (mean 2.17%, worst 5.02%), falling 0.2 ms gamma +2.96%; the
# update interval now measured on the counts' scatter
# (energy/metermodel.c): 0.47%, 1.17% and 0.40%, 1.09%, no mean signed
# error above 1.1%; the 1 ms counter 0.49%, 2.23% and 0.70%, 1.83% both
# before and after.  Seeded: the same figures every run.
test_expect_success 'the estimator alone, fixed-order phases rising and falling, 1 ms and 0.2 ms counters: no lean' '
	for order in a:8,b:20,c:12 c:12,b:20,a:8; do
		for update in 1 0.2; do
			name=fixed.$(echo $order | cut -c1).$update &&
			simulate --trapezoid $name 8 --seconds 3 --cycle $order --update-ms $update &&
			echo "$name: mean $(mean_abs $name.trapezoid)%, worst $(worst $name.trapezoid)%," \
				"signed $(for pc in 0xa 0xb 0xc; do printf "%s %s " $pc $(mean_signed $name.trapezoid $pc); done)" &&
			expect_le 2 "$(mean_abs $name.trapezoid)" "$name: mean absolute error (%)" &&
			expect_le 5 "$(worst $name.trapezoid)" "$name: worst absolute error (%)" &&
			for pc in 0xa 0xb 0xc; do
				expect_near 0 "$(mean_signed $name.trapezoid $pc)" 2 "$name: mean signed error of $pc (%)" ||
				return 1
			done || return 1
		done || return 1
	done &&
	# the 0.2 ms counter'"'"'s update interval, measured (with its +-0.1 ms
	# jitter the updates a reading sees lag it by 0.11 ms on average)
	meter_field fixed.a.0.2 update_ms >fixed.updates &&
	echo "update intervals (ms):" $(cat fixed.updates) &&
	expect_eq 8 "$(within 0.15 0.3 fixed.updates)" "seeds whose 0.2 ms update interval came out 0.15-0.3 ms"
'

# Runs of a few intervals under a meter update (0.5 ms phases at 4 kHz on
# the 1 ms counter): the change points shaped by the runs' lengths
# (energy/runs.c, docs/ENERGY.md "Runs of a few intervals").  Without
# the shaping the fit pulled the powers together: 8 seeds, 4.30% mean,
# gamma +9.22% (every seed +6 to +13%); with it 2.26%, gamma +4.81%; with
# the fit run to its fixed point (below; an earlier rule stopped after 20
# rounds) 1.56%, gamma +2.35%.  The simulation is seeded: the same
# figures every run.
test_expect_success 'the estimator alone, 0.5 ms phases at 4 kHz: change points shaped, powers not pulled together' '
	simulate --trapezoid few 8 --phase-ms 0.5 --hz 4000 &&
	expect_le 2.5 "$(mean_abs few.trapezoid)" "mean absolute error (%)" &&
	expect_le 4 "$(mean_signed few.trapezoid 0xc)" "mean signed error of gamma (8 W, %)"
'

# A meter slower than the phases (a counter updated every 10 ms, as a
# 100 Hz power meter; 5 ms phases): each span holds two or three runs,
# and the fit's rounds each move the powers a little further from their
# common start.  Stopped after 20 rounds, as an earlier rule did, it was
# far from its fixed point: 8 seeds of 3 s, 2.90% mean, 10.86% worst,
# gamma +5.97% (every seed +3 to +11%).  Run to it: 1.45%, 4.07%, gamma
# +0.58%.  Seeded: the same figures every run.
test_expect_success 'the estimator alone, a 10 ms meter: the powers fitted to their fixed point' '
	simulate --trapezoid slow 8 --seconds 3 --update-ms 10 &&
	expect_le 2 "$(mean_abs slow.trapezoid)" "mean absolute error (%)" &&
	expect_le 5 "$(worst slow.trapezoid)" "worst absolute error (%)" &&
	for pc in 0xa 0xb 0xc; do
		expect_near 0 "$(mean_signed slow.trapezoid $pc)" 1.5 "mean signed error of $pc (%)" ||
		return 1
	done
'

# A long interval: the recorder got no CPU for 100 ms (a host's steal;
# the sanitizer build under `make check` once had one) while the thread
# ran some 18 phases.  Its ends tell what ran near them only, the middle
# goes to the profile's mix of code (energy/spread.c).  10
# seeds of 3 s: 1.06% mean, 3.23% worst; giving it all to the PCs at its
# ends, as an earlier rule did, 3.6% and 21.9% (gamma, seed 5).
test_expect_success 'the estimator alone, a 100 ms stall: its middle to the mix, not its ends' '
	simulate --trapezoid stall 10 --seconds 3 --stall-ms 100 &&
	expect_le 2 "$(mean_abs stall.trapezoid)" "mean absolute error (%)" &&
	expect_le 5 "$(worst stall.trapezoid)" "worst absolute error (%)" &&
	# and --accuracy says so: one interval of 101 ms, 96 ms of middle
	# (the interval less a function'"'"'s mean run of about 5 ms: its two
	# fades, half each)
	$PY "$ROOT/scripts/sampler-report" --accuracy stall.5.prof >acc.stall &&
	sed -n "s/^# long: \([0-9]*\) sampling interval, the longest \([0-9.]*\) ms.* of \([0-9.]*\) ms in the middle .*/\1 \2 \3/p" acc.stall >stall.long &&
	cat stall.long &&
	test "$(cut -d" " -f1 stall.long)" = 1 &&
	expect_near 101 "$(cut -d" " -f2 stall.long)" 1 "the longest interval (ms)" &&
	expect_near 96 "$(cut -d" " -f3 stall.long)" 2 "its middle (ms)" &&
	$PY "$ROOT/scripts/sampler-report" --accuracy long.5.prof >acc.nostall &&
	! grep "^# long:" acc.nostall
'

# A thread that waits for a CPU, on a meter that counts energy 10 ms late
# (the scpi plug-in's unit=J; tests/pmu/phase-sim.py --starve: it runs
# 3 ms, waits 4, and draws no power waiting).  An earlier
# model took an interval in which the profile's threads did not run as
# if they had run all of it, at their function's power: the residual was
# least at 8 ms, the delay search fitted 0.9-1.0 ms, and 8 seeds gave
# 81.96% mean, 193% worst.  Now (energy/spread.c,
# IDLE_WEIGHT) 0.82% and 2.70%, the delay 10 ms.  With samples missed too
# (the sampler starved as well, t2120 under two busy loops), updates that
# counted nothing look like none, and the meter's 2 ms update interval
# came out 4.4-4.5 ms; two readings that show two updates now bound it
# (energy/metermodel.c): 3.0 ms, at 1 kHz all the profile can tell.
# Seeded: the same figures every run.
test_expect_success 'the estimator alone, a thread that waits for a CPU: its delay and update interval' '
	simulate --trapezoid starved 8 --starve 3,4 --update-ms 2 --delay-ms 10 &&
	echo "starved: mean $(mean_abs starved.trapezoid)%, worst $(worst starved.trapezoid)%" &&
	expect_le 2 "$(mean_abs starved.trapezoid)" "mean absolute error (%)" &&
	expect_le 5 "$(worst starved.trapezoid)" "worst absolute error (%)" &&
	meter_field starved delay_ms >starved.delays &&
	echo "delays (ms):" $(cat starved.delays) &&
	expect_eq 8 "$(within 9.5 10.5 starved.delays)" "seeds whose delay came out 9.5-10.5 ms" &&
	simulate --trapezoid missed 4 --starve 2,6 --missed 0.5 --update-ms 2 --delay-ms 10 &&
	meter_field missed update_ms >missed.updates &&
	echo "update intervals (ms):" $(cat missed.updates) &&
	expect_eq 4 "$(within 1.9 3.2 missed.updates)" "seeds whose 2 ms update interval came out 1.9-3.2 ms"
'

# What the profile cannot tell, the meter's manual can.  A thread that
# runs 1 ms in every 4, its sampler missing 60% of the samples: the
# delay's residual has a second least one cycle short, and the search
# (the shortest delay within 20% of the best) fits 5.8-6.1 ms for 10 on 7
# of 8 seeds, 12.16% mean, 33.96% worst.  Declared where the meter is
# named (scpi's update_ms=2,delay_ms=10; phase-sim.py --declare writes
# them on the channel line as the recorder does), the estimate takes them:
# 1.24% and 3.21%.  Seeded: the same figures every run.
test_expect_success 'a meter whose timing its plug-in declared: no alias of the delay' '
	simulate --trapezoid declared 8 --starve 1,3 --missed 0.6 --update-ms 2 --delay-ms 10 --declare &&
	echo "declared: mean $(mean_abs declared.trapezoid)%, worst $(worst declared.trapezoid)%" &&
	expect_le 2 "$(mean_abs declared.trapezoid)" "mean absolute error (%)" &&
	expect_le 5 "$(worst declared.trapezoid)" "worst absolute error (%)" &&
	meter_field declared delay_ms >declared.delays &&
	meter_field declared update_ms >declared.updates &&
	expect_eq 8 "$(within 10 10 declared.delays)" "seeds whose delay is the declared 10 ms" &&
	expect_eq 8 "$(within 2 2 declared.updates)" "seeds whose update interval is the declared 2 ms"
'

# A power meter slower than the phases, late, and read once per sample:
# the issue's 100 Hz meter with a 20 ms delay (its mean power of 10 ms
# per update, each shown 0.09-0.23 ms late as the fake's loop does; the
# scpi plug-in's query goes right after the previous sample), 5 ms phases.
# Each update holds two phases, so the fit must tell their powers apart
# across many updates: sampling noise, which shrinks with the run's
# length.  The same meter: 24 seeds of 3 s 1.34% mean,
# 6.42% worst (gamma +1.9% on average); with the exact delay given and
# no lateness 1.53%, 6.86%, so not the delay's fit; a 2 ms meter 0.54%,
# 2.79%.  8 seeds of 10 s: 0.77%, 3.24%, the delays fitted 20.1-20.2 ms
# (the meter's 20 plus its lateness, 0.16 on average); 16 seeds 0.85%,
# 3.24%.  The fake's live runs agree (docs/notes/accuracy-notebook.md).
# Seeded: the same figures every run.
test_expect_success 'the estimator alone, a 100 Hz power meter 20 ms late, 10 s runs: error and delay' '
	simulate --trapezoid slowpower 8 --seconds 10 --update-ms 10 --delay-ms 20 --power --late-ms 0.09,0.23 &&
	echo "mean $(mean_abs slowpower.trapezoid)%, worst $(worst slowpower.trapezoid)%" &&
	expect_le 2 "$(mean_abs slowpower.trapezoid)" "mean absolute error (%)" &&
	expect_le 5 "$(worst slowpower.trapezoid)" "worst absolute error (%)" &&
	meter_field slowpower delay_ms >slowpower.delays &&
	echo "delays (ms):" $(cat slowpower.delays) &&
	expect_eq 8 "$(within 19.9 20.45 slowpower.delays)" "seeds whose delay came out 19.9-20.45 ms"
'

start_rapl state

test_expect_success 'trapezoid rule, 1 kHz, 1 ms RAPL: error <= 3% (worst 7%), coverage >= 90%' '
	(PHASE_SECONDS=3 && record r1k 1000 5 20 rapl) &&
	$CHECK --rule trapezoid $(runs r1k) >new &&
	bar new 3 7
'

test_expect_success 'the end rule fails the same check on the same profiles (its bias)' '
	$CHECK --rule end $(runs r1k) >old &&
	cat old &&
	misses_bar old 3 7 &&
	# and the bias has its sign: gamma (8 W, after beta at 28 W) gains
	expect_ge 3 "$(mean_error old gamma)" "mean error of gamma under the end rule (%)"
'

# --accuracy lists how long each function runs at a time: examples/phases'
# 5 ms phases are about 5 sampling intervals at 1 kHz (more when the
# sampler is slowed: a run counts samples), 0.5 ms ones under 2: named
# short, with the advice to sample faster (at 1 kHz they are 30% off).
test_expect_success 'sampler-report --accuracy: runs per function, those under 2 intervals named short' '
	$PY "$ROOT/scripts/sampler-report" --accuracy r1k.1.prof >runs5 &&
	cat runs5 &&
	for f in alpha beta gamma; do
		expect_ge 2.5 "$(awk -v f=$f "\$1 == f { print \$5 }" runs5)" "$f: mean run at 5 ms phases (intervals)" ||
		return 1
	done &&
	! grep -E "^(alpha|beta|gamma) .* short$" runs5 &&
	(RUNS=1 && record fast 1000 0.5 20 rapl) &&
	$PY "$ROOT/scripts/sampler-report" --accuracy fast.1.prof >runs05 &&
	cat runs05 &&
	for f in alpha beta gamma; do
		expect_le 2 "$(awk -v f=$f "\$1 == f { print \$5 }" runs05)" "$f: mean run at 0.5 ms phases (intervals)" &&
		expect_grep "^$f .* short" runs05 ||
		return 1
	done &&
	expect_grep "^# short: .*alpha.*record with a higher -f" runs05
'

# (the issue's point is "no worse than 1 kHz", held with a point of
# margin, beside an absolute bar: before the work clock the worst of 30
# pairs drifted with the load, 5.29% once at load 6)
test_expect_success 'faster than the meter: 10 kHz on a 1 ms RAPL: no worse than 1 kHz (its bar, its mean + 1 point)' '
	(PHASE_SECONDS=3 && record r10k 10000 5 20 rapl) &&
	$CHECK --rule trapezoid $(runs r10k) >fast &&
	bar fast 3 7 &&
	expect_le "$(awk -v m="$(field new summary mean_abs_err)" "BEGIN { print m + 1 }")" \
		"$(field fast summary mean_abs_err)" "mean error at 10 kHz (%), 1 kHz + 1 point"
'

# --accuracy names coarse the functions whose runs are shorter than the
# meter's update (and under 10 intervals): a reading then covers several
# runs and the fitted powers are pulled together (docs/ENERGY.md).  5 ms
# phases at 10 kHz are not; 0.5 ms phases at 10 kHz are, as long as their
# runs last under the update in wall time: on a loaded machine the
# workload waits for a CPU within its phases, which then last longer than
# a meter update (1.2-1.4 ms under two busy loops), and are not.
test_expect_success 'sampler-report --accuracy: runs shorter than the meter update named coarse' '
	$PY "$ROOT/scripts/sampler-report" --accuracy r10k.1.prof >coarse5 &&
	cat coarse5 &&
	! grep -E "^(alpha|beta|gamma) .* (short|coarse)" coarse5 &&
	(RUNS=1 && record fast10k 10000 0.5 20 rapl) &&
	$PY "$ROOT/scripts/sampler-report" --accuracy fast10k.1.prof >coarse05 &&
	cat coarse05 &&
	update=$(awk "\$1 == \"package-0\" { print \$2 }" coarse05) &&
	for f in alpha beta gamma; do
		line=$(grep "^$f " coarse05) &&
		run_ms=$(echo "$line" | awk "{ print \$6 }") &&
		if awk -v r=$run_ms -v u=$update "BEGIN { exit !(r < u) }"; then
			expect_grep "^$f .* coarse" coarse05 &&
			expect_grep "^# coarse: .*$f.*record with a higher -f or a faster meter" coarse05
		else
			echo "$f: runs of $run_ms ms in wall time (the machine is loaded), no shorter than the update ($update ms)" &&
			! grep "^$f .* coarse" coarse05
		fi || return 1
	done
'

# With -g the sampler unwinds every stack and, under load, takes fewer
# samples than without: the worst of 40 pairs is the noisier for it.  A
# loaded fresh clone (two busy loops) had gamma +7.98% in one run, inside
# its 95% interval (mean 1.47%, every pair covered), where the three
# loaded runs before had 3.3-4.4%.  So the worst bar is 10% here.
test_expect_success 'call paths (-g, --tree): mean <= 3% (worst 10%), coverage >= 90% for the paths main;alpha ...' '
	(PHASE_SECONDS=3 && record rg 1000 5 20 rapl -g) &&
	$CHECK --tree --rule trapezoid $(runs rg) >tree &&
	bar tree 3 10
'

test_done
