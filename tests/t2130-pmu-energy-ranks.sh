#!/bin/sh
# Two ranks of a job sharing a node (docs/ENERGY.md, "Ranks sharing a
# node").  Each rank runs examples/phases (alpha 13 W, beta 28 W, gamma
# 8 W, delta 10 W) with its own state file; one fake RAPL package domain
# (1 ms updates) counts the sum of both, as a node's package counts every
# process on it.  The rank variables are set as mpirun sets them, so the
# test needs no MPI (t1220 runs the real mpirun).
#
# What each profile holds: its own threads, and the node's whole energy
# (both ranks').  Alone, a profile gives all of it to its own functions;
# the job report exports each with the other as --node-peer, so that the
# node's energy is divided among the threads of both once, by modelled
# power, and energy per (rank, function) is held to the truth: mean <= 5%,
# worst <= 20%, coverage >= 90%, looser than t2110's one rank: two targets
# and two samplers share the 2-CPU VM.  Runs of 3 s (PHASE_SECONDS), as
# t2110's: the worst pair is where phases began and ended, which shrinks
# with the run.  10 runs of 3 s: load 3 (a make check beside)
# 1.34%, 6.08%; load 5 (and two busy loops) 1.66%, 5.34%; the sanitizer
# build in a fresh clone's make check under two busy loops 2.71%, 14.0%
# (gamma 6-14% low in several runs: a lean under that load, not noise),
# 97.5% covered.  (1.2 s runs, when the bar was 6% / 25%: quiet 1.44%,
# 4.60%; under two busy loops 2.63-3.54%, 9.45-14.5%, five sets, two on
# the sanitizer build.)
# Every profile's readings of the node's counter cut the spans, so the
# ranks add up to the node: within 1% (under two busy loops,
# 20 runs: 99.89-100.04%; with each profile's own readings alone
# 98.32-100.18%).  The ranks share the node by the sum of their modelled
# energy (the same 20 runs: 2.29% mean, 8.29% worst, each rank's
# total 0.29% off on average; by each span's split 2.79%, 9.31%, 1.75%).
# The ranks run one binary at different addresses (ASLR): the power is
# fitted per code (file and offset), not per PC, or the split between the
# ranks wanders (20 runs of two ranks, loaded VM: the ranks' totals off by
# 8% on average per PC, 0.95% per code; per (rank, function) 4.6% mean,
# 16.1% worst per code).
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/pmu/pmu-lib.sh"
. "$ROOT/tests/pmu/energy-lib.sh"
test_have_prereq NUMPY || { skip_all="missing $test_missing_"; test_done; }
no_rank_env

start_rapl state.0 state.1

# truth_sum FILE...: the total of the "truth" lines' energies (J)
truth_sum() {
	cat "$@" | awk '{ for (i = 2; i <= NF; i++) { split($i, kv, "="); s += kv[2] } } END { printf "%.4f\n", s }'
}

# profile_energy PROF: the profile's package-0 energy (J), its own report
profile_energy() {
	$PY "$ROOT/scripts/sampler-report" --json --no-cache "$1" |
		$PY -c "import json, sys; print(\"%.4f\" % json.load(sys.stdin)[\"total\"][\"package-0_J\"])"
}

test_expect_success 'two ranks on one node: each profile reads the whole node' '
	(PHASE_SECONDS=3 && record_ranks two 1000 5 20 rapl) &&
	node=$(truth_sum two.1.0.truth two.1.1.truth) &&
	for r in 0 1; do
		# (the other rank may start or end a little apart: 15%)
		e=$(profile_energy two.1.$r.prof) &&
		echo "rank $r: profile $e J, node truth $node J" &&
		expect_near $node $e $(awk -v n=$node "BEGIN { print 0.15 * n }") "rank $r profile energy (J)" ||
		return 1
	done
'

test_expect_success 'per (rank, function): the node divided once, error <= 5% (worst 20%), coverage >= 90%' '
	$CHECK --ranks 2 --rule trapezoid $(runs two) >new &&
	bar new 5 20
