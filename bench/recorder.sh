#!/bin/sh
# bench/recorder.sh - the recorder against `perf record` on busy threads.
#
# For 1, 4, 16 and 64 busy threads at 1 kHz (build/examples/work: a fixed
# amount of work split over the threads; it prints its own runtime) this
# prints, as the median of 3 runs each:
#   Hz        achieved sampling rate.  sampler: samples / wall time (every
#             sample holds every thread).  perf: samples / (wall time x busy
#             CPUs) - perf samples each CPU's running thread on its own
#             cpu-clock timer, so this is its rate per CPU; the comparable
#             figure (one snapshot of all threads) does not exist for perf.
#   us/sample mean time the target was held stopped per sample (sampler only;
#             perf does not stop the target).
#   slowdown  the workload's runtime under the profiler / its runtime alone.
# Configurations: the default (as root: SCHED_FIFO 50 and a CPU latency
# request of 0), SCHED_FIFO alone (--no-latency-qos), --no-realtime
# --no-latency-qos ("normal priority, no QoS"), and as root also runs as
# uid 65534 (what an ordinary user gets): plain, --nice 19 and --idle.
# The figures only mean something on an otherwise idle machine: the load
# average is printed first.  Benchmarks print; they never fail.
cd "$(dirname "$0")/.." || exit 1
SAMPLER=build/sampler
WORK=build/examples/work
TOTAL=300		# million work units, split over the threads (~0.5 s)
RUNS=3
OUT=${TMPDIR:-/tmp}/sampler-bench.$$
mkdir -p "$OUT" || exit 1
trap 'rm -rf "$OUT"' EXIT
NCPU=$(nproc)
NOBODY="setpriv --reuid=65534 --regid=65534 --clear-groups --"

. bench/lib.sh

# sampler_runs THREADS UNITS LABEL "PREFIX" "OPTIONS": "hz lat runtime" lines
# into $OUT/LABEL (PREFIX runs the sampler, e.g. as another user).
sampler_runs() {
	for i in $(seq $RUNS); do
		$4 $SAMPLER -d -f 1000 $5 -- $WORK "$1" "$2" >"$OUT/out" 2>"$OUT/err"
		hz=$(sed -n 's/.*Hz target, \([0-9.]*\) Hz achieved.*/\1/p' "$OUT/err")
		lat=$(sed -n 's/.*s total, \([0-9.]*\) us per sample.*/\1/p' "$OUT/err")
		echo "$hz $lat $(runtime "$OUT/out")"
	done >"$OUT/$3"
}

perf_runs() {	# THREADS UNITS
	for i in $(seq $RUNS); do
		perf record -F 1000 -o "$OUT/perf.data" -- $WORK "$1" "$2" >"$OUT/out" 2>"$OUT/err"
		samples=$(sed -n 's/.*(\([0-9]*\) samples).*/\1/p' "$OUT/err")
		rt=$(runtime "$OUT/out")
		busy=$(( $1 < NCPU ? $1 : NCPU ))
		hz=$(awk -v s="$samples" -v t="$rt" -v b="$busy" 'BEGIN { if (t > 0) printf "%.1f", s / t / b }')
		echo "$hz - $rt"
	done >"$OUT/perf"
}

alone_runs() {	# THREADS UNITS
	for i in $(seq $RUNS); do
		$WORK "$1" "$2" | sed -n 's/^runtime_s=//p'
	done | median
}

col() {	# file column
	awk -v c="$2" '{ print $c }' "$1" | median
}

row() {	# label threads file alone target_pct
	hz=$(col "$3" 1) lat=$(col "$3" 2) rt=$(col "$3" 3)
	awk -v l="$1" -v n="$2" -v hz="$hz" -v lat="$lat" -v rt="$rt" -v a="$4" '
	BEGIN {
		slow = (a > 0 && rt != "-") ? sprintf("%.3fx", rt / a) : "-"
		pct = hz != "-" && hz != "" ? sprintf("%5.1f%%", hz / 10) : "-"
		printf "  %-34s %3d  %9s %7s  %9s  %8s\n", l, n, hz, pct, lat, slow
	}'
}

config() {	# LABEL "PREFIX" "OPTIONS": one row for $n threads
	sampler_runs $n $units runs "$2" "$3"
	row "$1" $n "$OUT/runs" "$alone"
}

if [ ! -x $SAMPLER ] || [ ! -x $WORK ]; then
	echo "build first: make"
	exit 1
fi
have_perf=1
as_nobody=0
if [ "$(id -u)" = 0 ]; then
	if $NOBODY test -x $SAMPLER -a -x $WORK; then
		as_nobody=1
	else
		echo "(no runs as uid 65534: it cannot reach $(pwd)/build; clone into a directory others may enter)"
	fi
fi
perf record -o "$OUT/probe" -- true >/dev/null 2>&1 || have_perf=0

echo "recorder at 1 kHz, medians of $RUNS runs; $NCPU CPUs; $(uname -r); load average $(cut -d" " -f1-3 /proc/loadavg)"
echo "targets: >= 98% of 1000 Hz for 1-4 threads, >= 90% at 16, >= 70% at 64;"
echo "         <= 30 us/sample for one thread; single-thread slowdown <= 1.15x"
printf "  %-34s %3s  %9s %7s  %9s  %8s\n" "profiler" "thr" "Hz" "" "us/sample" "slowdown"
for n in 1 4 16 64; do
	units=$(awk -v t=$TOTAL -v n=$n 'BEGIN { printf "%.3f", t / n }')
	alone=$(alone_runs $n $units)
	config "sampler (default)" "" ""
	config "sampler --no-latency-qos" "" "--no-latency-qos"
	config "sampler, normal priority, no QoS" "" "--no-realtime --no-latency-qos"
	if [ $as_nobody = 1 ]; then
		config "sampler as uid 65534" "$NOBODY" ""
		config "sampler as uid 65534, --nice 19" "$NOBODY" "--nice 19"
		config "sampler as uid 65534, --idle" "$NOBODY" "--idle"
	fi
	if [ $have_perf = 1 ]; then
		perf_runs $n $units
		row "perf record -F 1000 (per CPU)" $n "$OUT/perf" "$alone"
	fi
	echo "  alone: $alone s"
done
