#!/bin/sh
# t4640-scripts-job-tree.sh - a job's call tree (20.1): sampler-report
# --tree/--callers/--callees and sampler-plot --kind flame take the
# profiles of a job's ranks, one tree of all of them, or with --by rank
# (host, profile) a frame naming each first.  Two built profiles with
# known counts, then the -g profiles of an Open MPI job (skipped without
# mpirun), whose rank frames carry each rank's CPU time.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/recorder-lib.sh"
PY=/usr/bin/python3
REPORT="$PY $ROOT/scripts/sampler-report"
PLOT="$PY $ROOT/scripts/sampler-plot"
DEEP="$PY $ROOT/tests/scripts/deepstacks.py"
export SAMPLER_BIN_DIR=$BUILD
export XDG_CACHE_HOME="$TRASH/cache"
if ! $PY -c 'import numpy' 2>/dev/null; then
	test_skip 'a job call tree' 'python3-numpy is not installed'
	test_done
	exit
fi
unset OMPI_COMM_WORLD_RANK PMI_RANK PMIX_RANK SLURM_PROCID SLURM_JOB_ID OMPI_MCA_ess_base_jobid

# field CSV NAME COLUMN: COLUMN (by its header) of the first row named NAME
field() {
	$PY - "$@" <<-'PYEOF'
	import csv, sys
	for r in csv.DictReader(open(sys.argv[1])):
	    if r["name"] == sys.argv[2]:
	        print("%.1f" % float(r[sys.argv[3]]))
	        break
	PYEOF
}

test_expect_success 'setup: rank 0 (2 leaves x 3 samples) and rank 1 (4 leaves x 1)' '
	if ! command -v gcc >/dev/null; then echo "gcc is needed" >&2; exit 1; fi &&
	$DEEP --bin "$BUILD" --rank 0 --samples 3 r0.prof 4 2 &&
	$DEEP --bin "$BUILD" --rank 1 --samples 1 r1.prof 4 4
'

test_expect_success 'report --tree of two ranks: one tree; --by rank: a frame per rank first' '
	$REPORT --tree --min-share 0 --csv r0.prof r1.prof >all.csv &&
	expect_eq 10.0 "$(field all.csv deep samples)" "thread-samples under deep" &&
	expect_eq 40.0 "$(field all.csv leaf1 share)" "leaf1: 3 (rank 0) + 1 (rank 1) of 10" &&
	$REPORT --tree --by rank --min-share 0 --csv r0.prof r1.prof >rank.csv &&
	expect_eq 60.0 "$(field rank.csv "rank 0" share)" "rank 0 share" &&
	expect_eq 40.0 "$(field rank.csv "rank 1" share)" "rank 1 share" &&
	expect_eq 60.0 "$(field rank.csv "rank 0" cpu_share)" "rank 0 CPU share" &&
	expect_eq "rank 0;deep;main;rec;rec;leaf0" "$(awk -F, "\$2 == \"leaf0\" { print \$3; exit }" rank.csv)" "a path under rank 0" &&
	$REPORT --tree --by rank r0.prof r1.prof >rank.txt &&
	expect_grep "^ *60.0 .*  rank 0$" rank.txt &&
	expect_grep "^ *40.0 .*    deep$" rank.txt
'

test_expect_success 'report --callers and --callees across the ranks' '
	$REPORT --callers leaf1 --by rank --min-share 0 --csv r0.prof r1.prof >callers.csv &&
	expect_eq 100.0 "$(field callers.csv leaf1 share)" "leaf1: the whole callers tree" &&
	expect_eq 75.0 "$(field callers.csv "rank 0" share)" "rank 0: 3 of leaf1'"'"'s 4 samples" &&
	expect_eq 25.0 "$(field callers.csv "rank 1" share)" "rank 1: 1 of 4" &&
	$REPORT --callees rec --min-share 0 --csv r0.prof r1.prof >callees.csv &&
	expect_eq 100.0 "$(field callees.csv rec share)" "rec: all of it" &&
	expect_eq 40.0 "$(field callees.csv leaf1 share)" "leaf1 under rec, both ranks" &&
	run_status $REPORT --tree --by function r0.prof r1.prof 2>err &&
	expect_eq 1 "$rc" "--tree --by function" &&
	expect_grep "take --by rank, host or profile only" err
'

test_expect_success 'plot --kind flame of two ranks, --by rank: a frame per rank, its share in the tooltip' '
	$PLOT --kind flame --by rank --weight samples -o job.svg r0.prof r1.prof &&
	expect_grep "<title>rank 0 (6 samples, 60.00%)</title>" job.svg &&
	expect_grep "<title>rank 1 (4 samples, 40.00%)</title>" job.svg &&
	$PLOT --kind flame -o all.svg r0.prof r1.prof &&
	expect_no_grep "<title>rank 0" all.svg
'

test_expect_success MPI 'an Open MPI job with -g: --tree --by rank holds each rank to its CPU time' '
	mpirun --oversubscribe --allow-run-as-root -np 2 \
		"$SAMPLER" -g -f 200 -o "job.%r.prof" -- "$EXAMPLES/mpi_app" 200 >out &&
	for r in 0 1; do
		dump job.$r.prof &&
		awk "/^(ts|exit) / { for (i = 2; i <= NF; i++) if (\$i ~ /^dcpu=/) s += substr(\$i, 6) } END { print s + 0 }" job.$r.prof.txt >cpu.$r || exit 1
	done &&
	total=$(($(cat cpu.0) + $(cat cpu.1))) &&
	$REPORT --tree --by rank --min-share 0 --csv job.0.prof job.1.prof >job.csv &&
	for r in 0 1; do
		want=$(awk -v c=$(cat cpu.$r) -v t=$total "BEGIN { printf \"%.1f\", 100 * c / t }") &&
		expect_near "$want" "$(field job.csv "rank $r" cpu_share)" 0.2 "rank $r CPU share" || exit 1
	done &&
	expect_grep "^1,mpi_app," job.csv &&
	$PLOT --kind flame --by rank -o job.svg job.0.prof job.1.prof &&
	expect_grep "<title>rank 1 (" job.svg
'

test_done
