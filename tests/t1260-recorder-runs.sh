#!/bin/bash
# Where in its interval each thread ran (docs/ENERGY.md, "Where in its
# interval a thread ran"): with a meter read per sample, every
# thread-sample that ran carries its first switch onto a CPU after the
# previous sample and its last switch off one before this sample's stop,
# from the per-thread switch rings (sampler/quiet.h), so that the energy
# estimate places the thread's CPU time where it ran, not spread over the
# interval.  A busy thread's runs hold its CPU time; a thread that sleeps
# most of the time runs in a small part of its intervals; a thread that
# did not run carries none.  Without a meter nothing is recorded (the
# profile costs what it did).
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/pmu/pmu-lib.sh"
FAKE="$PY $FAKES/fake-powercap.py"

# runs PROFILE: per thread-sample that ran, "dcpu from to prev time"
# (ns; prev: the previous sample's time), "-" for from and to without a run
runs() {
	"$PROFILE" dump "$1" | awk '
		/^host/ { for (i = 1; i <= NF; i++) if ($i ~ /^start_ns=/) { sub(/start_ns=/, "", $i); prev = $i } }
		/^sample/ { sub(/time=/, "", $2); time = $2; before = prev; prev = time }
		/^ts/ { d = ""; r = ""
			for (i = 1; i <= NF; i++) {
				if ($i ~ /^dcpu=/) { d = $i; sub(/dcpu=/, "", d) }
				if ($i ~ /^run=/) { r = $i; sub(/run=/, "", r); sub(/,/, " ", r) }
			}
			if (d > 0) print d, (r == "" ? "- -" : r), before, time }'
}

# figures RUNS: thread-samples that ran, with more than 100 us of CPU time,
# those of them with a run, runs outside their interval, and sums over the
# runs of the CPU time, the runs' length and the intervals' length (us)
figures() {
	awk '$1 > 100000 { big++; if ($2 != "-") placed++ }
		$2 != "-" { if ($2 < $4 || $3 > $5 || $3 <= $2) outside++
			cpu += $1; ran += $3 - $2; wall += $5 - $4 }
		END { printf "%d %d %d %.0f %.0f %.0f\n", big, placed, outside, cpu / 1000, ran / 1000, wall / 1000 }' "$1"
}

# tight_runs CPU RUNS INTERVALS NAME: the runs hold the CPU time tightly,
# CPU time / runs >= 0.7, unless the machine is contended.  A thread
# preempted inside an interval and let run again in it has the wait
# inside its run (the runs keep the first switch on and the last off): on
# a fresh clone's make check beside other jobs the busy thread got 44% of
# its intervals and its runs held 55% CPU time.  Contended: the busy
# thread had less than 80% of its intervals (the file contended, from the
# busy test, also read by the wake test, whose thread sleeps by design).
tight_runs() {
	if [ "$4" = busy ]; then
		share=$(echo "$1 / $3" | bc -l)
		echo "busy: CPU time / intervals $share"
		awk -v s="$share" "BEGIN { exit !(s < 0.8) }" && echo "$share" >contended
	fi
	if [ -f contended ]; then
		echo "# contended (the busy thread had $(cat contended) of its intervals):" \
			"CPU time / runs $(echo "$1 / $2" | bc -l), not held to 0.7"
		return 0
	fi
	expect_ge 0.7 "$(echo "$1 / $2" | bc -l)" "$4 CPU time / runs"
}

test_expect_success 'setup: a RAPL package that does not move' '
	$FAKE make rapl
'

test_expect_success 'a busy thread: a run in every interval it ran, inside it, holding its CPU time' '
	SAMPLER_SYSFS_ROOT=$TRASH/rapl "$SAMPLER" -f 1000 -p rapl -o busy.prof -- "$EXAMPLES/busy" 1 &&
	"$PROFILE" dump busy.prof | head -1 >format &&
	expect_grep "runs=1" format &&
	runs busy.prof >busy.runs && set -- $(figures busy.runs) &&
	echo "busy: $2 of $1 thread-samples with >100 us placed, $3 outside; cpu $4 us, runs $5 us, intervals $6 us" &&
	# enough to judge: at load 13 the sampler reached 22% of its rate and
	# the busy thread 21% of its intervals, 137 thread-samples of 1000
	expect_ge 50 "$1" "thread-samples with more than 100 us of CPU time" &&
	expect_ge $(( $1 * 95 / 100 )) "$2" "of them with a run" &&
	expect_eq 0 "$3" "runs outside their interval" &&
	expect_le 1.1 "$(echo "$4 / $5" | bc -l)" "CPU time / runs" &&
	tight_runs $4 $5 $6 busy