'

test_expect_success 'the ranks add up to the node once, not twice (within 1%)' '
	for i in $(seq $RUNS); do
		$PY "$ROOT/scripts/sampler-report" --json --no-cache --by rank two.$i.0.prof two.$i.1.prof >ranks.$i.json &&
		got=$($PY -c "import json; print(\"%.4f\" % sum(r[\"package-0_J\"] for r in json.load(open(\"ranks.$i.json\"))[\"rows\"]))") &&
		node=$(truth_sum two.$i.0.truth two.$i.1.truth) &&
		echo "run $i: ranks $got J, node truth $node J" &&
		expect_near $node $got $(awk -v n=$node "BEGIN { print 0.01 * n }") "the ranks energy, run $i (J)" ||
		return 1
	done
'

test_expect_success 'a job'"'"'s call tree (-g, --tree): the node once, not once per rank' '
	RUNS=1 &&
	record_ranks twog 1000 5 20 rapl -g &&
	$PY "$ROOT/scripts/sampler-report" --tree --json --no-cache twog.1.0.prof twog.1.1.prof >tree.json &&
	got=$($PY -c "import json; print(\"%.4f\" % json.load(open(\"tree.json\"))[\"rows\"][0][\"package-0_J\"])") &&
	node=$(truth_sum twog.1.0.truth twog.1.1.truth) &&
	echo "tree root $got J, node truth $node J" &&
	expect_near $node $got $(awk -v n=$node "BEGIN { print 0.05 * n }") "the tree root energy (J)"
'

test_expect_success 'without the peers (the end rule: the CPU-time split) the same check fails' '
	$CHECK --ranks 2 --rule end $(runs two) >old &&
	cat old &&
	misses_bar old 5 20
'

# synthetic RANK CHANNEL: a rank of a node whose package counter (an
# update every 1 ms, at 0.3 ms past each) counts rank a's thread at 10 W
# from 0 to 80 ms and rank b's at 30 W from 20 to 100 ms (one PC each,
# running all the time); a samples at whole ms from its start at 0, b at
# 0.6 ms past them from its start at 20 ms, so b's counts are offset from
# a's by what the node drew before it started.
synthetic() {
	awk -v lane=$1 -v name=$2 '
	function counter(t,   u) {	# uJ counted by the last update at or before t (ms)
		u = int(t - 0.3) + 0.3
		if (u > t) u -= 1
		if (u < 0) return 0
		return 10000 * (u < 80 ? u : 80) + (u > 20 ? 30000 * (u - 20) : 0)
	}
	BEGIN {
		t0 = 1000000000
		first = lane == "a" ? 0 : 20; last = lane == "a" ? 80 : 100; pid = lane == "a" ? 100 : 200
		printf "host hostname=node os_release=6.1 os_version=1 arch=x86_64 cpu_desc=c cpu_id=i nr_cpus_online=2 nr_cpus_avail=2 total_mem_kb=1 sampler_version=0.1.0 cmdline=t realtime_ns=1700000000000000000 monotonic_ns=%d start_ns=%d target_hz=1000\n", t0, t0 + first * 1000000
		printf "channel name=%s source=rapl unit=uJ scale=1e-06 kind=energy scope=sample\n", name
		printf "process pid=%d ppid=0 time=%d\n", pid, t0 + first * 1000000
		printf "thread tid=%d pid=%d time=%d\n", pid, pid, t0 + first * 1000000
		prev = counter(first)
		for (t = lane == "a" ? 1 : 20.6; t <= last; t++) {
			v = counter(t) - prev; prev = counter(t); total += v; n++
			printf "sample time=%d nthreads=1 values=%d\n", t0 + t * 1000000, v
			printf "ts tid=%d pid=%d pc=0x%x cpu=%d\n", pid, pid, pid, (t - first) * 1000000
		}
		printf "stats wall=%d latency=0 samples=%d thread_samples=%d missed=0 missing=0 signals=0 threads=1 processes=1 exit=0 totals=%d\n", (last - first) * 1000000, n, n, total
	}'
}

