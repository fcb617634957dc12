#!/bin/sh
# bench/export.sh - sampler-export speed and memory.  Prints, never asserts.
#   - perf.data export of 10 million thread-samples (4 threads, a RAPL energy
#     and a counter channel: 4 perf events), median of 3 runs, in
#     thread-samples per second (target >= 2 million/s, issue 4);
#   - peak RSS at 1 million and at 10 million thread-samples: streaming means
#     the two are about equal;
#   - CSV (with and without --symbols) on 1 million;
#   - the reference: `perf report --stdio` reading the 1-million export.
cd "$(dirname "$0")/.." || exit 1
BUILD=${BUILD:-build}
SMALL=${EXPORT_BENCH_SMALL:-1000000}
LARGE=${EXPORT_BENCH_LARGE:-10000000}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sampler-bench-export.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

if [ ! -x "$BUILD/bench/genprofile" ] || [ ! -x "$BUILD/sampler-export" ]; then
	echo "export: skipped ($BUILD/bench/genprofile or $BUILD/sampler-export not built; run make)"
	exit 0
fi
if [ ! -x /usr/bin/time ]; then
	echo "export: skipped (/usr/bin/time is missing: apt-get install time)"
	exit 0
fi
"$BUILD/bench/genprofile" "$tmp/small" "$SMALL" 4 >/dev/null || exit 1
"$BUILD/bench/genprofile" "$tmp/large" "$LARGE" 4 >/dev/null || exit 1

# "seconds max_rss_kb" of one run of "$@"
measure() {
	/usr/bin/time -f "%e %M" -o "$tmp/time" "$@" >/dev/null 2>"$tmp/err" || {
		echo "failed: $* ($(head -1 "$tmp/err"))" >&2
		echo "0 0"
		return
	}
	cat "$tmp/time"
}

# median seconds and max RSS of 3 runs
median3() {
	for i in 1 2 3; do measure "$@"; done |
		sort -n | awk 'NR == 2 { s = $1 } $2 > m { m = $2 } END { print s, m }'
}

rate() {	# thread-samples seconds
	awk -v n="$1" -v s="$2" 'BEGIN { if (s > 0) printf "%.2f million/s", n / s / 1e6; else print "n/a" }'
}

set -- $(median3 "$BUILD/sampler-export" -o "$tmp/large.data" "$tmp/large")
large_s=$1 large_rss=$2
out_mb=$(( $(stat -c %s "$tmp/large.data") / 1048576 ))
rm -f "$tmp/large.data"
set -- $(median3 "$BUILD/sampler-export" -o /dev/null "$tmp/large")
null_s=$1
set -- $(median3 "$BUILD/sampler-export" -o "$tmp/small.data" "$tmp/small")
small_s=$1 small_rss=$2

printf "%-44s %10s %16s %12s\n" "sampler-export" "seconds" "thread-samples/s" "peak RSS"
printf "%-44s %10s %16s %9s KB\n" "perf.data, $LARGE thread-samples ($out_mb MB)" "$large_s" \
	"$(rate "$LARGE" "$large_s")" "$large_rss"
printf "%-44s %10s %16s\n" "perf.data to /dev/null, $LARGE" "$null_s" "$(rate "$LARGE" "$null_s")"
printf "%-44s %10s %16s %9s KB\n" "perf.data, $SMALL thread-samples" "$small_s" \
	"$(rate "$SMALL" "$small_s")" "$small_rss"
set -- $(measure "$BUILD/sampler-export" --format csv -o "$tmp/small.csv" "$tmp/small")
printf "%-44s %10s %16s %9s KB\n" "csv, $SMALL" "$1" "$(rate "$SMALL" "$1")" "$2"
set -- $(measure "$BUILD/sampler-export" --format csv --symbols -o "$tmp/small.csv" "$tmp/small")
printf "%-44s %10s %16s %9s KB\n" "csv --symbols, $SMALL" "$1" "$(rate "$SMALL" "$1")" "$2"
echo "memory: peak RSS $small_rss KB at $SMALL vs $large_rss KB at $LARGE thread-samples (streaming: flat)"
if command -v perf >/dev/null 2>&1; then
	set -- $(measure perf report -i "$tmp/small.data" --stdio --sort symbol)
	printf "%-44s %10s %16s %9s KB\n" "reference: perf report of the $SMALL export" "$1" \
		"$(rate "$SMALL" "$1")" "$2"
fi
