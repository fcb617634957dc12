#!/bin/sh
# bench/report.sh - sampler-report on profiles of 1 and 10 million
# thread-samples (symbolization included): wall-clock seconds, CPU seconds
# (the exporter's included) and peak memory, without the result cache
# (median of 3 at 1 M, one run at 10 M) and cached; next to the reference,
# sampler-export to perf.data plus `perf report --stdio` on the 1 M profile,
# and the exporter alone writing the scripts' columns and the CSV.
# Prints, never asserts.  Targets (issue 10): 1 M <= 0.5 s uncached,
# 10 M <= 5 s with flat memory.  REPORT_BENCH_SAMPLES="1000000" runs fewer.
cd "$(dirname "$0")/.." || exit 1
BUILD=${BUILD:-build}
PY=/usr/bin/python3
SIZES=${REPORT_BENCH_SAMPLES:-1000000 10000000}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sampler-bench-report.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export XDG_CACHE_HOME=$tmp/cache SAMPLER_BIN_DIR=$PWD/$BUILD

if [ ! -x "$BUILD/bench/genprofile" ] || [ ! -x "$BUILD/sampler-export" ]; then
	echo "report: skipped ($BUILD/bench/genprofile or $BUILD/sampler-export not built; run make)"
	exit 0
fi

. bench/lib.sh	# measure

median3() {	# command...: the run of median wall-clock time of three
	{ measure "$@"; measure "$@"; measure "$@"; } | sort -n | sed -n 2p
}

row() {	# label "wall cpu mem"
	set -- "$1" $2
	printf '  %-46s %8s %8s %8s\n' "$1" "$2" "$3" "$4"
}

echo "report: sampler-report, seconds (wall, CPU of all processes) and peak MB"
printf '  %-46s %8s %8s %8s\n' "" "wall" "cpu" "MB"
for n in $SIZES; do
	"$BUILD/bench/genprofile" "$tmp/p$n" "$n" 2 >/dev/null || exit 1
	size=$(wc -c <"$tmp/p$n")
	if [ "$n" -le 2000000 ]; then
		cold=$(median3 $PY scripts/sampler-report --no-cache "$tmp/p$n")
	else
		cold=$(measure $PY scripts/sampler-report --no-cache "$tmp/p$n")
	fi
	$PY scripts/sampler-report "$tmp/p$n" >/dev/null	# fills the cache
	cached=$(median3 $PY scripts/sampler-report "$tmp/p$n")
	row "$n thread-samples ($size bytes), uncached" "$cold"
	row "$n thread-samples, cached" "$cached"
done
n=$(echo $SIZES | cut -d' ' -f1)
row "  sampler-export --format columns --symbols, $n" \
	"$(median3 "$BUILD/sampler-export" --format columns --symbols "$tmp/p$n" -o "$tmp/p.cols")"
row "  sampler-export --format csv --symbols, $n" \
	"$(median3 "$BUILD/sampler-export" --format csv --symbols "$tmp/p$n" -o "$tmp/p.csv")"
if command -v perf >/dev/null 2>&1; then
	"$BUILD/sampler-export" -o "$tmp/perf.data" "$tmp/p$n" >/dev/null 2>&1
	row "  reference: perf report --stdio, $n (1 run)" "$(measure perf report --stdio -i "$tmp/perf.data")"
fi
