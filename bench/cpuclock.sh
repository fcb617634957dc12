#!/bin/sh
# bench/cpuclock.sh - what the clock samples cost (sampler/cpuclock.h):
# the recorder with them (the default) beside --no-cpu-clock (as before
# them), with and without -g, on examples/bursts (a worker in short bursts
# and a spinning main thread) and 4 busy threads (examples/work), at 1 kHz.
# Per configuration, the median of 3 runs of:
#   Hz        achieved sampling rate
#   us/sample mean time a sample took (stops, reads, resume)
#   B/ts      profile bytes per thread-sample (clock samples included)
#   own ms    the sampler's own CPU time (it unwinds clock samples with -g)
# The load average is printed first: the figures mean something only on
# an otherwise idle machine.  Benchmarks print; they never fail.
cd "$(dirname "$0")/.." || exit 1
SAMPLER=build/sampler
RUNS=3
OUT=${TMPDIR:-/tmp}/sampler-bench-clock.$$
mkdir -p "$OUT" || exit 1
trap 'rm -rf "$OUT"' EXIT

. bench/lib.sh

# one LABEL OPTIONS -- COMMAND: the four medians
one() {
	label=$1 opts=$2
	shift 2
	for i in $(seq $RUNS); do
		$SAMPLER -d -f 1000 $opts -o "$OUT/p" -- "$@" >/dev/null 2>"$OUT/err"
		hz=$(sed -n 's/.*Hz target, \([0-9.]*\) Hz achieved.*/\1/p' "$OUT/err")
		lat=$(sed -n 's/.*s total, \([0-9.]*\) us per sample.*/\1/p' "$OUT/err")
		bpt=$(sed -n 's/.* bytes, \([0-9.]*\) bytes per thread-sample.*/\1/p' "$OUT/err")
		own=$(sed -n 's/.*own CPU time: \([0-9.]*\) s.*/\1/p' "$OUT/err")
		echo "$hz $lat $bpt $own"
	done >"$OUT/runs"
	printf "%-34s" "$label"
	for col in 1 2 3 4; do
		v=$(cut -d" " -f$col "$OUT/runs" | median)
		[ $col = 4 ] && v=$(awk -v s="$v" 'BEGIN { printf "%.0f", s * 1000 }')
		printf " %9s" "$v"
	done
	echo
}

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
printf "%-34s %9s %9s %9s %9s\n" configuration Hz us/sample B/ts "own ms"
for g in "" "-g"; do
	one "bursts $g --no-cpu-clock" "$g --no-cpu-clock" build/examples/bursts 1
	one "bursts $g" "$g" build/examples/bursts 1
	one "work 4 threads $g --no-cpu-clock" "$g --no-cpu-clock" build/examples/work 4 100
	one "work 4 threads $g" "$g" build/examples/work 4 100
done
