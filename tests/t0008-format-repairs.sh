#!/bin/bash
# Values the recorder never writes (issue 44, item 9): a thread's CPU time
# that runs back or faster than the clock, a counter that runs back, an
# energy reading below 0, not finite or beyond 1e7 W.  The reader repairs
# them as it reads (no CPU time, 0 events, a missing reading), so every
# consumer gets the same figures, and each program says once per kind how
# many there were.  Before: 585 years of CPU, -999990 J, 0 J.
. "$(dirname "$0")/lib.sh"

PROFILE=$BUILD/sampler-profile
REPORT="/usr/bin/python3 $ROOT/scripts/sampler-report"
export SAMPLER_BIN_DIR=$BUILD

# A profile of one thread in four samples 10 ms apart: its CPU time
# (cumulative ns) in the second sample, the four energy readings (J) and
# its counter (cumulative) in the second sample.
make_profile() {	# name cpu2 e1 e2 e3 e4 count2
	{
		echo "host hostname=h os_release=6.1 os_version=v arch=x86_64 cpu_desc=c cpu_id=i nr_cpus_online=2 nr_cpus_avail=2 total_mem_kb=1000 sampler_version=0.1.0 cmdline=s realtime_ns=1763790000123456789 monotonic_ns=100000000000 start_ns=100000000000 target_hz=100"
		echo "channel name=package-0 source=rapl unit=J scale=1 kind=energy scope=sample"
		echo "channel name=instructions source=perf unit= scale=1 kind=counter scope=thread"
		echo "process pid=500 ppid=0 time=100000000000"
		echo "exec pid=500 time=100000000000 comm=app argv=./app"
		echo "thread tid=500 pid=500 time=100000000000"
		echo "map pid=500 time=100000000000 start=0x400000 len=0x1000 pgoff=0x0 dev=08:01 inode=1 prot=r-x path=/bin/app"
		echo "sample time=100010000000 nthreads=1 values=$3"
		echo "ts tid=500 pc=0x400100 cpu=5000000 counters=1000"
		echo "sample time=100020000000 nthreads=1 values=$4"
		echo "ts tid=500 pc=0x400100 cpu=$2 counters=$7"
		echo "sample time=100030000000 nthreads=1 values=$5"
		echo "ts tid=500 pc=0x400100 cpu=20000000 counters=3000"
		echo "sample time=100040000000 nthreads=1 values=$6"
		echo "ts tid=500 pc=0x400100 cpu=30000000 counters=4000"
		echo "exit tid=500 pid=500 time=100050000000 whole=1 cpu=30000000 counters=4000"
		echo "stats wall=40000000 latency=1000 samples=4 thread_samples=4 missed=0 missing=0 signals=0 threads=1 processes=1 exit=0 totals=10.2,3000 hold=500"
	} | "$PROFILE" build "$1"
}

# sum of a CSV column (by header name) over the sample rows
csv_sum() {	# column file
	awk -F, -v col="$1" '/^#/ { next } !c { for (i = 1; i <= NF; i++) if ($i == col) c = i; next }
		$4 == "sample" { s += $c } END { if (c) printf "%.17g\n", s }' "$2"
}

info_total() {	# profile
	"$EXPORT" --info "$1" 2>/dev/null | sed -n "s/^channel: *package-0 .*: total \([^ ]*\) J .*/\1/p"
}

WHY="(values the recorder never writes: a damaged or hand-made profile)"

test_expect_success 'setup: good, CPU back, counter back, energy -1e6 J, 1e300 J, inf' '
	make_profile good.prof 10000000 5 5 5 0.2 2000 &&
	make_profile back.prof 1000000 5 5 5 0.2 2000 &&
	make_profile fast.prof 2000000000 5 5 5 0.2 2000 &&
	make_profile count.prof 10000000 5 5 5 0.2 500 &&
	make_profile neg.prof 10000000 5 -1e6 5 0.2 2000 &&
	make_profile huge.prof 10000000 5 1e300 5 0.2 2000 &&
	make_profile inf.prof 10000000 5 inf -inf 0.2 2000
