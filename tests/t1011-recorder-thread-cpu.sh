#!/bin/bash
# Each thread's CPU time in the profile against what the thread measured
# of itself (CLOCK_THREAD_CPUTIME_ID), with no prerequisite: no perf
# counter, no privilege.  tests/sampler/thread-cpu runs 4 threads to 0.2,
# 0.4, 0.6 and 0.8 s of CPU time, noting (monotonic time, own CPU time)
# every ~100 us; tests/sampler/thread-cpu-check.py compares, per thread,
# the profile's reading at its exit with its final measure, and each
# sample's reading with the thread's CPU time at the sample's time.
# Measured loaded (6.4 s for 2 s of CPU at -f 50): exit within 0.06
# ms of the final measure, lag -0.02 to -0.04 ms against steps of 1.4 to
# 2.8 ms.  With each thread read from the leader's schedstat the exits
# were the leader's; with each reading kept one sample, the lag was one
# step.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/recorder-lib.sh"
# the workload comes from the plain build, like $EXAMPLES (lib.sh)

test_expect_success 'four threads of their own CPU time: recorded at 50 Hz' '
	"$SAMPLER" -f 50 -o tc.prof -- "$(dirname "$EXAMPLES")/tests/thread-cpu" 4 0.8 >tc.out &&
	expect_eq 4 "$(grep -c "^final " tc.out)" "threads that measured themselves" &&
	dump tc.prof &&
	python3 "$ROOT/tests/sampler/thread-cpu-check.py" tc.prof.txt tc.out >cpu.txt &&
	cat cpu.txt &&
	expect_eq 4 "$(grep -c "^thread " cpu.txt)" "threads compared"
'

# value NAME LINE: NAME=VALUE of a line of cpu.txt
value() {
	echo "$2" | tr " " "\n" | sed -n "s/^$1=//p"
}

test_expect_success 'each thread: CPU time at its exit = its own final measure (+- 1 ms or 1%)' '
	while read -r line; do
		final=$(value final "$line") &&
		tol=$(awk -v f="$final" "BEGIN { t = f / 100; print (t > 1 ? t : 1) }") &&
		expect_near "$final" "$(value exit "$line")" "$tol" "CPU time at the exit of $line (ms)" || exit 1
	done <cpu.txt
'

# The median, not each sample: a sample's time is when the stop began, and
# a thread may run on a little before it stops (the lag's sign).  Read a
# sample late, the lag is one step; the bar is a quarter of it (0.5 ms at
# least: a starved thread has steps of almost nothing).
test_expect_success 'each thread: its reading at a sample = its own CPU time then (median)' '
	while read -r line; do
		expect_ge 10 "$(value n "$line")" "samples compared, $line" &&
		step=$(value step "$line") &&
		tol=$(awk -v s="$step" "BEGIN { t = s / 4; print (t > 0.5 ? t : 0.5) }") &&
		expect_near 0 "$(value lag "$line")" "$tol" "median lag of the reading (ms), $line" || exit 1
	done <cpu.txt
'

test_done
