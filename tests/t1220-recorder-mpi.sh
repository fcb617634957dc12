#!/bin/bash
# One profile per MPI rank with Debian's Open MPI: mpirun starts one sampler
# per rank, each names its profile by the -o pattern and records its rank,
# host and job id.  examples/mpi/mpi_app: rank r does (r + 1) units of work,
# so the ranks' CPU shares are about 10/20/30/40% (each prints its own CPU
# time at its end, the truth the profiles are held to).
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/recorder-lib.sh"

test_have_prereq MPI || { skip_all="missing $test_missing_"; test_done; }
unset OMPI_COMM_WORLD_RANK PMI_RANK PMIX_RANK SLURM_PROCID SLURM_JOB_ID OMPI_MCA_ess_base_jobid \
	OMPI_COMM_WORLD_SIZE PMI_SIZE SLURM_NTASKS SLURM_STEP_NUM_TASKS
host=$(uname -n | cut -d. -f1)

host_field() {	# TEXT KEY
	grep "^host " "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"
}

# CPU time (ns) a profile's samples and exit tails carry.
cpu_of() {
	awk '/^(ts|exit) / { for (i = 2; i <= NF; i++) if ($i ~ /^dcpu=/) s += substr($i, 6) }
	     END { printf "%.0f\n", s }' "$1"
}

# truth OUT: "rank cpu_ns" per rank, the process CPU time each rank printed
# at its end.  The work is 1:2:3:4, but MPI_Init, MPI_Finalize and the
# wait of the ranks done first add CPU time that depends on the VM and its
# load (0.2-0.3 s a rank; rank 0 took 1.21 s for 1 unit, rank 3 3.95 s for
# 4): the shares a profile shows are compared with what the ranks measured.
truth() {
	sed -n "s/^rank=\([0-9]*\) cpu_s=\([0-9.]*\)\$/\1 \2/p" "$1" | sort -n |
		awk "{ printf \"%d %.0f\\n\", \$1, \$2 * 1e9 }"
}

# shares FILE: "rank share%" of "rank value" lines.
shares() {
	awk "{ v[\$1] = \$2; t += \$2 } END { for (r in v) print r, 100 * v[r] / t }" "$1" | sort -n
}