'

test_expect_success 'a profile the recorder could write is read without a repair' '
	"$PROFILE" dump good.prof >dump 2>err &&
	expect_empty "$(cat err)" "warnings" &&
	"$EXPORT" --format csv -o good.csv good.prof 2>err &&
	expect_empty "$(cat err)" "warnings" &&
	expect_eq 30000000 "$(csv_sum cpu_delta_ns good.csv)" "CPU ns" &&
	expect_eq 15.2 "$(info_total good.prof)" "energy J (5 + 5 + 5 + 0.2)"
'

test_expect_success 'CPU time that runs back: that interval has none, one warning' '
	"$PROFILE" dump back.prof >dump 2>err &&
	expect_eq "0" "$(grep "^ts " dump | sed -n 2p | sed "s/.* dcpu=\([0-9]*\) .*/\1/")" "dcpu" &&
	expect_eq "sampler-profile: warning: back.prof: 1 thread-sample whose CPU time ran back or faster than the clock: counted as no CPU time $WHY" \
		"$(cat err)" &&
	"$EXPORT" --format csv -o back.csv back.prof 2>err &&
	expect_eq "sampler-export: warning: back.prof: 1 thread-sample whose CPU time ran back or faster than the clock: counted as no CPU time $WHY" \
		"$(cat err)" &&
	expect_eq 34000000 "$(csv_sum cpu_delta_ns back.csv)" "CPU ns (5 + 0 + 19 + 10 ms)"
'

test_expect_success 'CPU time faster than the clock (2 s in 10 ms), then back: none' '
	"$EXPORT" --format csv -o fast.csv fast.prof 2>err &&
	expect_grep ": 2 thread-samples whose CPU time ran back or faster than the clock" err &&
	expect_eq 15000000 "$(csv_sum cpu_delta_ns fast.csv)" "CPU ns (5 + 0 + 0 + 10 ms)"
'

test_expect_success 'a counter that runs back counts 0 events there' '
	"$EXPORT" --format csv -o count.csv count.prof 2>err &&
	expect_eq "sampler-export: warning: count.prof: 1 thread-sample whose counter ran back: counted as 0 events $WHY" \
		"$(cat err)" &&
	expect_eq 4500 "$(csv_sum instructions count.csv)" "events (1000 + 0 + 2500 + 1000)"
'

test_expect_success 'energy below 0, beyond 1e7 W or not finite: missing readings' '
	for p in neg huge; do
		"$EXPORT" --info $p.prof >/dev/null 2>err &&
		expect_eq "sampler-export: warning: $p.prof: 1 energy reading below 0, not finite or beyond 1e7 W: counted as missing $WHY" \
			"$(cat err)" &&
		expect_eq 10.2 "$(info_total $p.prof)" "energy J of $p (5 + 5 + 0.2)" || exit 1
	done &&
	"$EXPORT" --info inf.prof >/dev/null 2>err &&
	expect_grep ": 2 energy readings below 0, not finite or beyond 1e7 W" err &&
	expect_eq 5.2 "$(info_total inf.prof)" "energy J (5 + 0.2)"
'

test_expect_success NUMPY 'the report takes the repaired figures and warns once' '
	SAMPLER_NO_CACHE=1 $REPORT back.prof >report 2>err &&
	expect_eq "sampler-report: warning: back.prof: 1 thread-sample whose CPU time ran back or faster than the clock: counted as no CPU time $WHY" \
		"$(cat err)" &&
	expect_eq 0.034 "$(awk "\$1 == \"total\" { print \$4 }" report)" "CPU s" &&
	XDG_CACHE_HOME=$TRASH/cache $REPORT huge.prof >report 2>err &&
	expect_grep "sampler-report: warning: huge.prof: 1 energy reading" err &&
	expect_eq 10.200 "$(awk "\$1 == \"total\" { print \$6 }" report)" "energy J" &&
	XDG_CACHE_HOME=$TRASH/cache $REPORT huge.prof >report 2>err &&
	expect_grep "sampler-report: warning: huge.prof: 1 energy reading" err
'

test_done
