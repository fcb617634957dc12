#!/bin/sh
# bench/report.sh - sampler-report on a profile of one million thread-samples
# (symbolization included), median of 3 runs: without the result cache, and
# the cached second run; next to the reference, sampler-export to perf.data
# plus `perf report --stdio` on the same profile.  Prints, never asserts.
# Targets (issue 5): < 5 s uncached, < 2 s cached.
cd "$(dirname "$0")/.." || exit 1
BUILD=${BUILD:-build}
PY=/usr/bin/python3
N=${REPORT_BENCH_SAMPLES:-1000000}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sampler-bench-report.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export XDG_CACHE_HOME=$tmp/cache SAMPLER_BIN_DIR=$PWD/$BUILD

if [ ! -x "$BUILD/bench/genprofile" ] || [ ! -x "$BUILD/sampler-export" ]; then
	echo "report: skipped ($BUILD/bench/genprofile or $BUILD/sampler-export not built; run make)"
	exit 0
fi
"$BUILD/bench/genprofile" "$tmp/p" "$N" 2 >/dev/null || exit 1

# seconds of wall-clock time of one run of "$@" (output discarded)
seconds() {
	$PY -c 'import subprocess, sys, time
t = time.monotonic()
r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL)
print("%.3f" % (time.monotonic() - t) if r.returncode == 0 else "failed")' "$@"
}

median3() {	# command...: median of three timings
	a=$(seconds "$@"); b=$(seconds "$@"); c=$(seconds "$@")
	printf '%s\n%s\n%s\n' "$a" "$b" "$c" | sort -n | sed -n 2p
}

uncached=$(median3 scripts/sampler-report --no-cache "$tmp/p")
scripts/sampler-report "$tmp/p" >/dev/null	# fills the cache
cached=$(median3 scripts/sampler-report "$tmp/p")
export_csv=$(median3 "$BUILD/sampler-export" --format csv --symbols "$tmp/p" -o "$tmp/p.csv")
if command -v perf >/dev/null 2>&1; then
	"$BUILD/sampler-export" -o "$tmp/perf.data" "$tmp/p" >/dev/null 2>&1
	perf_report=$(seconds perf report --stdio -i "$tmp/perf.data")
else
	perf_report="(perf not installed)"
fi
size=$(wc -c <"$tmp/p")
echo "report: profile of $N thread-samples ($size bytes), median of 3 runs, seconds"
printf '  %-50s %8s   %s\n' "sampler-report (export+symbols+aggregate)" "$uncached" "target < 5"
printf '  %-50s %8s   %s\n' "sampler-report, cached second run" "$cached" "target < 2"
printf '  %-50s %8s\n' "  of which sampler-export --format csv --symbols" "$export_csv"
printf '  %-50s %8s   %s\n' "reference: perf report --stdio on perf.data" "$perf_report" "(1 run)"
