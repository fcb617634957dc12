#!/bin/sh
# bench/top.sh - sampler top --stdio against sampler -o (recording alone).
#
# For 1, 4 and 16 busy threads at 1 kHz (build/examples/work, a fixed
# amount of work split over the threads) this prints, as the median of 3
# runs each: the achieved sampling rate, the mean time the target was held
# stopped per sample, the workload's slowdown (its runtime under the tool /
# alone), and for sampler top the view's own CPU time per refresh (reading
# the stream, symbolizing, formatting: sampler top -d).  The view runs in
# its own process, so the first three columns should match recording
# alone: "Hz vs -o" is sampler top's rate in % of recording alone's, "slow
# vs -o" how much longer the workload ran under sampler top than under
# sampler -o (the issue's goal: within 5%).  The figures only mean something
# on an otherwise idle machine: the load average is printed first.
# Benchmarks print; they never fail.
cd "$(dirname "$0")/.." || exit 1
SAMPLER=build/sampler
WORK=build/examples/work
TOTAL=600		# million work units, split over the threads (~1 s)
RUNS=3
OUT=${TMPDIR:-/tmp}/sampler-bench-top.$$
mkdir -p "$OUT" || exit 1
trap 'rm -rf "$OUT"' EXIT

. bench/lib.sh

# runs N UNITS LABEL CMD...: "hz lat runtime view_ms" lines into $OUT/LABEL
runs() {
	n=$1 units=$2 label=$3
	shift 3
	for i in $(seq $RUNS); do
		"$@" -- $WORK "$n" "$units" >"$OUT/out" 2>"$OUT/err"
		hz=$(sed -n 's/.*Hz target, \([0-9.]*\) Hz achieved.*/\1/p' "$OUT/err")
		lat=$(sed -n 's/.*s total, \([0-9.]*\) us per sample.*/\1/p' "$OUT/err")
		# with sampler top the command's stdout goes to stderr (-o -)
		rt=$(cat "$OUT/out" "$OUT/err" | sed -n 's/^runtime_s=//p')
		view=$(sed -n 's/.*view: .* \([0-9.]*\) ms CPU per refresh/\1/p' "$OUT/err")
		echo "$hz $lat $rt ${view:--}"
	done >"$OUT/$label"
}

col() {	# file column
	awk -v c="$2" '{ print $c }' "$1" | median
}

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) (figures under load mean little)"
printf "  %-22s %3s  %9s  %9s  %8s  %10s  %10s  %15s\n" "" "thr" "Hz" "us/sample" "slowdown" \
	"Hz vs -o" "slow vs -o" "view ms/refresh"
for n in 1 4 16; do
	units=$((TOTAL / n))
	alone=$(for i in $(seq $RUNS); do $WORK $n $units | sed -n 's/^runtime_s=//p'; done | median)
	runs $n $units rec $SAMPLER -d -f 1000 -o "$OUT/prof"
	runs $n $units top $SAMPLER top --stdio -d -f 1000
	rec_hz=$(col "$OUT/rec" 1) rec_rt=$(col "$OUT/rec" 3)
	for l in rec top; do
		awk -v l="$l" -v n="$n" -v hz="$(col "$OUT/$l" 1)" -v lat="$(col "$OUT/$l" 2)" \
			-v rt="$(col "$OUT/$l" 3)" -v a="$alone" -v v="$(col "$OUT/$l" 4)" \
			-v rhz="$rec_hz" -v rrt="$rec_rt" 'BEGIN {
			name = l == "rec" ? "sampler -o" : "sampler top --stdio"
			slow = a > 0 && rt != "-" ? sprintf("%.3fx", rt / a) : "-"
			# the view against recording alone: 100% is no cost
			vhz = l == "top" && rhz > 0 ? sprintf("%.1f%%", 100 * hz / rhz) : ""
			vrt = l == "top" && rrt > 0 ? sprintf("%+.1f%%", 100 * (rt / rrt - 1)) : ""
			printf "  %-22s %3d  %9s  %9s  %8s  %10s  %10s  %15s\n", name, n, hz, lat, slow,
				vhz, vrt, l == "rec" ? "" : v
		}'
	done
done
