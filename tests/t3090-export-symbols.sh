#!/bin/bash
# The C symbolizer (CSV --symbols) names every sample as perf report does
# the export (issue 10 §3): perf's rules for labels and symbols without a
# size (ld.so's _start reaches to the next symbol) and its NAME@plt stubs.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/export-lib.sh"
. "$ROOT/tests/recorder-lib.sh"

PROFILE_TOOL=$BUILD/sampler-profile

# "tid pc symbol" per thread-sample, sorted; an address without a symbol is
# [unknown] (perf prints no address there) and perf's PLT names differ
# between its versions, so a stub is just @plt.
csv_names() {	# csv
	grep -v "^#" "$1" | tail -n +2 | awk -F, '$4 == "sample" {
		s = $NF; if (s ~ /^0x[0-9a-f]+$/) s = "[unknown]"; if (s ~ /@plt$/) s = "@plt"
		pc = $5; sub(/^0x/, "", pc); print $3, pc, s }' | sort
}

perf_names() {	# perf.data: the same from perf script, one line per wall-time sample
	perf script -i "$1" -F tid,ip,sym,event 2>/dev/null | awk '$2 == "wall-time:" {
		s = $4; for (i = 5; i <= NF; i++) s = s " " $i
		if (s == "") s = "[unknown]"; if (s ~ /@plt$/) s = "@plt"
		print $1, $3, s }' | sort
}

LDSO=$(readlink -f "$(readelf -lW /bin/sh | sed -n "s/.*interpreter: \(.*\)]/\1/p")")
LIBC=$(readlink -f "$(ldd /bin/sh | awk "/libc.so/ { print \$3 }")")
LDSO_BASE=0x7f1000000000
LIBC_BASE=0x7f2000000000

test_expect_success PERF 'a profile with PCs at ld.so'"'"'s entry (_start, a label without a size) and in PLT stubs' '
	entry=$(readelf -hW "$LDSO" | awk "/Entry point address/ { print \$NF }") &&
	stub=$(objdump -d -j .plt "$LIBC" | awk "/^[0-9a-f]+ <.*@plt>:\$/ { print \$1; exit }") &&
	test -n "$entry" && test -n "$stub" &&
	echo "# ld.so $LDSO entry $entry; libc $LIBC first PLT stub 0x$stub" &&
	{
	echo "host hostname=fixture os_release=6.1.0-fix os_version=%231 arch=x86_64 cpu_desc=CPU cpu_id=x nr_cpus_online=1 nr_cpus_avail=1 total_mem_kb=1 sampler_version=0.1.0 cmdline=sampler realtime_ns=1700000000000000000 monotonic_ns=1000000000 start_ns=1000000000 target_hz=100"
	echo "process pid=100 ppid=0 time=1000000000"
	echo "exec pid=100 time=1000000000 comm=app argv=./app"
	echo "thread tid=100 pid=100 time=1000000000"
	map_lines 100 "$LDSO" $LDSO_BASE
	map_lines 100 "$LIBC" $LIBC_BASE
	n=0
	for pc in $(( LDSO_BASE + entry )) $(( LDSO_BASE + entry + 4 )) $(( LIBC_BASE + 0x$stub + 6 )); do
		n=$((n + 1))
		echo "sample time=$((1000000000 + n * 10000000)) nthreads=1 values="
		printf "ts tid=100 pid=100 pc=0x%x cpu=%d\n" $pc $((n * 1000000))
	done
	echo "stats wall=30000000 latency=0 samples=3 thread_samples=3 missed=0 missing=0 signals=0 threads=1 processes=1 exit=0 totals="
	} >fix.txt &&
	"$PROFILE_TOOL" build fix.prof <fix.txt &&
	"$EXPORT" --format csv --symbols -o fix.csv fix.prof &&
	"$EXPORT" -o fix.data fix.prof &&
	csv_names fix.csv >ours &&
	perf_names fix.data >perfs &&
	cat ours &&
	expect_eq 3 "$(wc -l <perfs)" "samples perf shows" &&
	diff perfs ours
