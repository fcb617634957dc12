#!/bin/sh
# Two ranks of a job sharing a node (docs/ACCURACY.md, "Ranks sharing a
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
# with the run.  27 Nov, 10 runs of 3 s: load 3 (a make check beside)
# 1.34%, 6.08%; load 5 (and two busy loops) 1.66%, 5.34%; the sanitizer
# build in a fresh clone's make check under two busy loops 2.71%, 14.0%
# (gamma 6-14% low in several runs: a lean under that load, not noise),
# 97.5% covered.  (1.2 s runs, when the bar was 6% / 25%: quiet 1.44%,
# 4.60%; under two busy loops 2.63-3.54%, 9.45-14.5%, five sets, two on
# the sanitizer build.)
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

test_expect_success 'the ranks add up to the node once, not twice' '
	for i in $(seq $RUNS); do
		$PY "$ROOT/scripts/sampler-report" --json --no-cache --by rank two.$i.0.prof two.$i.1.prof >ranks.$i.json &&
		got=$($PY -c "import json; print(\"%.4f\" % sum(r[\"package-0_J\"] for r in json.load(open(\"ranks.$i.json\"))[\"rows\"]))") &&
		node=$(truth_sum two.$i.0.truth two.$i.1.truth) &&
		echo "run $i: ranks $got J, node truth $node J" &&
		expect_near $node $got $(awk -v n=$node "BEGIN { print 0.05 * n }") "the ranks energy, run $i (J)" ||
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
	! passes old 5 20
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