'

# examples/wake 1 1 3: one thread spinning 1.8 ms in fa, sleeping 2.4 ms,
# spinning 1.2 ms in fb (each 0.5-1.5 x): it runs 55% of the time, so its
# runs cover about that of its intervals, and a sample that finds it
# asleep since the last carries none.
test_expect_success 'a thread that sleeps: its runs are where it ran, not its intervals' '
	SAMPLER_SYSFS_ROOT=$TRASH/rapl "$SAMPLER" -f 1000 -p rapl -o wake.prof -- \
		"$EXAMPLES/wake" 1 1 3 >/dev/null &&
	runs wake.prof >wake.runs && set -- $(figures wake.runs) &&
	wall=$("$PROFILE" dump wake.prof | sed -n "s/^stats wall=\([0-9]*\) .*/\1/p") &&
	echo "wake: $2 of $1 placed, $3 outside; cpu $4 us, runs $5 us, intervals $6 us, wall $wall ns" &&
	expect_ge 100 "$1" "thread-samples with more than 100 us of CPU time" &&
	expect_ge $(( $1 * 95 / 100 )) "$2" "of them with a run" &&
	expect_eq 0 "$3" "runs outside their interval" &&
	tight_runs $4 $5 $6 wake &&
	expect_le 0.8 "$(echo "$5 * 1000 / $wall" | bc -l)" "runs / the run'"'"'s wall time" &&
	expect_eq 0 "$("$PROFILE" dump wake.prof | grep "^ts" | grep " dcpu=0 " | grep -c " run=")" \
		"thread-samples that did not run, with a run"
'

test_expect_success NOBODY_CAN_READ 'as nobody: the runs are recorded too (the switch rings need no privilege)' '
	mkdir nobody && chown $NOBODY:$NOBODY nobody &&
	as_nobody env SAMPLER_SYSFS_ROOT=$TRASH/rapl "$SAMPLER" -f 1000 -p rapl -o nobody/busy.prof -- \
		"$EXAMPLES/busy" 0.3 &&
	runs nobody/busy.prof >nobody.runs && set -- $(figures nobody.runs) &&
	expect_ge 50 "$1" "thread-samples with more than 100 us of CPU time" &&
	expect_ge $(( $1 * 95 / 100 )) "$2" "of them with a run"
'

test_expect_success NUMPY 'sampler-report --accuracy: how much of the CPU time was placed, and where not' '
	$PY "$ROOT/scripts/sampler-report" --accuracy --no-cache busy.prof >acc &&
	grep "^# where:" acc >where &&
	cat where &&
	placed=$(sed -n "s/^# where: \([0-9.]*\)% of the CPU time placed.*/\1/p" where) &&
	expect_ge 95 "$placed" "CPU time placed (%)" &&
	"$PROFILE" dump busy.prof | sed "s/ runs=1//; s/ run=[0-9,]*//" | "$PROFILE" build bare.prof &&
	$PY "$ROOT/scripts/sampler-report" --accuracy --no-cache bare.prof >bare &&
	expect_grep "^# where: the profile does not say where in its intervals the threads ran" bare
'

test_expect_success 'without a meter, or with --stop-all: no runs' '
	"$SAMPLER" -f 1000 -o plain.prof -- "$EXAMPLES/busy" 0.3 &&
	SAMPLER_SYSFS_ROOT=$TRASH/rapl "$SAMPLER" --stop-all -f 1000 -p rapl -o all.prof -- "$EXAMPLES/busy" 0.3 &&
	for p in plain all; do
		"$PROFILE" dump $p.prof >$p.dump &&
		expect_no_grep "runs=1" $p.dump &&
		expect_no_grep " run=" $p.dump || return 1
	done
'

test_done