# part PROFILE PEER: PROFILE's energy (J) exported with PEER, and its meter
# line's node_profiles (how many profiles' readings made the spans)
part() {
	$EXPORT --format csv --node-peer $2 -o - $1 |
		awk -F, 'match($0, /^# meter .* node_profiles=/) { np = substr($0, RLENGTH + 1) }
			!/^#/ && $4 == "sample" { s += $8 }
			END { printf "%.6f %s\n", s * 1e-6, np }'
}

test_expect_success 'ranks that start apart: their counts are aligned, every reading cuts the spans' '
	synthetic a package-0 >a.txt && $PROFILE build a.prof <a.txt &&
	synthetic b package-0 >b.txt && $PROFILE build b.prof <b.txt &&
	part a.prof b.prof >a.part && part b.prof a.prof >b.part &&
	cat a.part b.part &&
	expect_eq 2 "$(cut -d" " -f2 a.part)" "profiles whose readings made rank a'"'"'s spans" &&
	expect_eq 2 "$(cut -d" " -f2 b.part)" "profiles whose readings made rank b'"'"'s spans" &&
	# the truth: a 10 W x 80 ms; b 30 W until the update at 99.3 ms its
	# last reading saw; the node counted 3.179 J by then (spans of each
	# profile'"'"'s own readings alone, as an earlier rule had them: b 2.2385 J,
	# the ranks 3.9% low)
	expect_near 0.800 "$(cut -d" " -f1 a.part)" 0.016 "rank a (J)" &&
	expect_near 2.379 "$(cut -d" " -f1 b.part)" 0.048 "rank b (J)" &&
	expect_near 3.179 "$(cat a.part b.part | awk "{ s += \$1 } END { print s }")" 0.003 \
		"the ranks together (J)"
'

test_expect_success 'a peer without the channel: the spans are the profile'"'"'s own readings' '
	synthetic b package-1 >b1.txt && $PROFILE build b1.prof <b1.txt &&
	part a.prof b1.prof >a1.part &&
	cat a1.part &&
	expect_eq 1 "$(cut -d" " -f2 a1.part)" "profiles whose readings made the spans"
'

