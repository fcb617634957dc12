#!/bin/sh
# Merging the ranks of a job keeps their energy (docs/EXPORT.md, "Several
# PROFILEs"; docs/ENERGY.md, "Ranks sharing a node").  Four ranks built
# from text (deterministic: no recorder, no load): ranks 0 and 1 on host
# nodea, whose node meter counts rank 0 (20 W in one code for the first
# second, 5 W in another for the next) plus rank 1 (10 W): 45 J; ranks 2
# and 3 on nodeb, 30 W + 15 W: 90 J (rank 3 runs half of each ms, at
# rank 2's power per CPU second).  Each profile reads its node's meter
# whole at its own sample times (rank 1 0.5 ms after rank 0, rank 3 0.3 ms
# after rank 2), as the ranks of a host each record the node.
#
# The merge divides each rank's readings with the other ranks of its host
# as --node-peer profiles and writes each thread's part as a per-thread
# counter, energy-package-0-uJ: per rank it must give what the meter was
# told that rank draws (25, 20, 60, 30 J), as the rank's own --node-peer
# export must, per host the node's energy once (not once per rank), and a
# host's ranks must not take the other host's ranks as peers.
# Then two ranks recorded with -g on t2130's fake node meter: the same per
# rank, the node once within t2130's 5%, energy per rank and function in
# perf report.
. "$(dirname "$0")/lib.sh"

PROFILE=$BUILD/sampler-profile

# rank_profile HOST RANK PID OFFSET_NS WORKLOAD NODE OUT [CPU]: OUT.prof,
# the rank's profile: one thread sampled every 1 ms for 2 s, running CPU
# of each ms (default 1: busy), the node meter's energy since the
# previous sample in each sample (package-0, uJ).
rank_profile() {
	awk -v host=$1 -v rank=$2 -v pid=$3 -v off=$4 -v mine=$5 -v node=$6 -v n=2000 -v share=${8:-1} '
	# the node meter: J counted from 0 to t s
	function meter(t) {
		if (node == "b")
			return 45 * t
		return 10 * t + (t < half ? 20 * t : 20 * half + 5 * (t - half))
	}
	BEGIN {
		dt = 1000000; t0 = 1000000000 + off; half = 2.0
		printf "format name=native compressed=0\n"
		printf "host hostname=%s os_release=6.1 os_version=x arch=x86_64 cpu_desc=c cpu_id=c nr_cpus_online=2 nr_cpus_avail=2 total_mem_kb=4000000 sampler_version=0.1.0 cmdline=sampler realtime_ns=1700000001000000000 monotonic_ns=1000000000 start_ns=%.0f target_hz=1000 rank=%s job_id=j1\n", host, t0 - dt, rank
		printf "channel name=package-0 source=rapl unit=uJ scale=1e-06 kind=energy scope=sample\n"
		printf "process pid=%d ppid=0 time=%.0f\n", pid, t0 - dt
		printf "exec pid=%d time=%.0f comm=phases argv=phases\n", pid, t0 - dt
		printf "thread tid=%d pid=%d time=%.0f\n", pid, pid, t0 - dt
		for (j = 0; j < n; j++) {
			t = t0 + j * dt
			pc = mine == "hot" ? (t < half * 1e9 ? "0x401000" : "0x402000") : mine
			printf "sample time=%.0f nthreads=1 values=%.3f\n", t,
				(meter(t / 1e9) - meter((t - dt) / 1e9)) * 1e6
			printf "ts tid=%d pid=%d pc=%s cpu=%.0f dcpu=%.0f\n", pid, pid, pc, (j + 1) * dt * share, dt * share
		}
		printf "exit tid=%d pid=%d time=%.0f whole=1 cpu=%.0f\n", pid, pid, t0 + n * dt, n * dt * share
		printf "stats wall=%.0f latency=0 samples=%d thread_samples=%d missed=0 missing=0 signals=0 threads=1 processes=1 exit=0 totals=0\n", n * dt, n, n
	}' >$7.txt &&
	"$PROFILE" build $7.prof <$7.txt
}

