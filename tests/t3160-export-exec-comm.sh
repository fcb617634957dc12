#!/bin/bash
# After an exec the samples carry the new image's name, as perf names them
# (COMM with the exec flag): `sampler -- sh -c xz` must not label xz's
# samples "sh".  A text profile (sampler-profile build) whose process is
# named sh by its thread name record, then execs xz with no new name record
# (the recorder writes one only when it notices the name, later): 3 samples
# before the exec, 2 after.  Also a real `sh -c busy`.
. "$(dirname "$0")/lib.sh"

test_expect_success 'setup: a profile of sh that execs xz' '
	cat >p.txt <<-EOF &&
	host hostname=fixture os_release=6.1.0 os_version=%231 arch=x86_64 cpu_desc=CPU cpu_id=x nr_cpus_online=2 nr_cpus_avail=2 total_mem_kb=2048000 sampler_version=0.1.0 cmdline=sampler%20--%20sh%20-c%20xz realtime_ns=1700000000000000000 monotonic_ns=1000000000 start_ns=1000000000 target_hz=100
	process pid=100 ppid=0 time=1000000000
	exec pid=100 time=1000000000 comm=sh argv=sh%20-c%20xz
	thread tid=100 pid=100 time=1000000000
	name tid=100 pid=100 time=1000000000 comm=sh
	sample time=1010000000 nthreads=1
	ts tid=100 pid=100 pc=0x1000 cpu=1000000
	sample time=1020000000 nthreads=1
	ts tid=100 pid=100 pc=0x1000 cpu=2000000
	sample time=1030000000 nthreads=1
	ts tid=100 pid=100 pc=0x1000 cpu=3000000
	exec pid=100 time=1035000000 comm=xz argv=xz
	sample time=1040000000 nthreads=1
	ts tid=100 pid=100 pc=0x2000 cpu=4000000
	sample time=1050000000 nthreads=1
	ts tid=100 pid=100 pc=0x2000 cpu=5000000
	exit tid=100 pid=100 time=1060000000 whole=1
	stats wall=50000000 latency=0 samples=5 thread_samples=5 missed=0 missing=0 signals=0 threads=1 processes=1 exit=0 totals=
	EOF
	"$BUILD/sampler-profile" build p.prof <p.txt
'

test_expect_success 'folded: the samples after the exec are xz'"'"'s' '
	"$EXPORT" --format folded --weight samples p.prof >p.folded &&
	expect_eq "sh;[unknown] 3|xz;[unknown] 2" "$(tr "\n" "|" <p.folded | sed "s/|\$//")" "folded lines"
'

test_expect_success 'CSV and columns: the process is named by its image, xz' '
	"$EXPORT" --format csv p.prof >p.csv &&
	expect_grep "^# process pid=100 ppid=0 comm=xz argv=xz\$" p.csv &&
	"$EXPORT" --format columns -o p.cols p.prof &&
	grep -ao "# process pid=100 ppid=0 comm=[^ ]*" p.cols >cols.process &&
	expect_eq "# process pid=100 ppid=0 comm=xz" "$(cat cols.process)" "columns process line"
'

test_expect_success PERF 'perf.data: a COMM with the exec flag; perf gives 3 samples to sh and 2 to xz' '
	"$EXPORT" -o p.data p.prof &&
	perf script -i p.data --show-task-events -F comm,event 2>/dev/null >script &&
	expect_grep "PERF_RECORD_COMM exec: xz:100/100" script &&
	expect_eq "3 2" "$(grep -c "^ *sh *wall-time" script) $(grep -c "^ *xz *wall-time" script)" "wall-time samples of sh, xz"
'

test_expect_success 'a real sh -c: every sample in busy'"'"'s own code is labelled busy' '
	"$SAMPLER" -g -o real.prof -- sh -c "exec \"$EXAMPLES/busy\" 0.3" >/dev/null 2>&1 &&
	"$EXPORT" --format folded --no-inline --weight samples real.prof >real.folded &&
	expect_ge 50 "$(grep ";main " real.folded | grep "^busy;" | awk "{ s += \$NF } END { print s + 0 }")" "busy main samples as busy" &&
	expect_eq 0 "$(grep ";main " real.folded | grep -vc "^busy;")" "main lines under another name"
'

test_done
