#!/bin/sh
# bench/energy.sh - energy per function against the truth (docs/ENERGY.md):
# examples/phases (alpha 13 W, beta 28 W, gamma 8 W, delta 10 W at 1.7% of
# the energy) on the fake meters of tests/fakes/fake-phase-meter.py, per
# meter kind, phase length and rate, and two ranks sharing one RAPL node
# (t2130's setting), under both --energy-rule trapezoid and end, the same
# profiles, and the trapezoid rule on copies of them without the runs
# (where each thread ran in its intervals: docs/ENERGY.md; under load
# they matter, quiet they hardly do).  One markdown table row each: mean absolute and worst error of
# the energy per (function, run) (alpha, beta, gamma), and the coverage of
# the 95% intervals (all four; delta's alone).  Prints, never asserts.
# Arguments choose rows (below).  ENERGY_RUNS (default 20) runs of
# ENERGY_SECONDS (3) each: the tests run
# 10 of 1.2 s; the error of a function's energy is mostly where its
# phases began and ended, unknown within a sample interval, so it shrinks
# as 1/sqrt(seconds) (docs/notes/accuracy-notebook.md).
cd "$(dirname "$0")/.." || exit 1
ROOT=$PWD
BUILD=${BUILD:-$ROOT/build}
PY=/usr/bin/python3
RUNS=${ENERGY_RUNS:-20}
SECONDS_=${ENERGY_SECONDS:-3}
SAMPLER_OPTS=${ENERGY_SAMPLER_OPTS:-}	# more options for every recording
METER="$PY $ROOT/tests/fakes/fake-phase-meter.py"
CHECK="$PY $ROOT/tests/pmu/energy-check.py"
export SAMPLER_BIN_DIR=$BUILD
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sampler-bench-energy.XXXXXX")
pids=
trap 'kill $pids 2>/dev/null; rm -rf "$tmp"' EXIT

if [ ! -x "$BUILD/examples/phases" ] || ! $PY -c "import numpy" 2>/dev/null; then
	echo "energy: skipped (build/examples/phases or numpy missing; run make deps && make)"
	exit 0
fi
cd "$tmp" || exit 1
RT=	# (above the sampler's SCHED_FIFO 50, as in tests/pmu/energy-lib.sh)
chrt -f 60 true 2>/dev/null && RT="chrt -f 60"
# need METER: start the fake meter a row reads, once (each one simulates
# all the time: starting all six for a row or two loaded the machine)
need() {
	case " $started " in *" $1 "*) return 0 ;; esac
	started="$started $1"
	case $1 in
	rapl) $METER state rapl.state
		$RT $METER rapl rapl rapl.state >/dev/null 2>&1 &
		ready=rapl/class/powercap/intel-rapl:0/energy_uj ;;
	# a RAPL-like counter 5 times faster (issue 42: placed as RAPL's 1
	# ms, each update of a counter faster than the sampling leaned
	# towards the past)
	rapl02) $METER state rapl02.state
		$RT $METER rapl rapl02 rapl02.state --update-ms 0.2 >/dev/null 2>&1 &
		ready=rapl02/class/powercap/intel-rapl:0/energy_uj ;;
	node) $METER state ranks.0 ranks.1
		$RT $METER rapl node ranks.0 ranks.1 >/dev/null 2>&1 &
		ready=node/class/powercap/intel-rapl:0/energy_uj ;;
	# SCPI power meters: 100 Hz with a 20 ms delay, 500 Hz with 10 ms
	# (t2120's), 1 kHz with 2 ms
	scpi.*) m=${1#scpi.}
		$METER state $1.state
		$RT $METER scpi $1.port $1.state --rate-hz ${m%:*} --delay-ms ${m#*:} >/dev/null 2>&1 &
		ready=$1.port ;;
	esac
	pids="$pids $!"
	for i in $(seq 100); do
		[ -s "$ready" ] && return 0
		sleep 0.05
	done
	echo "energy: the fake meter $1 did not start" >&2
	return 1
}
started=

# row METER HZ MS [SECONDS] [-g]: record RUNS runs (of SECONDS, else
# ENERGY_SECONDS), then one table row per rule (with -g, recorded with
# call stacks and checked per call path); METER is rapl, rapl:0.2 (the
# counter updating every 0.2 ms) or scpi:RATE:DELAY, or
# scpi:RATE:DELAY:poll for the meter polled at 1 kHz or twice its rate,
# the higher, and counted (poll_hz=); MS "up" or "down": the phases in a
# fixed order (PHASES_CYCLE), 13 W 8 ms, 28 W 20 ms, 8 W 12 ms (up), or
# the other way (down)
row() {
	label=$1 secs=$SECONDS_ g= cycle= ms=$3
	case $3 in
	up) cycle=alpha:8,beta:20,gamma:12 ms=5 ;;
	down) cycle=gamma:12,beta:20,alpha:8 ms=5 ;;
	esac
	for opt in $4 $5; do
		case $opt in
		-g) g=-g ;;
		*) secs=$opt ;;
		esac
	done
	case $1 in
	rapl) need rapl || return 1
		pmu=rapl env="SAMPLER_SYSFS_ROOT=$tmp/rapl PHASES_STATE=$tmp/rapl.state" ch=package-0 rest=20 ;;
	rapl:0.2) need rapl02 || return 1
		pmu=rapl env="SAMPLER_SYSFS_ROOT=$tmp/rapl02 PHASES_STATE=$tmp/rapl02.state"
		ch=package-0 rest=20 label="rapl, 0.2 ms updates" ;;
	scpi:*)
		m=${1#scpi:} poll=
		case $m in *:poll) m=${m%:poll} poll_rate=$((2 * ${m%:*} > 1000 ? 2 * ${m%:*} : 1000))
			poll=,poll_hz=$poll_rate ;; esac
		need scpi.$m || return 1
		pmu=scpi:tcp://127.0.0.1:$(cat scpi.$m.port),timeout_ms=200$poll
		label="scpi ${m%:*} Hz, ${m#*:} ms delay${poll:+, polled at $poll_rate Hz}"
		env="PHASES_STATE=$tmp/scpi.$m.state" ch=scpi rest=50 ;;
	esac
	runs=
	for i in $(seq $RUNS); do
		env $env ${cycle:+PHASES_CYCLE=$cycle} "$BUILD/sampler" $SAMPLER_OPTS $g -f $2 -p $pmu \
			-o r.$i.prof -- "$BUILD/examples/phases" $secs $ms $rest \
			>r.$i.truth 2>/dev/null || return 1
		runs="$runs r.$i"
	done
	[ "$secs" = "$SECONDS_" ] || label="$label, runs of $secs s"
	table "$label${g:+ $g paths}" $2 $3 $ch "${g:+--tree}" $runs
}

