#!/bin/bash
# Merging profiles recorded with -g (the ranks of a job): every format, any
# mix of profiles with and without stacks, each input's stacks kept as they
# were; the merge's temporary file is made next to the output and removed
# on every exit, a fatal signal included; an Open MPI job's ranks merged
# into one perf.data whose perf report gives each rank its call chains.
. "$(dirname "$0")/lib.sh"

export TMPDIR=$TRASH/tmp
mkdir -p "$TMPDIR"

# rank_lines FOLDED TAG NAME: the lines of FOLDED whose process is
# NAME[TAG], with the tag taken off (so they read as NAME's own export).
rank_lines() {
	grep -F "$3$2;" "$1" | sed "s/^$3\\[[^]]*\\];/$3;/" | sort
}

# leftovers DIR...: the merge's temporary files left in the directories.
leftovers() {
	find "$@" -maxdepth 1 -name "*sampler-export-merge*" | wc -l
}

test_expect_success 'setup: two profiles recorded with -g, one without' '
	"$SAMPLER" -g -f 500 -o g1.prof -- "$EXAMPLES/busy" 0.2 2>/dev/null &&
	"$SAMPLER" -g -f 500 -o g2.prof -- "$EXAMPLES/busy" 0.2 2>/dev/null &&
	"$SAMPLER" -f 500 -o flat.prof -- "$EXAMPLES/busy" 0.2 2>/dev/null &&
	"$EXPORT" --format folded --weight cpu g1.prof >g1.folded &&
	"$EXPORT" --format folded --weight cpu g2.prof >g2.folded &&
	"$EXPORT" --format folded --weight cpu flat.prof >flat.folded &&
	expect_ge 3 "$(awk -F";" "{ if (NF > n) n = NF } END { print n }" g1.folded)" "frames of the deepest stack of g1"
'

test_expect_success 'two -g profiles merge in every format, no file left behind' '
	mkdir out &&
	for f in perf csv columns folded pperf; do
		run_status "$EXPORT" --format $f -o out/m.$f g1.prof g2.prof 2>$f.err &&
		expect_eq 0 "$rc" "exit status of --format $f" &&
		test -s out/m.$f || exit 1
	done &&
	expect_empty "$(cat perf.err csv.err columns.err folded.err)" "stderr" &&
	expect_grep "pperf keeps no call stacks" pperf.err &&
	expect_eq 0 "$(leftovers out "$TMPDIR" .)" "temporary files left"
'

test_expect_success 'the merged stacks are each input'"'"'s own, with its rank' '
	"$EXPORT" --format folded --weight cpu g1.prof g2.prof >m.folded &&
	sort g1.folded >want1 && rank_lines m.folded "[#0]" busy >got1 &&
	sort g2.folded >want2 && rank_lines m.folded "[#1]" busy >got2 &&
	expect_eq "$(wc -l <want1)" "$(wc -l <got1)" "stacks of input 0" &&
	diff want1 got1 && diff want2 got2 &&
	expect_eq "$(($(wc -l <g1.folded) + $(wc -l <g2.folded)))" "$(wc -l <m.folded)" "lines of the merge"
'

test_expect_success 'a profile with stacks merges with one without, in either order' '
	for order in "g1.prof flat.prof" "flat.prof g1.prof"; do
		for f in perf csv columns folded pperf; do
			run_status "$EXPORT" --format $f -o mix.$f $order 2>mix.err &&
			expect_eq 0 "$rc" "exit status of --format $f ($order)" || exit 1
		done
	done &&
	"$EXPORT" --format folded --weight cpu g1.prof flat.prof >mix.folded &&
	rank_lines mix.folded "[#0]" busy >got1 && diff want1 got1 &&
	rank_lines mix.folded "[#1]" busy >gotflat && sort flat.folded >wantflat &&
	diff wantflat gotflat &&
	expect_eq 0 "$(leftovers . "$TMPDIR")" "temporary files left"
'

test_expect_success PERF 'perf report of the merge: each input'"'"'s call chains' '
	perf report -i mix.perf --stdio --no-children --sort comm,symbol -g caller,0,callee \
		>mix.report 2>mix.rerr &&
	expect_empty "$(cat mix.rerr)" "perf report stderr" &&
	awk "/^ +[0-9.]+%/ { comm = \$2 } /--- *main\$/ || /^ +main\$/ { if (comm) print comm }" \
		mix.report | sort -u >chained &&
	expect_grep "^busy\[#0\]\$" chained
'

test_expect_success 'the temporary file is next to the output, and a signal removes it' '
	mkdir sig && mkfifo sig/in &&
	for s in TERM HUP; do
		# (not INT: a background job of a script ignores it)
		"$EXPORT" -o sig/m.data g1.prof sig/in 2>sig.err &
		pid=$! &&
		test_when_finished "kill $pid 2>/dev/null; true" &&
		# the merge opens the FIFO after making its file, and waits there
		n=0 && while [ "$(leftovers sig)" = 0 ] && [ $n -lt 300 ]; do sleep 0.1; n=$((n + 1)); done &&
		expect_eq 1 "$(leftovers sig)" "temporary files in the output directory while merging" &&
		expect_eq 0 "$(leftovers "$TMPDIR")" "temporary files in TMPDIR" &&
		kill -$s $pid &&
		run_status wait $pid &&
		expect_eq $((128 + $(kill -l $s))) "$rc" "exit status after SIG$s" &&
		expect_eq 0 "$(leftovers sig)" "temporary files left after SIG$s" || exit 1
	done
'

test_expect_success 'stdout: the temporary file goes to TMPDIR, and is removed' '
	"$EXPORT" --format folded g1.prof g2.prof >/dev/null &&
	expect_eq 0 "$(leftovers . "$TMPDIR")" "temporary files left"
'

# mpi_app 100: about 0.2 s of work for rank 0, 0.4 s for rank 1
test_expect_success MPI,PERF 'an Open MPI job recorded with -g: perf report gives each rank its call chains' '
	unset OMPI_COMM_WORLD_RANK PMI_RANK PMIX_RANK SLURM_PROCID SLURM_JOB_ID &&
	mpirun --oversubscribe --allow-run-as-root -np 2 \
		"$SAMPLER" -g -f 200 -o "app.%r.prof" -- "$EXAMPLES/mpi_app" 100 >mpi.out 2>/dev/null &&
	expect_eq 2 "$(grep -c "^rank=.* cpu_s=" mpi.out)" "ranks that ran" &&
	"$EXPORT" -o job.data app.0.prof app.1.prof 2>job.err &&
	expect_empty "$(cat job.err)" "export stderr" &&
	expect_eq 0 "$(leftovers . "$TMPDIR")" "temporary files left" &&
	perf script -i job.data -F comm,ip,sym 2>/dev/null >job.script &&
	for r in 0 1; do
		# samples of the rank whose chain runs main <- __libc_start_call_main
		awk -v comm="mpi_app[rank $r]" "
			/^ *mpi_app/ { sub(/^ +/, \"\"); cur = index(\$0, comm) == 1; prev = \"\"; next }
			cur && \$NF == \"__libc_start_call_main\" && prev == \"main\" { n++ }
			{ prev = \$NF }
			END { print n + 0 }" job.script >chains.$r &&
		expect_ge 10 "$(cat chains.$r)" "rank $r samples called from main by __libc_start_call_main" || exit 1
	done &&
	perf report -i job.data --stdio --no-children --sort comm -g caller,0.5,callee,function \
		>job.report 2>/dev/null &&
	expect_grep "mpi_app\[rank 0\]" job.report &&
	expect_grep "mpi_app\[rank 1\]" job.report
'

test_done
