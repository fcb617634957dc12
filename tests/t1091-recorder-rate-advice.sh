#!/bin/bash
# The cause the rate warning names follows what the sampler measured
# (sampler/summary.c), on runs whose figures are fixed by
# tests/sampler/summary-check: a real run's figures depend on the machine
# and its load (t1090 checks the warning of real runs).
. "$(dirname "$0")/lib.sh"

CHECK="$BUILD/tests/summary-check"

# summary HZ WALL_S SAMPLES STOP_US OWN_CPU_S TRACERS NCPUS REALTIME
summary() {
	"$CHECK" "$@" 2>&1 >/dev/null
}

# Issue 19 #13: --tracers 2 used 3.1 s of CPU in 3 s, and the warning
# blamed "other load on the machine?".
test_expect_success 'two tracers that used 3.1 s of CPU in 3 s: the sampler itself is named, with --tracers' '
	summary 1000 3 2000 200 3.1 2 2 1 >err &&
	cat err &&
	expect_eq 1 "$(wc -l <err)" "warning lines" &&
	expect_grep "samples came late: the sampler itself used 3.1 s of CPU in 3.0 s, its 2 tracers competing with the target for 2 CPUs; use fewer --tracers, or -f 500 or lower\$" err &&
	expect_no_grep "other load" err
'

test_expect_success 'one tracer that used 2 s of CPU in 3 s: its CPU per sample against the period' '
	summary 1000 3 2000 200 2.0 1 2 1 >err &&
	cat err &&
	expect_grep "samples came late: the sampler itself used 2.0 s of CPU in 3.0 s (1000 us a sample, of a 1000 us period); use -f 500 or lower\$" err &&
	expect_no_grep "other load" err
'

test_expect_success 'a sampler that used 7% of a CPU: the load came from elsewhere' '
	summary 1000 3 2000 200 0.2 2 2 1 >err &&
	cat err &&
	expect_grep "samples came late though a stop took 200 us of each 1000 us period on average (other load on the machine?); use -f 500 or lower\$" err &&
	summary 1000 3 2000 200 0.2 1 2 0 >err &&
	expect_grep "the sampler, at normal priority, got too little CPU" err
'

test_expect_success 'long stops and a full rate keep their own advice' '
	summary 1000 3 2000 800 3.1 2 2 1 >err &&
	expect_grep "stopping 1 thread took 800 us of each 1000 us period" err &&
	summary 1000 3 2990 200 3.1 2 2 1 >err &&
	expect_empty "$(cat err)" "warnings at 99.7% of the rate"
'

test_done
