#!/bin/bash
# JIT frames named from perf's JIT interface, /tmp/perf-PID.map (node
# --perf-basic-prof, Java agents): examples/jitmap runs a loop in an
# anonymous executable mapping and names it there, as node does.  The CSV,
# folded stacks and the columns' symbols give its name (the DSO is the map
# file, as perf report names it); perf report of the export resolves it
# too (the mapping is written as //anon, which perf looks up in the file).
. "$(dirname "$0")/lib.sh"

NAME='LazyCompile:*hot_loop /srv/app.js:12'

test_lazy_prereq X86_64 '
	test "$(uname -m)" = x86_64 || { echo "examples/jitmap generates x86-64 code"; exit 1; }
'
test_have_prereq X86_64 || { skip_all="missing $test_missing_"; test_done; }

# csv_symbols CSV: "dso<TAB>symbol" of every sample row, %XX decoded.
csv_symbols() {
	/usr/bin/python3 -c '
import csv, sys, urllib.parse
rows = (l for l in open(sys.argv[1]) if not l.startswith("#"))
for r in csv.DictReader(rows):
    if r["kind"] == "sample":
        print(urllib.parse.unquote(r["dso"]) + "\t" + urllib.parse.unquote(r["symbol"]))' "$1"
}

test_atexit 'rm -f "$(cat "$TRASH/mapfile" 2>/dev/null)"'	# a JIT leaves it

test_expect_success 'setup: the JIT example recorded with -g; its perf map' '
	"$SAMPLER" -g -o p.prof -- "$EXAMPLES/jitmap" 0.4 >out 2>/dev/null &&
	map=$(sed -n "s/^pid=[0-9]* map=//p" out) &&
	echo "$map" >mapfile &&
	grep -qF " $NAME" "$map"
'

test_expect_success 'CSV: the JIT samples are named from the map' '
	"$EXPORT" --format csv --symbols p.prof >p.csv &&
	csv_symbols p.csv >symbols &&
	total=$(wc -l <symbols) &&
	jit=$(grep -cxF "$(cat mapfile)	$NAME" symbols) &&
	expect_ge $((total / 2)) "$jit" "samples named $NAME (of $total)" &&
	expect_le $((total / 10)) "$(grep -c "^\[unknown\]" symbols)" "samples in [unknown]"
'

# (the tables follow the binary frames: the first line of one need not
# start a line, so the lines are matched anywhere, -o)
test_expect_success 'folded and columns: the JIT frame has its name' '
	"$EXPORT" --format folded p.prof >p.folded &&
	total=$(awk "{ s += \$NF } END { print s + 0 }" p.folded) &&
	expect_ge $((total / 2)) "$(grep -F ";$NAME " p.folded | awk "{ s += \$NF } END { print s + 0 }")" \
		"folded samples ending in the JIT function (of $total)" &&
	"$EXPORT" --format columns --symbols -o p.cols p.prof &&
	grep -ao "# symbol id=[0-9]* .*" p.cols | sed "s/.* symbol=//" |
		/usr/bin/python3 -c "import sys, urllib.parse; [print(urllib.parse.unquote(l.rstrip())) for l in sys.stdin]" >colsyms &&
	grep -qxF "$NAME" colsyms
'

# perf resolves a PC by the maps at the sample's time, so its check uses a
# text profile whose anonymous mapping comes first (a recording under load
# may get its map records only after the samples).  The pid is that of a
# process of ours (sleep), so that its map file is ours to write.
test_expect_success PERF 'perf report of the export resolves the JIT frame as well' '
	sleep 300 & spid=$! &&
	test_when_finished "kill $spid; rm -f /tmp/perf-$spid.map" &&
	printf "7f0000001000 40 %s\n7f0000001040 40 other\n" "$NAME" >/tmp/perf-$spid.map &&
	{
	echo "host hostname=fixture os_release=6.1.0 os_version=%231 arch=x86_64 cpu_desc=CPU cpu_id=x nr_cpus_online=2 nr_cpus_avail=2 total_mem_kb=2048000 sampler_version=0.1.0 cmdline=sampler realtime_ns=1700000000000000000 monotonic_ns=1000000000 start_ns=1000000000 target_hz=100"
	echo "process pid=$spid ppid=0 time=1000000000"
	echo "exec pid=$spid time=1000000000 comm=node argv=node"
	echo "thread tid=$spid pid=$spid time=1000000000"
	echo "map pid=$spid time=1000000000 start=0x7f0000001000 len=0x1000 pgoff=0x0 dev=00:00 inode=0 prot=rwx path="
	for i in 1 2 3 4; do
		echo "sample time=10${i}0000000 nthreads=1"
		echo "ts tid=$spid pid=$spid pc=0x7f0000001010 cpu=${i}000000"
	done
	echo "stats wall=40000000 latency=0 samples=4 thread_samples=4 missed=0 missing=0 signals=0 threads=1 processes=1 exit=0 totals="
	} >f.txt &&
	"$BUILD/sampler-profile" build f.prof <f.txt &&
	"$EXPORT" -o f.data f.prof &&
	perf report -i f.data --stdio --no-children --sort dso,symbol -g none >report 2>/dev/null &&
	grep -qF "[.] $NAME" report &&
	"$EXPORT" --format folded --weight samples f.prof >f.folded &&
	expect_eq "node;$NAME 4" "$(cat f.folded)" "folded"
'

test_expect_success 'without the map file the frame is [unknown] (the names come from it)' '
	mv "$(cat mapfile)" saved.map &&
	"$EXPORT" --format csv --symbols p.prof >nomap.csv &&
	mv saved.map "$(cat mapfile)" &&
	csv_symbols nomap.csv >nomap &&
	expect_eq 0 "$(grep -cF "$NAME" nomap)" "samples named without the map"
'

test_done