# csv_energy CSV COLUMN: "RANK uJ" per line, the column's sum per input of
# a merged CSV (profile i's pids are i << 22 | pid), with 3 decimals.
csv_energy() {
	grep -v "^#" "$1" | awk -F, -v col="$2" '
		NR == 1 { for (i = 1; i <= NF; i++) if ($i == col) c = i; next }
		c { s[int($2 / 4194304)] += $c }
		END { for (r in s) printf "%d %.3f\n", r, s[r] }' | sort -n
}

# TRUTH: what the node meters were told each rank draws (uJ), per rank.
TRUTH="0 25000000
1 20000000
2 60000000
3 30000000"

# near_truth RANK UJ WHAT: UJ within 5% of the rank's truth.
near_truth() {
	t=$(echo "$TRUTH" | awk -v r=$1 '$1 == r { print $2 }') &&
	expect_near "$t" "$2" "$(awk -v t="$t" 'BEGIN { print 0.05 * t }')" "$3"
}

# rank_of FILE RANK: the second field of FILE's line for RANK.
rank_of() {
	awk -v r=$2 '$1 == r { print $2 }' "$1"
}

test_expect_success 'setup: two hosts, two ranks each, every rank reads its node' '
	rank_profile nodea 0 100 0 hot a r0 &&
	rank_profile nodea 1 200 500000 0x403000 a r1 &&
	rank_profile nodeb 2 100 0 0x404000 b r2 &&
	rank_profile nodeb 3 300 300000 0x405000 b r3 0.5 &&
	for r in 0 1 2 3; do
		"$EXPORT" --info r$r.prof >r$r.info &&
		expect_grep "package-0 (rapl, energy, per sample): total" r$r.info || return 1
	done
'

test_expect_success 'the merge keeps the energy: a per-thread count per channel, every format' '
	run_status "$EXPORT" --format csv -o m.csv r0.prof r1.prof r2.prof r3.prof 2>m.err &&
	expect_eq 0 "$rc" "exit status" &&
	expect_empty "$(cat m.err)" "stderr" &&
	expect_grep "^# channel index=0 name=energy-package-0-uJ source=rapl unit=uJ scale=1e-06 kind=counter scope=thread$" m.csv &&
	csv_energy m.csv energy-package-0-uJ >merged &&
	cat merged &&
	expect_eq 4 "$(wc -l <merged)" "ranks with energy" &&
	"$EXPORT" --format folded --weight energy-package-0-uJ -o m.folded r0.prof r1.prof r2.prof r3.prof &&
	expect_near "$(awk "{ s += \$2 } END { print s }" merged)" \
		"$(awk "{ s += \$NF } END { print s }" m.folded)" 4 "folded energy total (uJ)"
'

test_expect_success 'per rank: what its meter was told, merged and in its own --node-peer export' '
	for p in "0 1" "1 0" "2 3" "3 2"; do
		set -- $p &&
		"$EXPORT" --format csv --node-peer r$2.prof -o own$1.csv r$1.prof &&
		own=$(csv_energy own$1.csv package-0 | awk "{ print \$2 }") &&
		got=$(rank_of merged $1) &&
		echo "rank $1: merged $got uJ, own --node-peer export $own uJ" &&
		near_truth $1 "$got" "rank $1 energy, merged (uJ)" &&
		near_truth $1 "$own" "rank $1 energy, its own export (uJ)" || return 1
	done
'

test_expect_success 'per host: the node meter once, not once per rank' '
	a=$(awk "\$1 <= 1 { s += \$2 } END { printf \"%.0f\", s }" merged) &&
	b=$(awk "\$1 >= 2 { s += \$2 } END { printf \"%.0f\", s }" merged) &&
	echo "nodea: ranks $a uJ, meter 45000000 uJ; nodeb: ranks $b uJ, meter 90000000 uJ" &&
	# (the estimator gives the peers of a host 0.1-0.2% more than the meter:
	# its first samples; each rank once more would be 100%)
	expect_near 45000000 "$a" 225000 "nodea energy, 0.5% (uJ)" &&
	expect_near 90000000 "$b" 450000 "nodeb energy, 0.5% (uJ)"
