#!/bin/bash
# The sampler never needs or keeps privileges it was not started with; its
# target never inherits the sampler's real-time priority; a profile or CSV
# is data only; files are created with the user's umask.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/recorder-lib.sh"
. "$ROOT/tests/hardening/hardening-lib.sh"

# status_field PID FIELD: a field of /proc/PID/status, blanks squeezed.
status_field() {
	awk -v f="$2:" '$1 == f { $1 = ""; sub(/^ /, ""); print; exit }' "/proc/$1/status"
}

# policy PID: the scheduling policy number of every thread of PID, sorted
# and unique (0: SCHED_OTHER, 1: SCHED_FIFO, 2: SCHED_RR).
policies() {
	for t in /proc/$1/task/*; do
		awk '$1 == "policy" { print $3 }' "$t/sched"
	done | sort -u | tr "\n" " " | sed "s/ \$//"
}

test_expect_success NOBODY_CAN_READ 'as uid 65534: the sampler works and holds no capability' '
	mkdir -m 1777 nob
	(cd nob && as_nobody "$SAMPLER" -f 1000 -o prof -- "$EXAMPLES/threads" 2 1 >/dev/null 2>../nob.err) &
	wait_for_file nob/prof &&
	sampler=$(pgrep -n -f "^$SAMPLER -f 1000 -o prof") &&
	expect_eq "$NOBODY $NOBODY $NOBODY $NOBODY" "$(status_field $sampler Uid)" "sampler uids" &&
	expect_eq 0000000000000000 "$(status_field $sampler CapEff)" "sampler effective capabilities" &&
	expect_eq 0000000000000000 "$(status_field $sampler CapPrm)" "sampler permitted capabilities" &&
	wait &&
	expect_empty "$(but_rate_warning nob.err)" "stderr (but the rate warning a loaded machine causes)" &&
	expect_eq "$NOBODY" "$(stat -c %u nob/prof)" "profile owner" &&
	"$BUILD/sampler-profile" dump nob/prof >nob.txt &&
	expect_schedule nob.txt
'

test_expect_success SCHED_FIFO 'as root at SCHED_FIFO: the target and its threads stay SCHED_OTHER' '
	"$SAMPLER" -f 1000 -o rt -- "$EXAMPLES/threads" 3 1 >/dev/null &
	sampler=$! &&
	for i in $(seq 100); do
		target=$(pgrep -P $sampler || true)
		[ -n "$target" ] && [ "$(ls /proc/$target/task 2>/dev/null | wc -l)" -ge 3 ] && break
		sleep 0.02
	done &&
	expect_eq 1 "$(policies $sampler)" "sampler policy (SCHED_FIFO)" &&
	expect_eq 0 "$(policies $target)" "policies of the target threads" &&
	expect_eq "$(nice)" "$(awk "\$1 == \"prio\" { print \$3 - 120 }" /proc/$target/sched)" "target nice (the suite'"'"'s own)" &&
	expect_eq "$(status_field $$ Cpus_allowed_list)" "$(status_field $target Cpus_allowed_list)" "target CPUs" &&
	wait $sampler
'

for mask in 077:600 022:644 027:640; do
	umask_=${mask%:*} mode=${mask#*:}
	test_expect_success "umask $umask_: profile, bz2, CSV and pperf files are $mode" '
		(umask $umask_ &&
		 "$SAMPLER" -f 1000 -o u$umask_ -- "$EXAMPLES/busy" 0.05 &&
		 "$SAMPLER" -f 1000 -o u$umask_.bz2 -- "$EXAMPLES/busy" 0.05 &&
		 "$EXPORT" --format csv -o u$umask_.csv u$umask_ &&
		 "$EXPORT" --format pperf -o u$umask_.pperf u$umask_ &&
		 "$EXPORT" -o u$umask_.perf u$umask_) &&
		for f in u$umask_ u$umask_.bz2 u$umask_.csv u$umask_.pperf; do
			expect_eq $mode "$(stat -c %a $f)" "mode of $f" || exit 1
		done &&
		expect_eq 0 "$(( 0$(stat -c %a u$umask_.perf) & ~0$mode ))" "perf.data bits beyond the umask"
	'
done

# A profile whose strings look like shell, paths and CSV: all data.
test_expect_success 'a profile is data only: nothing in it is run or written to' '
	cat >hostile.txt <<-\EOF &&
	format name=native compressed=0
	host hostname=$(touch%20pwned1) os_release=r os_version=v arch=x86_64 cpu_desc=c cpu_id=i nr_cpus_online=2 nr_cpus_avail=2 total_mem_kb=1 sampler_version=0.1.0 cmdline=;touch%20pwned2 realtime_ns=1 monotonic_ns=1 start_ns=1000 target_hz=1000
	process pid=10 ppid=0 time=1000
	exec pid=10 time=1000 comm=`touch%20pwned3` argv=a%0Ab%2Cc;touch%20pwned4
	thread tid=10 pid=10 time=1000
	map pid=10 time=1000 start=0x400000 len=0x1000 pgoff=0x0 dev=08:01 inode=1 prot=r-x path=out/../pwned5
	sample time=2000 nthreads=1 values=
	ts tid=10 pid=10 pc=0x400010 cpu=100
	sample time=3000 nthreads=1 values=
	ts tid=10 pid=10 pc=0x400020 cpu=200
	stats wall=2000 latency=1 samples=2 thread_samples=2 missed=0 missing=0 signals=0 threads=1 processes=1 exit=0 totals=
	EOF
	"$BUILD/sampler-profile" build hostile.prof <hostile.txt &&
	mkdir out &&
	"$EXPORT" --format csv --symbols -o out/h.csv hostile.prof &&
	"$EXPORT" -o out/h.perf hostile.prof &&
	"$EXPORT" --info hostile.prof >out/h.info &&
	XDG_CACHE_HOME=$TRASH/cache /usr/bin/python3 "$ROOT/scripts/sampler-report" hostile.prof >out/h.report 2>&1 &&
	expect_empty "$(find "$TRASH" /tmp -maxdepth 2 -name "pwned[0-9]" 2>/dev/null | head -3)" "files the profile named" &&
	expect_eq "h.csv h.info h.perf h.report" "$(ls out | tr "\n" " " | sed "s/ \$//")" "files written" &&
	expect_eq 2 "$(grep -c "^1000,10,10,\|^2000,10,10," out/h.csv)" "CSV rows" &&
	expect_grep "^# process pid=10 ppid=0 comm=%60touch%20pwned3%60\|^# process pid=10 ppid=0 comm=.touch%20pwned3. " out/h.csv &&
	expect_grep "argv=a%0Ab%2Cc;touch%20pwned4" out/h.csv
'

test_done