# table METER HZ MS CHANNEL CHECK-OPTIONS RUN...: the rows of both rules,
# and of the trapezoid rule on the same profiles without the recorder's
# runs (where in its interval each thread ran: docs/ENERGY.md)
table() {
	m=$1 hz=$2 ms=$3 ch=$4 opts=$5
	shift 5
	bare=
	for name; do
		for f in $name.prof $name.[0-9].prof; do
			[ -f "$f" ] || continue
			"$BUILD/sampler-profile" dump "$f" | sed 's/ runs=1//; s/ run=[0-9,]*//' |
				"$BUILD/sampler-profile" build "bare.$f" || return 1
			cp "${f%.prof}.truth" "bare.${f%.prof}.truth"
		done
		bare="$bare bare.$name"
	done
	for label in end trapezoid "trapezoid, no runs"; do
		rule=${label%,*}
		[ "$label" = "$rule" ] || set -- $bare
		$CHECK --channel $ch --rule $rule $opts "$@" |
		awk -v m="$m" -v hz=$hz -v ms=$ms -v r="$label" '/^summary/ {
			for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
			printf "| %s | %s | %s | %s | %s | %s%% | %s%% | %s%% | %s%% |\n", m, hz, ms, r,
				v["pairs"], v["mean_abs_err"], v["worst"], v["coverage"], v["small_coverage"] }'
	done
}

# ranks HZ MS: two ranks of a job on the node meter, per (rank, function)
ranks() {
	need node || return 1
	runs=
	for i in $(seq $RUNS); do
		for r in 0 1; do
			env SAMPLER_SYSFS_ROOT=$tmp/node PHASES_STATE=$tmp/ranks.$r OMPI_COMM_WORLD_RANK=$r \
				OMPI_COMM_WORLD_SIZE=2 OMPI_MCA_ess_base_jobid=$i \
				"$BUILD/sampler" $SAMPLER_OPTS -f $1 -p rapl -o n.$i.%r.prof -- \
				"$BUILD/examples/phases" $SECONDS_ $2 20 >n.$i.$r.truth 2>/dev/null &
			eval pid$r=\$!
		done
		wait $pid0 && wait $pid1 || return 1
		runs="$runs n.$i"
	done
	table "RAPL node, 2 ranks" $1 $2 package-0 "--ranks 2" $runs
}

# the rows: "METER HZ MS [SECONDS] [-g]" (row) or "ranks HZ MS"; arguments
# choose some, as in sh bench/energy.sh "rapl 10000 2" "scpi:500:10 1000 20".
# The 100 Hz meter again in runs of 10 s: each of its updates holds two
# phases, and what tells their powers apart is sampling noise that
# shrinks with the run (docs/ENERGY.md).
[ $# -gt 0 ] || set -- "rapl 1000 0.5" "rapl 1000 2" "rapl 1000 5" "rapl 1000 20" \
	"rapl 1000 up" "rapl 1000 down" "rapl:0.2 1000 up" "rapl:0.2 1000 down" \
	"rapl 10000 0.5" "rapl 10000 2" "rapl 10000 5" "rapl 1000 5 -g" "ranks 1000 5" \
	"scpi:500:10 1000 2" "scpi:500:10 1000 5" "scpi:500:10 1000 20" \
	"scpi:100:20 1000 5" "scpi:100:20 1000 5 10" "scpi:1000:2 1000 5" \
	"scpi:500:10:poll 1000 5" "scpi:100:20:poll 1000 5" "scpi:1000:2:poll 1000 5"
echo "| meter | Hz | phase ms | rule | pairs | mean abs error | worst | coverage | delta's coverage |"
echo "|---|---|---|---|---|---|---|---|---|"
for spec; do
	case $spec in
	ranks\ *) ranks ${spec#ranks } ;;
	*) row $spec ;;
	esac
done