# rank_total TRUTH CSV: a rank's energy against its truth, signed (%)
rank_total() {
	awk -F, -v t="$(cat "$1")" "BEGIN { n = split(t, w, \" \"); for (i = 2; i <= n; i++) { split(w[i], kv, \"=\"); truth += kv[2] } }
		/^[0-9]/ && \$4 == \"sample\" { e += \$8 }
		END { printf \"%.3f\\n\", 100 * (e * 1e-6 / truth - 1) }" "$2"
}

# Simulated ranks (tests/pmu/phase-sim.py, an exact 1 ms counter) that
# take turns on one CPU in 2 ms slices, rank 1's sampler missing 60% of
# its samples (one that got less CPU).  A rank that ran nothing in an
# interval takes no part of what another ran; and rank 1, spread thin
# over its long intervals, took part of every span where rank 0 ran and
# lost none of its own, so each span's split summed over the spans
# favoured it: the lanes now share the spans they meet by the sum of
# their modelled energy, their CPU time at their code's power
# (energy/spread.c).  3 seeds of 3 s: the ranks' totals
# within 0.6%; before 14% off (rank 0 +14%, having been taken for running
# in the other's slices); with only the first change 9.4% (rank 1 +9.4%).
# Live, 20 runs of two ranks under two busy loops: the ranks' totals off
# by 1.75% on average, now 0.29%.
test_expect_success 'ranks taking turns, one sampled sparsely: each rank'"'"'s total within 1%' '
	for s in 1 2 3; do
		$PY "$ROOT/tests/pmu/phase-sim.py" --ranks 2 --seconds 3 --slice-ms 2 \
			--missed 0,0.6 --seed $s turns.$s &&
		$PROFILE build turns.$s.0.prof <turns.$s.0.txt &&
		$PROFILE build turns.$s.1.prof <turns.$s.1.txt &&
		for k in 0 1; do
			$EXPORT --format csv --node-peer turns.$s.$((1 - k)).prof -o turns.$s.$k.csv \
				turns.$s.$k.prof &&
			e=$(rank_total turns.$s.$k.truth turns.$s.$k.csv) &&
			echo "seed $s rank $k: $e%" &&
			expect_near 0 "$e" 1 "rank $k total, seed $s (%)" || return 1
		done || return 1
	done
'

# rank_errors TRUTH CSV: each function's signed error (%) in one rank
rank_errors() {
	awk -F, -v t="$(cat "$1")" "BEGIN { n = split(t, w, \" \"); for (i = 2; i <= n; i++) { split(w[i], kv, \"=\"); truth[kv[1]] = kv[2] } }
		/^[0-9]/ && \$4 == \"sample\" { e[\$5] += \$8 }
		END { for (pc in truth) if (pc != \"0xd\") printf \"%s %.3f\\n\", pc, 100 * (e[pc] * 1e-6 - truth[pc]) / truth[pc] }" "$2"
}

# The issue's bar (2% mean, 5% worst per (rank, function)) on the
# estimator alone: two simulated ranks on their own CPUs drawing from one
# exact 1 ms counter, 10 seeds of 3 s, each rank exported with the other
# as its peer.  Measured: 0.79% mean, 2.09% worst; the end rule on the
# same profiles (it has no peers: the node's energy to one rank) 139% and
# 269%.  (Live, the samplers' share of the CPUs
# and where in its intervals a thread runs add their part under load:
# docs/notes/accuracy-notebook.md.)
test_expect_success 'the estimator alone, two ranks: per (rank, function) mean <= 2%, worst <= 5%' '
	for s in $(seq 10); do
		$PY "$ROOT/tests/pmu/phase-sim.py" --ranks 2 --seconds 3 --seed $s bar.$s &&
		for k in 0 1; do
			$PROFILE build bar.$s.$k.prof <bar.$s.$k.txt || return 1
		done &&
		for k in 0 1; do
			for rule in trapezoid end; do
				$EXPORT --format csv --energy-rule $rule --node-peer bar.$s.$((1 - k)).prof \
					-o bar.$s.$k.$rule.csv bar.$s.$k.prof &&
				rank_errors bar.$s.$k.truth bar.$s.$k.$rule.csv >>bar.$rule || return 1
			done || return 1
		done || return 1
	done &&
	test $(wc -l <bar.trapezoid) -eq 60 &&
	mean=$(awk "{ s += \$2 < 0 ? -\$2 : \$2 } END { printf \"%.3f\", s / NR }" bar.trapezoid) &&
	worst=$(awk "{ a = \$2 < 0 ? -\$2 : \$2; if (a > w) w = a } END { printf \"%.3f\", w }" bar.trapezoid) &&
	end=$(awk "{ s += \$2 < 0 ? -\$2 : \$2 } END { printf \"%.3f\", s / NR }" bar.end) &&
	echo "mean $mean%, worst $worst%; the end rule $end% mean" &&
	expect_le 2 "$mean" "mean absolute error (%)" &&
	expect_le 5 "$worst" "worst absolute error (%)" &&
	expect_ge 20 "$end" "end rule: mean absolute error (%)"
'

# sim_ranks NAME SEEDS [phase-sim.py options]: two simulated ranks of 3 s
# per seed, each exported with the other as its peer; NAME.err holds every
# (function, rank, seed)'"'"'s signed error (%)
sim_ranks() {
	name=$1 seeds=$2
	shift 2
	for s in $(seq $seeds); do
		$PY "$ROOT/tests/pmu/phase-sim.py" --ranks 2 --seconds 3 --seed $s "$@" $name.$s &&
		for k in 0 1; do
			$PROFILE build $name.$s.$k.prof <$name.$s.$k.txt || return 1
		done &&
		for k in 0 1; do
			$EXPORT --format csv --node-peer $name.$s.$((1 - k)).prof -o $name.$s.$k.csv \
				$name.$s.$k.prof &&
			rank_errors $name.$s.$k.truth $name.$s.$k.csv >>$name.err || return 1
		done || return 1
	done
}

# lean FILE PC / worst_of FILE: a function'"'"'s mean signed error, the worst
lean() {
	awk -v pc=$2 "\$1 == pc { s += \$2; n++ } END { printf \"%.3f\", s / n }" "$1"
}
worst_of() {
	awk "{ a = \$2 < 0 ? -\$2 : \$2; if (a > w) w = a } END { printf \"%.3f\", w }" "$1"
}

# Where in its interval a thread ran (docs/ENERGY.md): under load a
# thread let go after a sample runs at once and is then preempted, so its
# CPU time is at the start of its interval, not spread over it, and the
# ranks'"'"' functions leaned (20 loaded live runs: alpha +3.1%, gamma -2.2%).
# The recorder now writes each thread'"'"'s first and last moment on a CPU
# in the interval (run=), and the estimate places the CPU time there.
# Simulated, 10 seeds of 3 s: a thread running only the start
# of 60% of its intervals (--partial 0.6, samplers missing 20%) leans
# alpha +1.08%, gamma -1.20% without runs, +0.08%, -0.58% with; ranks
# taking turns in 2 ms slices (one sampled sparsely: intervals it ran
# part of) 3.08% mean, 9.36% worst without, 1.93%, 5.26% with.
test_expect_success 'where a thread ran in its intervals: no lean from where it waited' '
	sim_ranks part 10 --missed 0.2 --partial 0.6 &&
	sim_ranks part-nr 10 --missed 0.2 --partial 0.6 --no-runs &&
	sim_ranks turns-r 10 --slice-ms 2 --missed 0,0.6 &&
	sim_ranks turns-nr 10 --slice-ms 2 --missed 0,0.6 --no-runs &&
	for f in part part-nr turns-r turns-nr; do
		echo "$f: alpha $(lean $f.err 0xa)%, gamma $(lean $f.err 0xc)%, worst $(worst_of $f.err)%"
	done &&
	expect_near 0 "$(lean part.err 0xa)" 0.5 "alpha, with runs (mean signed %)" &&
	expect_ge 0.8 "$(lean part-nr.err 0xa)" "alpha, without runs (mean signed %)" &&
	expect_le 6 "$(worst_of turns-r.err)" "ranks taking turns, with runs: worst (%)" &&
	expect_ge 8 "$(worst_of turns-nr.err)" "ranks taking turns, without runs: worst (%)"
'

test_expect_success 'a peer of another host is refused with one error line' '
	{
	echo "host hostname=elsewhere os_release=6.1 os_version=1 arch=x86_64 cpu_desc=c cpu_id=i nr_cpus_online=2 nr_cpus_avail=2 total_mem_kb=1 sampler_version=0.1.0 cmdline=t realtime_ns=1700000000000000000 monotonic_ns=1000000000 start_ns=1000000000 target_hz=1000"
	echo "channel name=package-0 source=rapl unit=uJ scale=1e-06 kind=energy scope=sample"
	echo "process pid=100 ppid=0 time=1000000000"
	echo "thread tid=100 pid=100 time=1000000000"
	echo "sample time=1001000000 nthreads=1 values=13"
	echo "ts tid=100 pid=100 pc=0xa cpu=1000000"
	echo "stats wall=1000000 latency=0 samples=1 thread_samples=1 missed=0 missing=0 signals=0 threads=1 processes=1 exit=0 totals=13"
	} >other.txt &&
	$PROFILE build other.prof <other.txt &&
	run_status $EXPORT --format csv --node-peer other.prof -o x.csv two.1.0.prof 2>err &&
	cat err &&
	expect_eq 1 "$rc" "exit status" &&
	expect_eq 1 "$(wc -l <err)" "error lines" &&
	expect_grep "^sampler-export: error: --node-peer other.prof: recorded on elsewhere, not on .* (a node.s meter is shared by the profiles of one host only)" err
'

test_done