# near_shares GOT WANT WHAT: every rank's share in GOT within 3 points of WANT.
near_shares() {
	paste "$1" "$2" | awk -v what="$3" "{ d = \$2 - \$4; if (d < 0) d = -d
		if (\$1 != \$3 || d > 3) { print what \" of rank \" \$1 \": \" \$2 \"%, the rank measured \" \$4 \"%\"; bad = 1 } }
		END { exit bad }"
}

# mpi_app 500: 500 million units a rank-step (about 0.9 s), so that the
# ranks' own shares stay near 10/20/30/40% however much MPI adds.
test_expect_success 'mpirun -np 4 sampler -o app.%h.%r.prof: four profiles, rank, host and job id inside' '
	mpirun --oversubscribe --allow-run-as-root -np 4 \
		"$SAMPLER" -f 200 -o "app.%h.%r.prof" -- "$EXAMPLES/mpi_app" 500 >out &&
	expect_eq 4 "$(grep -c "^rank=.* checksum=" out)" "ranks that ran" &&
	truth out >truth && shares truth >truth.shares &&
	expect_eq "0 1 2 3" "$(cut -d" " -f1 truth | tr "\n" " " | sed "s/ \$//")" "ranks that printed their CPU time" &&
	for r in 0 1 2 3; do
		f=app.$host.$r.prof &&
		dump $f &&
		expect_eq $r "$(host_field $f.txt rank)" "rank in $f" &&
		expect_eq "$host" "$(host_field $f.txt hostname)" "host in $f" &&
		host_field $f.txt job_id >>jobs || exit 1
	done &&
	expect_eq 1 "$(sort -u jobs | wc -l)" "distinct job ids" &&
	expect_ge 1 "$(head -1 jobs)" "job id"
'

# max/mean of "rank value" lines
imbalance() {
	awk "{ s += \$2; if (\$2 > m) m = \$2 } END { print m / (s / NR) }" "$1"
}

test_expect_success 'MPI: the profile of each rank adds up to its CPU time; shares and imbalance as the ranks measured them' '
	for r in 0 1 2 3; do echo "$r $(cpu_of app.$host.$r.prof.txt)"; done >cpu &&
	paste cpu truth &&
	paste cpu truth | awk "{ d = \$2 - \$4; if (d < 0) d = -d
		if (d > 0.03 * \$4 + 20000000) { print \"rank \" \$1 \": profile \" \$2 \" ns, process \" \$4 \" ns\"; bad = 1 } }
		END { exit bad }" &&
	shares cpu >cpu.shares &&
	near_shares cpu.shares truth.shares "CPU share" &&
	expect_near "$(imbalance truth)" "$(imbalance cpu)" 0.1 "max/mean of per-rank CPU time" &&
	expect_eq "0 1 2 3" "$(sort -k2,2g cpu | cut -d" " -f1 | tr "\n" " " | sed "s/ \$//")" \
		"ranks by the CPU time of their profiles (the work is 1:2:3:4)"
'

REPORT="/usr/bin/python3 $ROOT/scripts/sampler-report"
export SAMPLER_BIN_DIR=$BUILD

test_expect_success 'sampler-report --by rank: shares and imbalance as the ranks measured them, the slowest rank in the header' '
	$REPORT --by rank --csv app.$host.*.prof >rank.csv &&
	cat rank.csv &&
	awk -F, "\$1 ~ /^rank / { sub(/^rank /, \"\", \$1); print \$1, \$4 }" rank.csv | sort -n >report.shares &&
	near_shares report.shares truth.shares "report CPU share" &&
	$REPORT --by rank app.$host.*.prof >rank.txt &&
	line=$(grep "^# load imbalance" rank.txt) &&
	imb=$(echo "$line" | sed "s/.*CPU time \([0-9.]*\).*/\1/") &&
	expect_near "$(imbalance truth)" "$imb" 0.1 "imbalance in the header ($line)" &&
	expect_grep "slowest: rank 3 " rank.txt &&
	expect_grep "^# job [0-9]*: 4 profiles, ranks 0-3, on 1 host ($host)" rank.txt
'

test_expect_success 'sampler-export merges the ranks into one profile: distinct pids, comm app[rank N]' '
	"$EXPORT" --format csv -o job.csv app.$host.*.prof &&
	expect_eq 4 "$(grep "^# process " job.csv | grep -c "comm=mpi_app\[rank%20[0-3]\]")" "processes named by rank" &&
	expect_eq 4 "$(grep "^# process " job.csv | sed "s/^# process pid=\([0-9]*\).*/\1/" | sort -u | wc -l)" "distinct pids" &&
	rows=$(grep -c "^[0-9]" job.csv) &&
	sum=0 && for r in 0 1 2 3; do
		"$EXPORT" --format csv -o r$r.csv app.$host.$r.prof && sum=$((sum + $(grep -c "^[0-9]" r$r.csv))) || exit 1
	done &&
	expect_eq "$sum" "$rows" "rows of the merge vs the four profiles"
'

test_expect_success PERF 'perf report --sort comm of the merged perf.data splits the CPU time by rank as the ranks measured it' '
	"$EXPORT" -o job.data app.$host.*.prof &&
	perf report -i job.data --stdio --sort comm 2>/dev/null |
		awk "/of event .cpu-time./ { on = 1 } /of event .wall-time./ { on = 0 } on && /rank/" >comm.txt &&
	cat comm.txt &&
	for r in 0 1 2 3; do
		echo "$r $(grep "mpi_app\[rank $r\]" comm.txt | tr -d "%" | awk "{ print \$1 }")" || exit 1
	done >perf.shares &&
	near_shares perf.shares truth.shares "perf cpu-time share"
'

test_expect_success 'ranks recorded with --delay (each starts with an "off" window) merge: CPU per rank exactly as alone' '
	mpirun --oversubscribe --allow-run-as-root -np 4 \
		"$SAMPLER" -f 200 --delay 0.1 -o "d.%r.prof" -- "$EXAMPLES/mpi_app" 500 >dout &&
	truth dout >dtruth && shares dtruth >dtruth.shares &&
	"$EXPORT" --format csv -o d.csv d.0.prof d.1.prof d.2.prof d.3.prof &&
	for r in 0 1 2 3; do
		"$EXPORT" --format csv -o d$r.csv d.$r.prof &&
		csv_cpu d$r.csv | awk "{ s += \$2 } END { printf \"%.0f\\n\", s }" || exit 1
	done >alone &&
	csv_cpu d.csv | awk "{ print \$2 }" >merged &&
	paste alone merged &&
	expect_eq "$(cat alone)" "$(cat merged)" "CPU ns of each rank, merged vs alone" &&
	rows=$(grep -c "^[0-9]" d.csv) &&
	expect_eq "$(cat d?.csv | grep -c "^[0-9]")" "$rows" "rows of the merge vs the four profiles" &&
	awk "{ print NR - 1, \$1 }" merged >merged.cpu && shares merged.cpu >merged.shares &&
	near_shares merged.shares dtruth.shares "merged CPU share (0.1 s off at the start)"
'

test_expect_success PERF 'perf report of the windowed merge: CPU time by rank as the ranks measured it' '
	"$EXPORT" -o d.data d.*.prof &&
	perf report -i d.data --stdio --sort comm 2>/dev/null |
		awk "/of event .cpu-time./ { on = 1 } /of event .wall-time./ { on = 0 } on && /rank/" >dcomm.txt &&
	cat dcomm.txt &&
	for r in 0 1 2 3; do
		echo "$r $(grep "mpi_app\[rank $r\]" dcomm.txt | tr -d "%" | awk "{ print \$1 }")" || exit 1
	done >dperf.shares &&
	near_shares dperf.shares dtruth.shares "perf cpu-time share"
'

test_expect_success 'disjoint windows merge: each input counts only inside its own windows; the merge is off only where all are' '
	"$SAMPLER" --delay 0.3 -o late.prof -- "$EXAMPLES/busy" 0.8 2>/dev/null &&
	"$SAMPLER" --duration 0.3 -o early.prof -- "$EXAMPLES/busy" 0.8 2>/dev/null &&
	"$EXPORT" --format csv -o el.csv early.prof late.prof &&
	"$EXPORT" --format csv -o late.csv late.prof &&
	"$EXPORT" --format csv -o early.csv early.prof &&
	expect_eq "$(csv_cpu early.csv | cut -d" " -f2) $(csv_cpu late.csv | cut -d" " -f2)" \
		"$(csv_cpu el.csv | cut -d" " -f2 | tr "\n" " " | sed "s/ $//")" "CPU ns of each input, merged vs alone" &&
	expect_eq 0 "$(grep -c "^-" el.csv)" "rows before the start (the second input started first)" &&
	late=$(csv_cpu late.csv | cut -d" " -f2) &&
	expect_le 600000000 "$late" "CPU ns of the late input (its 0.3 s before the window left out)" &&
	"$BUILD/sampler-profile" dump late.prof >late.txt &&
	expect_near "$(window_cpu late.txt)" "$late" 1000 "CPU ns of the late input, by its readings at the window start and the end" &&
	expect_ge 1000000 "$late" "CPU ns of the late input (a busy thread in 0.5 s)"
'

test_expect_success 'sampler-export refuses to merge profiles with different counters' '
	"$SAMPLER" -p perf:task-clock -o c.prof -- true &&
	run_status "$EXPORT" -o c.data app.$host.0.prof c.prof 2>err &&
	expect_eq 1 "$rc" "status" &&
	expect_grep "their per-thread counters differ" err
'

test_expect_success 'sampler-plot --kind timeline: the ranks on one time axis, placed by their realtime anchors' '
	/usr/bin/python3 "$ROOT/scripts/sampler-plot" --kind timeline -o ranks.png app.$host.*.prof &&
	expect_eq "89504e47" "$(head -c 4 ranks.png | od -An -tx1 | tr -d " \n")" "PNG magic" &&
	for r in 0 1 2 3; do
		grep "^host " app.$host.$r.prof.txt | tr " " "\n" |
			awk -F= "/^(start_ns|monotonic_ns|realtime_ns)=/ { v[\$1] = \$2 }
				 END { printf \"%.6f\\n\", (v[\"start_ns\"] - v[\"monotonic_ns\"] + v[\"realtime_ns\"]) / 1e9 }" || exit 1
	done >anchors &&
	PYTHONPATH="$ROOT/scripts" /usr/bin/python3 -c "
import sys
from samplerlib import cli_plot, timeline
starts = [cli_plot.realtime_start(timeline.read_timeline(\"app.$host.%d.prof\" % r, \"t1220\")) for r in range(4)]
print(\"\n\".join(\"%.6f\" % s for s in starts))" >placed &&
	paste anchors placed &&
	awk "{ d = \$1 - \$2; if (d < 0) d = -d; if (d > 1e-5) { print \"rank \" NR - 1 \" placed at \" \$2 \", anchor \" \$1; exit 1 } }" <(paste anchors placed)
'

FAKE="/usr/bin/python3 $ROOT/tests/fakes/fake-powercap.py"
# (the report divides the node among the ranks threads by the power fitted
# for their code, each profile with the others as --node-peer: the ranks
# parts add up to the node within a few percent (1.3% and 4.1% off the
# largest recording in three runs, four ranks and twelve threads on the
# loaded 2-CPU VM).  This fake node draws 10 W whatever runs, so no split
# is the truth: a rank that runs alone, at the start or the end, gets the
# node's whole 10 W meanwhile, not its CPU share of it; the shares stayed
# within 0.7-1.5 times the CPU shares (rank 0: 14.1% of the CPU, 20.6% of
# the energy), so the check is a factor of 2 each way)
test_expect_success 'fake RAPL: the node energy is counted once, not once per rank, and divided among the ranks' '
	$FAKE make node &&
	# (at real-time priority, above the samplers, as the energy tests run
	# their fakes: under two busy loops and four ranks a fake at normal
	# priority fell 0.2 s behind its pace, and the node 5.6% short)
	RT= && { chrt -f 60 true 2>/dev/null && RT="chrt -f 60" || true; } &&
	{ $RT $FAKE run node --rate intel-rapl:0=10 --seconds 30 --step-ms 1 --log node.log & } &&
	fake=$! &&
	mpirun --oversubscribe --allow-run-as-root -np 4 -x SAMPLER_SYSFS_ROOT=$TRASH/node \
		"$SAMPLER" -f 200 -p rapl:package-0 -o "e.%r.prof" -- "$EXAMPLES/mpi_app" 100 >/dev/null &&
	{ kill $fake; wait $fake || true; } &&
	for r in 0 1 2 3; do dump e.$r.prof && stat_of e.$r.prof.txt totals >>per_rank || exit 1; done &&
	max=$(sort -g per_rank | tail -1) && sum=$(awk "{ s += \$1 } END { print s }" per_rank) &&
	$REPORT --by rank --csv e.*.prof >e.csv && cat e.csv &&
	total=$(awk -F, "NR > 1 { s += \$6 } END { print s * 1e6 }" e.csv) &&
	expect_near "$max" "$total" "$(awk -v m=$max "BEGIN { print m / 12.5 }")" "report energy (uJ): the node once (sum of the profiles: $sum)" &&
	# and that is the fake node'"'"'s 10 W over the span of the recordings
	# (its pace lags by up to 0.3 s under load at either end; the ranks'"'"'
	# parts, each from its own export, add up to the node within a few
	# percent: once 5.8% over, on an idle fresh clone, where
	# every rank'"'"'s readings counted 10 W within 0.6%; 8%, as the check
	# above, which a node counted once per rank fails by far)
	for r in 0 1 2 3; do
		awk "/^host / { for (i = 2; i <= NF; i++) if (index(\$i, \"start_ns=\") == 1) lo = substr(\$i, 10) }
			/^sample / { split(\$2, t, \"=\"); hi = t[2] } END { print lo, hi }" e.$r.prof.txt || exit 1
	done >spans &&
	want=$(awk "{ if (lo == \"\" || \$1 < lo) lo = \$1; if (\$2 > hi) hi = \$2 }
		END { if (hi > lo) printf \"%.0f\", 10 * (hi - lo) / 1e3 }" spans) &&
	expect_near "$want" "$total" "$(awk -v w="$want" "BEGIN { print w / 12.5 }")" "node energy (uJ): 10 W over the recordings" &&
	awk -F, "NR > 1 { if (\$7 > 2 * \$4 || 2 * \$7 < \$4) { print \"energy share \" \$7 \" not within a factor 2 of the CPU share \" \$4; exit 1 } }" e.csv &&
	$REPORT --by rank e.*.prof >e.txt &&
	expect_grep "^# energy: each host.s node energy divided among the threads of all its ranks" e.txt
'

# Issue 19 #4: every rank's sampler wrote same.prof, each keeping the one
# before as same.prof.old: rank 3's and rank 2's remained, ranks 0 and 1
# were lost, exit 0, nothing printed.
test_expect_success 'mpirun -np 4 sampler -o same.prof: refused, naming %r; no profile replaced by another rank' '
	run_status mpirun --oversubscribe --allow-run-as-root -np 4 \
		"$SAMPLER" -f 200 -o same.prof -- "$EXAMPLES/mpi_app" 5 >out 2>err &&
	cat err &&
	expect_ge 1 "$rc" "mpirun status" &&
	expect_empty "$(ls same.prof* 2>/dev/null)" "profiles written" &&
	expect_eq 0 "$(grep -c "^rank=" out)" "ranks that ran" &&
	n=$(grep -c "^sampler: error: -o same.prof: every rank of the job would write this one file (OMPI_COMM_WORLD_RANK=[0-3] of 4): put %r, the rank, in the name (e.g. -o same.%r.prof)\$" err) &&
	# mpirun may end the other ranks before they print
	expect_ge 1 "$n" "samplers that said why" &&
	expect_le 4 "$n" "samplers that said why" &&
	expect_eq 0 "$(grep "^sampler: " err | grep -vc "every rank of the job")" "other sampler lines"
'

test_done
