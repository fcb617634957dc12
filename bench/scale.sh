#!/bin/sh
# bench/scale.sh - the engine at scale (issue 14, docs/SCALING.md).
#
# Rows, each from REPS (default 5) interleaved repetitions: every
# repetition runs the workload alone, under each sampler configuration and
# under perf record, one after the other, so that the VM's drift in speed
# (up to 2x within minutes) hits every configuration alike.  Per row:
#   Hz        achieved rate (median [min-max])
#   us/samp   mean time the target was held per sample (median [min-max])
#   slowdown  runtime / the same repetition's runtime alone (median [min-max])
#   cpu       the target's own CPU time, user + system (median): time held
#             stopped shows in the runtime, interference in the CPU time
#   stops     threads stopped per sample (median)
# Rows: the bare ptrace floor (bench/ptfloor) and the detectors' cost per
# thread (bench/detect); one busy thread at 1 and 10 kHz; 4 busy + N
# blocked threads (N = 0, 60, 250) at 1 kHz, and N = 60 with call stacks
# (-g); 16 and 64 busy threads as root, as uid 65534, and as uid 65534
# with kernel.perf_event_paranoid set to 1 for the run (bench/with-paranoid:
# the switch samples an unprivileged user gets where the kernel allows
# them); 512 busy threads as root.  Rows with --carry-preempted and
# --tracers auto (one tracing thread per CPU) beside the
# default where it matters (docs/SCALING.md).  The load average is printed first: on a loaded
# machine, compare within a block only.  Benchmarks print, never fail.
cd "$(dirname "$0")/.." || exit 1
SAMPLER=build/sampler
EX=build/examples
REPS=${REPS:-5}
OUT=${TMPDIR:-/tmp}/sampler-scale.$$
mkdir -p "$OUT" || exit 1
trap 'rm -rf "$OUT"' EXIT
NOBODY="setpriv --reuid=65534 --regid=65534 --clear-groups --"

if [ ! -x $SAMPLER ] || [ ! -x build/bench/ptfloor ]; then
	echo "build first: make"
	exit 1
fi
have_perf=1
perf record -o "$OUT/probe" -- true >/dev/null 2>&1 || have_perf=0
as_nobody=0
[ "$(id -u)" = 0 ] && $NOBODY test -x $SAMPLER -a -x $EX/work && as_nobody=1

# stat FILE: "median min max" of a column of numbers
stat3() {
	sort -n "$1" | awk '{ v[NR] = $1 } END {
		if (!NR) { print "- - -"; exit }
		print v[int((NR + 1) / 2)], v[1], v[NR] }'
}

val() {	# FILE KEY: a key=value of the workload's output
	sed -n "s/^$2=//p" "$1"
}

# one LABEL REP CMD...: run the workload (under whatever CMD says) and
# append "hz lat runtime cpu stops_per_sample" to $OUT/LABEL
one() {
	label=$1
	shift
	"$@" >"$OUT/o" 2>"$OUT/e"
	rt=$(val "$OUT/o" runtime_s) cpu=$(val "$OUT/o" cpu_s)
	hz=$(sed -n 's/.*Hz target, \([0-9.]*\) Hz achieved.*/\1/p' "$OUT/e")
	lat=$(sed -n 's/.*s total, \([0-9.]*\) us per sample.*/\1/p' "$OUT/e")
	samples=$(sed -n 's/^sampler: samples: \([0-9]*\) actual.*/\1/p' "$OUT/e")
	stops=$(sed -n 's/^sampler: stops: \([0-9]*\) threads stopped.*/\1/p' "$OUT/e")
	perfs=$(sed -n 's/.*(\([0-9]*\) samples).*/\1/p' "$OUT/e")
	[ -n "$perfs" ] && hz=$(awk -v s="$perfs" -v t="$rt" 'BEGIN { if (t > 0) printf "%.1f", s / t }')
	sps=$(awk -v a="$stops" -v s="$samples" 'BEGIN { if (s > 0) printf "%.1f", a / s; else print "-" }')
	echo "${hz:--} ${lat:--} ${rt:--} ${cpu:--} $sps" >>"$OUT/$label"
}

col() {	# LABEL COLUMN -> file of that column
	awk -v c="$2" '$c != "-" { print $c }' "$OUT/$1" >"$OUT/col"
	stat3 "$OUT/col"
}

