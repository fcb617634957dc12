#!/bin/sh
# bench/job-export.sh - a job's profiles to one perf.data (issue 45).
# Prints, never asserts:
#   - sampler-export of 100 / 1,000 / 10,000 ranks (copies of one -g
#     demo-workload profile, each with its own rank: tests/fakes/
#     rank-copies.py) to one perf.data: seconds and peak RSS;
#   - one profile of 20,000 and 200,000 short processes, each its own
#     binary (tests/fakes/many-processes.py), to perf.data.
# JOB_BENCH_RANKS and JOB_BENCH_PROCESSES change the sizes.
cd "$(dirname "$0")/.." || exit 1
BUILD=${BUILD:-build}
RANKS=${JOB_BENCH_RANKS:-100 1000 10000}
PROCESSES=${JOB_BENCH_PROCESSES:-20000 200000}
PY=/usr/bin/python3
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sampler-bench-job.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

if [ ! -x "$BUILD/sampler-export" ] || [ ! -x "$BUILD/examples/demo-workload" ]; then
	echo "job-export: skipped ($BUILD/sampler-export or the examples not built; run make)"
	exit 0
fi
if [ ! -x /usr/bin/time ]; then
	echo "job-export: skipped (/usr/bin/time is missing: apt-get install time)"
	exit 0
fi

. bench/lib.sh	# measure

# "seconds  MB" of one run of "$@"
seconds_mb() {
	measure "$@" | awk '{ printf "%s s  %s MB", $1, $3 }'
}

"$BUILD/sampler" -g -o "$tmp/base.prof" -- "$BUILD/examples/demo-workload" >/dev/null 2>&1 || exit 1
"$BUILD/sampler-profile" dump "$tmp/base.prof" >"$tmp/base.txt" || exit 1
sed "1,/^host/s/ rank=[^ ]*/ rank=9876543/" "$tmp/base.txt" |
	"$BUILD/sampler-profile" build "$tmp/mark.prof" || exit 1
echo "job: sampler-export of N ranks to one perf.data ($(grep -c "^ts " "$tmp/base.txt") thread-samples per rank, -g)"
for n in $RANKS; do
	rm -rf "$tmp/ranks" && mkdir "$tmp/ranks" &&
		$PY tests/fakes/rank-copies.py "$tmp/mark.prof" "$n" "$tmp/ranks" || exit 1
	printf "  %6d ranks  %s\n" "$n" "$(seconds_mb "$BUILD/sampler-export" -o "$tmp/job.data" "$tmp"/ranks/app.*.prof)"
	rm -rf "$tmp/ranks" "$tmp/job.data"
done
echo "job: sampler-export of one profile of N processes, each its own binary"
for n in $PROCESSES; do
	$PY tests/fakes/many-processes.py "$tmp/base.txt" "$n" |
		"$BUILD/sampler-profile" build "$tmp/many.prof" || exit 1
	printf "  %6d processes  %s\n" "$n" "$(seconds_mb "$BUILD/sampler-export" -o "$tmp/many.data" "$tmp/many.prof")"
	rm -f "$tmp/many.prof" "$tmp/many.data"
done