'

test_expect_success 'each host divides its own meter: nodea merged alone, its truth' '
	"$EXPORT" --format csv -o a.csv r0.prof r1.prof &&
	csv_energy a.csv energy-package-0-uJ >alone &&
	cat alone &&
	expect_eq 2 "$(wc -l <alone)" "ranks with energy" &&
	for r in 0 1; do
		near_truth $r "$(rank_of alone $r)" "rank $r energy (uJ)" || return 1
	done
'

test_expect_success PERF 'perf report --sort comm: energy samples per rank, as the meter was told' '
	"$EXPORT" -o m.data r0.prof r1.prof r2.prof r3.prof &&
	perf report -i m.data --stdio --sort comm -F comm,period >report.txt 2>report.err &&
	expect_empty "$(cat report.err)" "perf report stderr" &&
	awk "/^# Samples:/ { ev = \$NF } ev == \"'"'"'energy-package-0-uJ'"'"'\" && /^  phases\[rank/ { sub(/^.*\[rank /, \"\"); sub(/\]/, \"\"); print }" \
		report.txt >perf-ranks &&
	cat perf-ranks &&
	expect_eq 4 "$(wc -l <perf-ranks)" "ranks in the energy event" &&
	for r in 0 1 2 3; do
		near_truth $r "$(rank_of perf-ranks $r)" "rank $r energy in perf report (uJ)" || return 1
	done
'

test_expect_success 'what the merge cannot divide is left out with one warning line' '
	run_status "$EXPORT" --format csv --energy-rule end -o end.csv r0.prof r1.prof 2>end.err &&
	expect_eq 0 "$rc" "exit status, end rule" &&
	expect_eq 1 "$(wc -l <end.err)" "warning lines, end rule" &&
	expect_grep "warning: the merge leaves the energy and power channels out (--energy-rule end" end.err &&
	expect_no_grep "energy-package-0-uJ" end.csv &&
	expect_grep "^time_ns,pid,tid,kind,pc,cpu_delta_ns,wall_delta_ns$" end.csv &&
	run_status "$EXPORT" --format csv -o stdin.csv - r1.prof <r0.prof 2>stdin.err &&
	expect_eq 0 "$rc" "exit status, stdin" &&
	expect_eq 1 "$(wc -l <stdin.err)" "warning lines, stdin" &&
	expect_grep "(- is not a file" stdin.err &&
	expect_no_grep "energy-package-0-uJ" stdin.csv
'

# Recorded ranks, as t2130 records them: two ranks of examples/phases with
# -g on one fake RAPL package (1 ms updates) that counts both (real maps,
# the ranks' one binary at two addresses, call stacks, a loaded machine).
# Each rank is held to the energy its workload says it drew (phases'
# truth line), within 15% (t2130: a rank's functions within 20% at worst;
# 29 Nov, load 26: +2.6% and -2.7%).
. "$ROOT/tests/pmu/pmu-lib.sh"
. "$ROOT/tests/pmu/energy-lib.sh"
no_rank_env
start_rapl state.0 state.1

