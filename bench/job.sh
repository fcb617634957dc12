#!/bin/sh
# bench/job.sh - the "job" table: sampler-report on the profiles of a job
# of 100, 1,000 and 10,000 ranks (copies of one -g profile of
# demo-workload, each given its own rank through sampler-profile dump and
# build) and on one profile of 20,000 processes (a loop of /bin/true):
# wall-clock and CPU seconds (children included) and peak MB of --by rank,
# --tree --by rank, and --by rank as an MPI program of 2 processes
# (mpirun -np 2; left out without mpirun or mpi4py).  Without the result
# cache.  Prints, never asserts.  Targets (issue 45): 10,000 ranks <= 10 s
# (--by rank), <= 15 s (--tree); 20,000 processes <= 3 s.
# JOB_BENCH_RANKS="100 1000" runs fewer; JOB_BENCH_PROCS=0 skips the loop.
cd "$(dirname "$0")/.." || exit 1
BUILD=${BUILD:-build}
PY=/usr/bin/python3
RANKS=${JOB_BENCH_RANKS:-100 1000 10000}
PROCS=${JOB_BENCH_PROCS:-20000}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sampler-bench-job.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export XDG_CACHE_HOME=$tmp/cache SAMPLER_BIN_DIR=$PWD/$BUILD

if [ ! -x "$BUILD/sampler" ] || [ ! -x "$BUILD/examples/demo-workload" ]; then
	echo "job: skipped ($BUILD/sampler or $BUILD/examples/demo-workload not built; run make)"
	exit 0
fi

. bench/lib.sh	# measure

row() {	# label "wall cpu mem"
	set -- "$1" $2
	printf '  %-40s %9s %9s %7s\n' "$1" "$2" "$3" "$4"
}

mpi=
if command -v mpirun >/dev/null && $PY -c 'import mpi4py' 2>/dev/null; then
	mpi="mpirun --oversubscribe --allow-run-as-root -np 2"
fi

"$BUILD/sampler" -g -o "$tmp/demo.prof" -- "$BUILD/examples/demo-workload" >/dev/null 2>&1 ||
	{ echo "job: skipped (sampler -g demo-workload failed)"; exit 0; }
"$BUILD/sampler-profile" dump "$tmp/demo.prof" >"$tmp/demo.txt" || exit 1

echo "job: sampler-report on a job's profiles, seconds (wall, CPU of all processes), peak MB"
echo "  (load average $(cut -d' ' -f1 /proc/loadavg) on $(nproc) CPUs)"
printf '  %-40s %9s %9s %7s\n' "" "wall" "cpu" "MB"
made=0
mkdir -p "$tmp/ranks"
for n in $RANKS; do
	while [ "$made" -lt "$n" ]; do
		sed "2s/rank=[0-9]* job_id=[^ ]*/rank=$made job_id=45/" "$tmp/demo.txt" |
			"$BUILD/sampler-profile" build "$tmp/ranks/app.$made.prof" || exit 1
		made=$((made + 1))
	done
	set -- $(i=0; while [ $i -lt "$n" ]; do echo "$tmp/ranks/app.$i.prof"; i=$((i + 1)); done)
	row "$n ranks, --by rank" "$(measure $PY scripts/sampler-report --no-cache --by rank "$@")"
	row "$n ranks, --tree --by rank" \
		"$(measure $PY scripts/sampler-report --no-cache --tree --by rank "$@")"
	if [ -n "$mpi" ]; then
		row "$n ranks, --by rank, mpirun -np 2" \
			"$(measure $mpi $PY scripts/sampler-report --no-cache --by rank "$@")"
	else
		row "$n ranks, mpirun -np 2: no mpirun or mpi4py" "- - -"
	fi
done
if [ "$PROCS" -gt 0 ]; then
	"$BUILD/sampler" -o "$tmp/procs.prof" -- sh -c \
		"i=0; while [ \$i -lt $PROCS ]; do /bin/true; i=\$((i + 1)); done" >/dev/null 2>&1 ||
		{ echo "  ($PROCS processes: sampler failed)"; exit 0; }
	row "$PROCS processes, --by process" \
		"$(measure $PY scripts/sampler-report --no-cache --by process "$tmp/procs.prof")"
	row "$PROCS processes, --by function" \
		"$(measure $PY scripts/sampler-report --no-cache "$tmp/procs.prof")"
fi
