#!/bin/bash
# Export of a profile built from text (sampler-profile build, contract 1)
# with known PCs inside known functions of a program compiled here (PIE)
# and of libc, known CPU deltas and energies, a fork and an exec.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/export-lib.sh"

PROFILE_TOOL=$BUILD/sampler-profile

cat >app.c <<'CEOF'
#include <unistd.h>
__attribute__((noinline)) long work_x(long n) { long s = 0; for (long i = 0; i < n; i++) s += i * i; return s; }
__attribute__((noinline)) long work_y(long n) { long s = 1; for (long i = 0; i < n; i++) s ^= s * 7 + i; return s; }
int main(void) { return (int)(work_x(1000) + work_y(1000) + getpid()) & 1; }
CEOF

APP_BASE=0x555555554000
LIBC_BASE=0x7f0000000000

test_expect_success 'build the program and a text profile with known PCs and deltas' '
	cc -O1 -g -o app app.c &&
	libc=$(ldd ./app | awk "/libc.so/ { print \$3 }") && test -f "$libc" &&
	x=$(printf "0x%x" $(( APP_BASE + 0x$(sym_addr app work_x) + 4 ))) &&
	y=$(printf "0x%x" $(( APP_BASE + 0x$(sym_addr app work_y) + 4 ))) &&
	l=$(printf "0x%x" $(( LIBC_BASE + 0x$(sym_addr "$libc" getpid -D) + 2 ))) &&
	echo $l >libc-pc &&
	{
	echo "host hostname=fixture os_release=6.1.0-fix os_version=%231 arch=x86_64 cpu_desc=Fixture%20CPU cpu_id=GenuineIntel%2C6%2C1%2C1 nr_cpus_online=2 nr_cpus_avail=2 total_mem_kb=2048000 sampler_version=0.1.0 cmdline=sampler%20-p%20rapl%20--%20./app realtime_ns=1700000000000000000 monotonic_ns=1000000000 start_ns=1000000000 target_hz=100"
	echo "channel name=package-0 source=rapl unit=uJ scale=1e-06 kind=energy scope=sample"
	echo "process pid=100 ppid=0 time=1000000000"
	echo "exec pid=100 time=1000000000 comm=app argv=./app"
	echo "thread tid=100 pid=100 time=1000000000"
	echo "thread tid=101 pid=100 time=1000000000"
	map_lines 100 "$PWD/app" $APP_BASE
	map_lines 100 "$libc" $LIBC_BASE
	} >p.txt &&
	# 100 samples 10 ms apart: 100 in work_x (6 ms CPU each), 101 in
	# work_y (3 ms); from sample 51 a child 200 runs libc getpid (2 ms);
	# every 10th sample nobody runs.  Energy 90 uJ per sample.
	awk -v x=$x -v y=$y -v l=$l -v dir="$PWD" -v libc="$libc" "
	function ts(tid, pid, pc, cpu) { printf \"ts tid=%d pid=%d pc=%s cpu=%d\\n\", tid, pid, pc, cpu }
	BEGIN {
		for (j = 1; j <= 100; j++) {
			t = 1000000000 + j * 10000000
			if (j == 51) {
				print \"process pid=200 ppid=100 time=\" t - 5000000
				print \"thread tid=200 pid=200 time=\" t - 5000000
				print \"exec pid=200 time=\" t - 4000000 \" comm=child argv=./child\"
			}
			idle = j % 10 == 0
			n = j > 50 ? 3 : 2
			print \"sample time=\" t \" nthreads=\" n \" values=90\"
			if (!idle) { c100 += 6000000; c101 += 3000000; if (j > 50) c200 += 2000000 }
			ts(100, 100, x, c100); ts(101, 100, y, c101)
			if (j > 50) ts(200, 200, l, c200)
		}
		print \"exit tid=200 pid=200 time=\" t + 1000 \" whole=1\"
		print \"exit tid=101 pid=100 time=\" t + 2000 \" whole=0\"
		print \"exit tid=100 pid=100 time=\" t + 3000 \" whole=1\"
		print \"stats wall=1000000000 latency=0 samples=100 thread_samples=250 missed=0 missing=0 signals=0 threads=3 processes=2 exit=0 totals=9000\"
	}" >>p.txt &&
	"$PROFILE_TOOL" build p.prof <p.txt &&
	"$PROFILE_TOOL" dump p.prof >dump.txt &&
	expect_eq 250 "$(grep -c "^ts " dump.txt)" "thread-samples in the profile" &&
	expect_eq 2 "$(grep -c "^map pid=100 .* prot=r-x" dump.txt)" "executable maps"
'

# The profile's own attribution, from its dump: CPU time and energy (by the
# rule: by CPU share, equally when nobody ran) per PC.
test_expect_success 'compute the expected shares from the dump' '
	awk "
	/^sample / { for (i = 2; i <= NF; i++) { split(\$i, kv, \"=\"); if (kv[1] == \"values\") e = kv[2]; if (kv[1] == \"nthreads\") n = kv[2] }; k = 0 }
	/^ts / { for (i = 2; i <= NF; i++) { split(\$i, kv, \"=\"); f[kv[1]] = kv[2] }
		k++; pc[k] = f[\"pc\"]; d[k] = f[\"dcpu\"]; sum += f[\"dcpu\"]
		if (k == n) {
			for (m = 1; m <= n; m++) { cpu[pc[m]] += d[m]; en[pc[m]] += sum ? e * d[m] / sum : e / n; tc += d[m] }
			te += e; sum = 0
		} }
	END { for (p in cpu) printf \"%s %.4f %.4f\\n\", p, 100 * cpu[p] / tc, 100 * en[p] / te }
	" dump.txt >expected &&
	expect_eq 3 "$(wc -l <expected)" "distinct PCs"
'

# (the expected energy is the end rule's arithmetic: the export asks for it)
test_expect_success PERF 'perf report shows the functions with the profile'"'"'s CPU-time and energy shares' '
	"$EXPORT" --energy-rule end -o perf.data p.prof &&
	perf report -i perf.data --stdio --sort symbol >report.txt 2>report.err &&
	expect_empty "$(cat report.err)" "perf report stderr" &&
	x=$(printf "0x%x" $(( APP_BASE + 0x$(sym_addr app work_x) + 4 ))) &&
	y=$(printf "0x%x" $(( APP_BASE + 0x$(sym_addr app work_y) + 4 ))) &&
	for fn in work_x:$x work_y:$y; do
		name=${fn%%:*} pc=${fn#*:}
		expect_near "$(awk -v p=$pc "\$1 == p { print \$2 }" expected)" "$(share report.txt cpu-time $name)" 0.5 "cpu-time share of $name" &&
		expect_near "$(awk -v p=$pc "\$1 == p { print \$3 }" expected)" "$(share report.txt energy-package-0-uJ $name)" 0.5 "energy share of $name" || exit 1
	done
'

test_expect_success PERF 'the shared library sample resolves in libc with its share' '
	perf report -i perf.data --stdio --sort dso >dso.txt 2>dso.err &&
	expect_empty "$(cat dso.err)" "stderr" &&
	want=$(awk -v p=$(cat libc-pc) "\$1 == p { print \$2 }" expected) &&
	got=$(awk "/^# Samples:/ { n++ } n == 1 && /libc.so/ { sub(/%/, \"\", \$1); print \$1; exit }" dso.txt) &&
	expect_near "$want" "$got" 0.5 "cpu-time share of libc.so.6"
'

test_expect_success PERF 'fork and exec: the child'"'"'s samples carry its new name' '
	perf script -i perf.data -F comm,pid,tid,event >script.txt 2>script.err &&
	expect_empty "$(cat script.err)" "stderr" &&
	expect_eq 200 "$(awk "\$1 == \"app\" && \$NF == \"wall-time:\"" script.txt | wc -l)" "wall-time samples of app" &&
	expect_eq 50 "$(awk "\$1 == \"child\" && \$NF == \"wall-time:\"" script.txt | wc -l)" "wall-time samples of child" &&
	expect_eq 225 "$(grep -c " cpu-time:" script.txt)" "cpu-time samples (threads that ran)" &&
	perf script -i perf.data --show-task-events -F comm,pid,tid >tasks.txt 2>&1 &&
	expect_grep "PERF_RECORD_FORK(200:200):(100:100)" tasks.txt &&
	expect_grep "PERF_RECORD_COMM exec: child:200/200" tasks.txt &&
	expect_grep "PERF_RECORD_EXIT(200:200):(100:100)" tasks.txt
'

test_expect_success 'CSV --symbols names the functions of the PIE and of libc' '
	"$EXPORT" --format csv --symbols -o p.csv p.prof &&
	grep -v "^#" p.csv | tail -n +2 >rows &&
	expect_eq 250 "$(wc -l <rows)" rows &&
	expect_eq 100 "$(grep -c ",$PWD/app,work_x\$" rows)" "rows in work_x" &&
	expect_eq 100 "$(grep -c ",$PWD/app,work_y\$" rows)" "rows in work_y" &&
	libc=$(ldd ./app | awk "/libc.so/ { print \$3 }") &&
	sym=$(grep ",$libc," rows | head -1 | sed "s/.*,//") &&
	expect_eq 50 "$(grep -c ",$libc,$sym\$" rows)" "rows in $sym" &&
	expect_eq "$(sym_addr "$libc" getpid -D)" "$(sym_addr "$libc" "$sym" -D)" "address of $sym" &&
	expect_near 9000 "$(awk -F, "{ s += \$8 } END { print s }" rows)" 0.001 "energy column sum"
'

test_expect_success LIBC_DEBUG 'local functions of a stripped libc come from its build-id debug file' '
	libc=$(ldd ./app | awk "/libc.so/ { print \$3 }") &&
	id=$(readelf -n "$libc" | awk "/Build ID/ { print \$3 }") &&
	debug=/usr/lib/debug/.build-id/$(echo $id | cut -c1-2)/$(echo $id | cut -c3-).debug &&
	a=$(sym_addr "$debug" _itoa_word) &&
	expect_empty "$(sym_addr "$libc" _itoa_word || true)" "_itoa_word in the stripped libc" &&
	{
	grep -v "^\(sample\|ts\|exit\|stats\)" p.txt
	echo "sample time=1010000000 nthreads=1 values=90"
	printf "ts tid=100 pid=100 pc=0x%x cpu=1000000\n" $(( LIBC_BASE + 0x$a + 4 ))
	} >dbg.txt &&
	"$PROFILE_TOOL" build dbg.prof <dbg.txt &&
	run_status "$EXPORT" --format csv --symbols -o dbg.csv dbg.prof &&
	expect_eq "$libc,_itoa_word" "$(grep -v "^#" dbg.csv | tail -1 | awk -F, "{ print \$(NF-1) \",\" \$NF }")" "dso,symbol"
'

test_expect_success PERF 'pipe mode: same report as file mode' '
	"$EXPORT" --energy-rule end -o - p.prof | perf report -i - --stdio --sort symbol >pipe.txt 2>pipe.err &&
	expect_empty "$(cat pipe.err)" "stderr" &&
	diff <(without_tip report.txt) <(without_tip pipe.txt)
'

test_expect_success PERF 'a reused tid is a new thread for perf (FORK again after EXIT)' '
	{
	grep -v "^\(sample\|ts\|exit\|stats\|process pid=200\|thread tid=200\|exec pid=200\)" p.txt
	echo "sample time=1010000000 nthreads=2 values=90"
	echo "ts tid=100 pid=100 pc=$(head -1 libc-pc) cpu=1000000"
	echo "ts tid=101 pid=100 pc=$(head -1 libc-pc) cpu=1000000"
	echo "exit tid=101 pid=100 time=1015000000 whole=0"
	echo "thread tid=101 pid=100 time=1016000000"
	echo "sample time=1020000000 nthreads=2 values=90"
	echo "ts tid=100 pid=100 pc=$(head -1 libc-pc) cpu=2000000"
	echo "ts tid=101 pid=100 pc=$(head -1 libc-pc) cpu=500000"
	} >reuse.txt &&
	"$PROFILE_TOOL" build reuse.prof <reuse.txt &&
	run_status "$EXPORT" -o reuse.data reuse.prof 2>reuse.err &&
	perf script -i reuse.data --show-task-events -F comm,pid,tid,event >reuse-script.txt 2>reuse-script.err &&
	expect_empty "$(cat reuse-script.err)" "perf script stderr" &&
	expect_eq 2 "$(grep -c "PERF_RECORD_FORK(100:101):(100:100)" reuse-script.txt)" "FORKs of tid 101" &&
	expect_eq 1 "$(grep -c "PERF_RECORD_EXIT(100:101)" reuse-script.txt)" "EXITs of tid 101" &&
	expect_eq 4 "$(grep -c "^ *app .* 100/10[01] .*cpu-time:" reuse-script.txt)" "cpu-time samples named app"
'

# The original layout keeps no map offsets; its reader puts them back, so
# every consumer (perf.data, CSV, dump, the scripts) sees the same maps.
test_expect_success 'the same profile in the pperf layout: the reader restores the map offsets' '
	"$PROFILE_TOOL" build --format pperf p.pperf <p.txt &&
	"$PROFILE_TOOL" dump p.pperf >pperf-dump.txt &&
	grep "^map pid=100 .* prot=r-x path=$PWD/app\$" dump.txt | awk "{ print \$4, \$5, \$6 }" >native-maps &&
	grep "^map .* path=$PWD/app\$" pperf-dump.txt | awk "{ print \$4, \$5, \$6 }" >pperf-maps &&
	expect_eq 1 "$(grep -vc "pgoff=0x0\$" native-maps)" "executable maps of app with an offset" &&
	grep -xF -f native-maps pperf-maps >same &&
	diff -u native-maps same
'

test_expect_success PERF 'perf report and CSV of the pperf profile name the same functions' '
	"$EXPORT" -o pperf.data p.pperf &&
	perf report -i pperf.data --stdio --sort symbol >pperf-report.txt 2>pperf-report.err &&
	expect_empty "$(cat pperf-report.err)" "perf report stderr" &&
	for fn in work_x work_y; do
		expect_near "$(share report.txt cpu-time $fn)" "$(share pperf-report.txt cpu-time $fn)" 0.01 "cpu-time share of $fn" || exit 1
	done &&
	"$EXPORT" --format csv --symbols -o pperf.csv p.pperf &&
	expect_eq 100 "$(grep -c ",$PWD/app,work_x\$" pperf.csv)" "rows in work_x" &&
	expect_eq 100 "$(grep -c ",$PWD/app,work_y\$" pperf.csv)" "rows in work_y"
'

test_done