test_expect_success 'two recorded ranks of one node (-g): each what it drew, the node once' '
	RUNS=1 &&
	record_ranks rec 1000 5 20 rapl -g &&
	node=$(cat rec.1.0.truth rec.1.1.truth |
		awk "{ for (i = 2; i <= NF; i++) { split(\$i, kv, \"=\"); s += kv[2] } } END { printf \"%.0f\", s * 1e6 }") &&
	"$EXPORT" --format csv -o rec.csv rec.1.0.prof rec.1.1.prof &&
	csv_energy rec.csv energy-package-0-uJ >rec.ranks &&
	cat rec.ranks &&
	expect_eq 2 "$(wc -l <rec.ranks)" "ranks with energy" &&
	for r in 0 1; do
		truth=$(awk "{ for (i = 2; i <= NF; i++) { split(\$i, kv, \"=\"); s += kv[2] } } END { printf \"%.0f\", s * 1e6 }" rec.1.$r.truth) &&
		echo "rank $r: merged $(rank_of rec.ranks $r) uJ, its workload drew $truth uJ" &&
		expect_near "$truth" "$(rank_of rec.ranks $r)" "$(awk -v t="$truth" "BEGIN { print 0.15 * t }")" \
			"rank $r energy (uJ)" || return 1
	done &&
	got=$(awk "{ s += \$2 } END { printf \"%.0f\", s }" rec.ranks) &&
	echo "ranks $got uJ, node truth $node uJ" &&
	# (t2130: the ranks of one run within 5% of the node)
	expect_near $node $got $(awk -v n=$node "BEGIN { print 0.05 * n }") "the ranks energy (uJ)"
'

test_expect_success PERF 'perf report of the merged -g ranks: energy per rank and function' '
	"$EXPORT" -o rec.data rec.1.0.prof rec.1.1.prof &&
	perf report -i rec.data --stdio --no-children --sort comm,sym -F comm,sym,period >rec.txt 2>rec.err &&
	expect_empty "$(cat rec.err)" "perf report stderr" &&
	awk "/^# Samples:/ { ev = \$NF } ev == \"'"'"'energy-package-0-uJ'"'"'\" && /\\[\\.\\] beta/" rec.txt >rec.beta &&
	cat rec.beta &&
	expect_grep "phases\\[rank 0\\]" rec.beta &&
	expect_grep "phases\\[rank 1\\]" rec.beta
'

# sampler-report divides a rank's node energy with its host's other
# profiles (--node-peer) and caches the result: the key must change when a
# peer does (its size and mtime), though the rank's own file did not.
# Rank 1 rewritten with a tenth of its CPU time moves rank 0's share of
# the node from 24.3 J to 41.0 J; the cached report must say the new
# figure, as the report without a cache does.  Seen failing: with the key
# leaving the peers out, the cached report kept 24.3415 J.
test_expect_success NUMPY 'sampler-report'"'"'s cache: a node peer rewritten is read again' '
	rank_profile nodea 0 100 0 hot a c0 &&
	rank_profile nodea 1 200 500000 0x403000 a c1 &&
	rank0_J() { SAMPLER_BIN_DIR=$BUILD XDG_CACHE_HOME=$TRASH/cache \
		/usr/bin/python3 "$ROOT/scripts/sampler-report" --by rank --csv "$@" c0.prof c1.prof |
		awk -F, "NR == 1 { for (i = 1; i <= NF; i++) if (\$i == \"package-0_J\") c = i }
			\$1 == \"rank 0\" { print \$c }"; } &&
	before=$(rank0_J) &&
	awk "{ for (i = 1; i <= NF; i++) if (\$i ~ /^(cpu|dcpu)=/) {
		split(\$i, kv, \"=\"); \$i = kv[1] \"=\" int(kv[2] / 10) } print }" c1.txt >c1b.txt &&
	"$PROFILE" build c1.prof <c1b.txt &&
	cached=$(rank0_J) &&
	fresh=$(SAMPLER_NO_CACHE=1 rank0_J) &&
	echo "rank 0: before $before J, after: cached $cached J, fresh $fresh J" &&
	expect_ge 5 "$(awk -v a="$before" -v b="$fresh" "BEGIN { d = a - b; print (d < 0 ? -d : d) }")" \
		"the change of rank 0'"'"'s energy the peer makes (J)" &&
	expect_eq "$fresh" "$cached" "rank 0 energy through the cache (J)"
'

test_done