# ratio LABEL: per-repetition runtime / alone runtime
ratio() {
	paste -d" " "$OUT/$1" "$OUT/alone" | awk '$8 > 0 && $3 != "-" { printf "%.3f\n", $3 / $8 }' >"$OUT/col"
	stat3 "$OUT/col"
}

row() {	# LABEL (as in the files)
	set -- "$1" $(col "$1" 1) $(col "$1" 2) $(ratio "$1") $(col "$1" 4) $(col "$1" 5)
	printf "  %-34s %7s [%s-%s] %8s [%s-%s] %6sx [%s-%s] %6s %5s\n" \
		"$1" "$2" "$3" "$4" "$5" "$6" "$7" "$8" "$9" "${10}" "${11}" "${14}"
}

header() {
	printf "  %-34s %s\n" "configuration" "Hz [min-max]   us/sample [min-max]   slowdown [min-max]   cpu_s  stops/sample"
}

# block "TITLE" "WORKLOAD ARGS" HZ "LABEL|PREFIX|OPTIONS"...
block() {
	title=$1 work=$2 freq=$3
	shift 3
	rm -f "$OUT"/cfg.* "$OUT/alone" "$OUT/perf"
	for r in $(seq "$REPS"); do
		one alone $work
		i=0
		for c in "$@"; do
			i=$((i + 1))
			prefix=$(echo "$c" | cut -d"|" -f2) opts=$(echo "$c" | cut -d"|" -f3)
			one cfg.$i $prefix $SAMPLER -d -f "$freq" $opts -- $work
		done
		[ $have_perf = 1 ] && one perf perf record -F "$freq" -o "$OUT/perf.data" -- $work
	done
	echo "$title ($REPS interleaved repetitions; alone: $(col alone 3 | awk '{ print $1 " s, cpu " }')$(col alone 4 | awk '{ print $1 " s" }'))"
	header
	i=0
	for c in "$@"; do
		i=$((i + 1))
		mv "$OUT/cfg.$i" "$OUT/$(echo "$c" | cut -d"|" -f1)"
		row "$(echo "$c" | cut -d"|" -f1)"
	done
	[ $have_perf = 1 ] && row perf
}

echo "engine at scale; $(nproc) CPUs; $(uname -r); load average $(cut -d" " -f1-3 /proc/loadavg)"
echo "--- bare ptrace floor (one busy thread: interrupt, wait, GETREGSET, CONT once per ms)"
build/bench/ptfloor 1000 | sed 's/^/  /'
echo "--- has the thread run? cost per thread per look, ns (250 blocked threads)"
build/bench/detect 250 200 | sed 's/^/  /'

D="default||"
S="--stop-all||--stop-all"
C="--carry-preempted||--carry-preempted"
A="--cpu auto --carry-preempted||--cpu auto --carry-preempted"
T="--tracers auto||--tracers auto"
CT="--carry-preempted --tracers auto||--carry-preempted --tracers auto"
block "1 busy thread at 1 kHz" "$EX/work 1 150" 1000 "$D" "--no-realtime --no-latency-qos||--no-realtime --no-latency-qos" "--cpu auto||--cpu auto" "$A"
block "1 busy thread at 10 kHz" "$EX/work 1 150" 10000 "$D" "--no-realtime --no-latency-qos||--no-realtime --no-latency-qos" "--cpu auto||--cpu auto" "$A"
for n in 0 60 250; do
	block "4 busy + $n blocked threads at 1 kHz" "$EX/blocked 4 $n 40" 1000 "$D" "$C" "$S"
done
block "4 busy + 60 blocked threads at 1 kHz, call stacks" "$EX/blocked 4 60 40" 1000 "-g||-g" "-g --stop-all||-g --stop-all"
for n in 16 64; do
	units=$(awk -v n=$n 'BEGIN { printf "%.2f", 300 / n }')
	if [ $as_nobody = 1 ]; then
		block "$n busy threads at 1 kHz" "$EX/work $n $units" 1000 "$D" "$C" "$T" "$CT" "uid 65534|$NOBODY|" \
			"uid 65534, paranoid 1, --carry-preempted|bench/with-paranoid 1 $NOBODY|--carry-preempted"
	else
		block "$n busy threads at 1 kHz" "$EX/work $n $units" 1000 "$D" "$C" "$T" "$CT"
	fi
done
# threads: 512 spinning together for 1 s (work's short threads would end
# one by one within a slice each); its runtime is fixed, so no slowdown
block "512 busy threads at 1 kHz" "$EX/threads 512 1" 1000 "$D" "$C" "$T" "$CT"
