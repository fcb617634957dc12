#!/bin/sh
# scpi poll_hz='s count (pmu/powercount.h) against a simulated meter
# (tests/pmu/powercount-check.c): t2120's phases, a meter updating every
# 2 ms 10 ms late, polled every 1.0-1.2 ms, the count taken every ms;
# 40 seeded runs of 1.2 s, so the figures are the same every time.
#
# A poller held back (it got no CPU) misses the meter's updates.  Its next
# reading counted over all the time missed gave one phase's power to the
# phases it missed: with three holds of 50-100 ms per run, 4.32% mean
# error of the totals and 9.88% worst (one hold: 2.55% / 6.02%; t2120's
# live count once came out 7.4% over).  Counting the reading for its
# period, and the time no poll saw at the mean power before it: 1.04% /
# 3.40% (one hold: 0.74% / 1.87%).  Without holds 0.47% / 1.18%: the
# edges of the run.
#
# Live, the poller held back by stopping the sampler (SIGSTOP) for 100 ms:
# it says so once, no sample lacks its count (the hold is no lost meter),
# and the count adds up to the energy drawn within 15%: measured 0.987
# quiet, 0.942 under two busy loops (the target's share of the CPUs moves
# around the hold, and the simulation above is the measure of the rule).
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/pmu/pmu-lib.sh"
. "$ROOT/tests/pmu/energy-lib.sh"

CHECK=$BUILD/tests/powercount-check

mean_worst() {	# file
	sed -n "s/^mean=\([-0-9.]*\) worst=\([-0-9.]*\)$/\1 \2/p" "$1"
}

test_expect_success 'polls never held back: the count is the meter energy, nothing unseen' '
	"$CHECK" 40 0 >out0 &&
	tail -1 out0 &&
	set -- $(mean_worst out0) &&
	expect_le 1 "$1" "mean absolute error, %" &&
	expect_le 2 "$2" "worst error, %" &&
	expect_eq 40 "$(grep -c " unseen_ms=0.0 held_ms=0.0$" out0)" "runs with nothing unseen"
'

test_expect_success 'polls held back 3 x 50-100 ms a run: the time missed at the mean power before it' '
	"$CHECK" 40 3 >out3 &&
	tail -1 out3 &&
	set -- $(mean_worst out3) &&
	expect_le 2 "$1" "mean absolute error, %" &&
	expect_le 5 "$2" "worst error, %" &&
	# each hold: its length, give or take a period and a poll
	awk "/^seed=/ { split(\$3, u, \"=\"); split(\$4, h, \"=\");
		if (u[2] < h[2] - 9 || u[2] > h[2] + 9 || u[2] < 100) bad++ }
		END { print bad + 0 }" out3 >bad &&
	expect_eq 0 "$(cat bad)" "runs whose unseen time is not their holds, within 3 ms each"
'

# A target held stopped most of the time (phases of 1-3 ms, 0 W for 2-6
# ms after each): the meter answers 0 W over several periods.  Its
# unchanged readings were counted in whole periods once one and a half
# had passed, so up to two periods were left to the next change, counted
# at its power: 8.98% mean, 12.8% worst, every run over (live, a 1 kHz
# meter polled at 2 kHz under two busy loops counted 30-40% over, its
# readings 0 W four times in five).  The change after such a stretch
# stands for the last period, the reading before it for the rest: 2.41%
# / 4.97%, the runs still over (the spacings after a stretch are whole
# periods and lengthen the median period; its lower quartile gave 1.59% /
# 3.49%, but made a poll one period late look held back).
test_expect_success 'a target stopped most of the time: 0 W again and again, the count adds up' '
	"$CHECK" 40 0 1.2 1 >outs &&
	tail -1 outs &&
	set -- $(mean_worst outs) &&
	expect_le 3.5 "$1" "mean absolute error, %" &&
	expect_le 7 "$2" "worst error, %"
'

start_scpi state

test_expect_success 'a sampler stopped 100 ms: the poller says it was held back, the count adds up' '
	{ PHASES_STATE=$TRASH/state $SAMPLER -f 200 -o held.prof \
		-p scpi:tcp://127.0.0.1:$(cat scpi.port),timeout_ms=2000,poll_hz=1000 -- \
		"$EXAMPLES/phases" 1.2 10 50 >truth 2>err &
	  pid=$!; } &&
	sleep 0.6 && kill -STOP $pid && sleep 0.1 && kill -CONT $pid &&
	wait $pid &&
	cat err &&
	# (once in a sanitizer pass, 2 counts after the hold were also refused
	# as steps, the count still adding up: an open defect, issue 42; the
	# count is held below whatever the refusals)
	grep -v "^sampler: warning: scpi: channel .scpi.: [0-9]* readings\? refused ([0-9]* step)" err >err.held || true &&
	one_error err.held "^sampler: warning: scpi: the thread polling tcp://127.0.0.1:[0-9]* was held back: [0-9.]* ms of the meter.s updates went unseen, counted at the mean power before them (give the sampler a CPU of its own; said once)$" &&
	ms=$(sed -n "s/.* was held back: \([0-9.]*\) ms .*/\1/p" err.held) &&
	expect_ge 90 "$ms" "ms unseen (the sampler stopped 100)" &&
	$PROFILE dump held.prof >dump &&
	count_ratio dump truth >ratio &&
	cat ratio &&
	expect_eq 0 "$(sample_nan dump 1)" "samples without a count (the hold taken for a lost meter)" &&
	expect_ge 0.85 "$(cat ratio)" "the count over the energy drawn" &&
	expect_le 1.15 "$(cat ratio)" "the count over the energy drawn"
'

test_done