'

# ld.so keeps its local symbols in the debug file (libc6-dbg); without it
# neither perf nor the exporter can name _start.
test_expect_success PERF,LIBC_DEBUG 'ld.so'"'"'s _start is named, from its entry to the next symbol' '
	expect_eq 2 "$(grep -c " _start\$" ours)" "samples named _start" &&
	expect_eq 1 "$(grep -c " @plt\$" ours)" "samples in a PLT stub"
'

test_expect_success PERF 'the demo: every thread-sample gets the name perf report gives it' '
	"$SAMPLER" -f 2000 -o demo.prof -- "$EXAMPLES/demo-workload" 1 >demo.out &&
	"$EXPORT" --format csv --symbols -o demo.csv demo.prof &&
	"$EXPORT" -o demo.data demo.prof &&
	csv_names demo.csv >ours.demo &&
	perf_names demo.data >perf.demo &&
	expect_ge "$(min_samples 1)" "$(wc -l <ours.demo)" "thread-samples (MIN_HZ: the rate depends on the load)" &&
	for f in sort_array integrate hash_strings; do
		expect_ge 1 "$(grep -c " $f\$" ours.demo)" "samples in $f" || exit 1
	done &&
	diff perf.demo ours.demo
'

# A JIT's code mapped where ld.so.cache was read (the loader unmaps it, the
# JIT's anonymous mapping takes the address) while the recorder's maps still
# hold the cache: the sampled PC and its caller lie in no executable
# mapping and are unknown, as perf shows them, not "[ld.so.cache]".
test_expect_success 'a PC in a mapping that is not executable is [unknown], in CSV, columns and folded' '
	{
	echo "format name=native compressed=0 stacks=1"
	echo "host hostname=fixture os_release=6.1.0-fix os_version=%231 arch=x86_64 cpu_desc=CPU cpu_id=x nr_cpus_online=1 nr_cpus_avail=1 total_mem_kb=1 sampler_version=0.1.0 cmdline=sampler realtime_ns=1700000000000000000 monotonic_ns=1000000000 start_ns=1000000000 target_hz=100"
	echo "process pid=100 ppid=0 time=1000000000"
	echo "exec pid=100 time=1000000000 comm=jit argv=./jit"
	echo "thread tid=100 pid=100 time=1000000000"
	map_lines 100 "$LIBC" $LIBC_BASE
	echo "map pid=100 time=1000000000 start=0x7f3000000000 len=0x10000 pgoff=0x0 dev=08:01 inode=5 prot=r-- path=/etc/ld.so.cache"
	echo "sample time=1010000000 nthreads=1 values="
	printf "ts tid=100 pid=100 pc=0x7f3000000100 cpu=1000000 stack=0x7f3000000200,0x%x stack_end=unknown-map\n" $((LIBC_BASE + 0x1000))
	echo "stats wall=10000000 latency=0 samples=1 thread_samples=1 missed=0 missing=0 signals=0 threads=1 processes=1 exit=0 totals="
	} >jit.txt &&
	"$PROFILE_TOOL" build jit.prof <jit.txt &&
	"$EXPORT" --format folded --weight samples jit.prof >jit.folded &&
	cat jit.folded &&
	expect_grep "^jit;\[truncated: unknown-map\];[^;]*;\[unknown\];\[unknown\] 1\$" jit.folded &&
	"$EXPORT" --format csv --symbols jit.prof | grep -v "^#" | tail -n 1 >jit.row &&
	expect_grep ",\[unknown\],[^,]*,\[truncated:%20unknown-map\];[^;]*;\[unknown\];\[unknown\]\$" jit.row &&
	"$EXPORT" --format columns --symbols -o jit.cols jit.prof &&
	expect_no_grep "ld.so.cache" jit.cols
'

test_done
