# energy-lib.sh - energy per function against a fake meter's truth (t2110,
# t2120; docs/ENERGY.md), sourced after pmu-lib.sh.  examples/phases runs
# alpha (13 W), beta (28 W) and gamma (8 W) in turn, tells a fake meter
# (tests/fakes/fake-phase-meter.py) which phase it is in through $TRASH/state,
# and prints each function's true energy; energy-check.py compares the
# profiles' energy per function with it.
METER="$PY $FAKES/fake-phase-meter.py"
CHECK="$PY $ROOT/tests/pmu/energy-check.py"
export SAMPLER_BIN_DIR=$BUILD
RUNS=${SAMPLER_ENERGY_RUNS:-10}

# The meter runs real-time when it may, above the sampler's SCHED_FIFO 50
# (a meter does not wait for the CPU: on a loaded machine a plain fake
# updated every 35 ms, not every 1; at 30, two samplers on the 2 CPUs held
# it back 3-9 ms at a time)
RT=
chrt -f 60 true 2>/dev/null && RT="chrt -f 60"

# start_rapl STATE...: a fake RAPL package under $TRASH/rapl that counts
# the workloads of the STATE files (made zeroed), SAMPLER_SYSFS_ROOT set to
# it; at the top level only, as start_meter (pmu-lib.sh).
start_rapl() {
	$METER state "$@"
	$RT $METER rapl rapl "$@" >>fakes.out 2>&1 &
	FAKE_PIDS="$FAKE_PIDS $!"
	export SAMPLER_SYSFS_ROOT=$TRASH/rapl
	for i in $(seq 100); do
		[ -s rapl/class/powercap/intel-rapl:0/energy_uj ] && return 0
		sleep 0.05
	done
	echo "fake RAPL did not start" >&2
	return 1
}

# start_scpi STATE: a fake SCPI meter of t2120's (500 Hz, 10 ms late) that
# counts the workload of STATE (made zeroed), its port in scpi.port; at the
# top level only, as start_meter (pmu-lib.sh).
start_scpi() {
	$METER state "$1"
	$RT $METER scpi scpi.port "$1" --rate-hz 500 --delay-ms 10 >>fakes.out 2>&1 &
	FAKE_PIDS="$FAKE_PIDS $!"
	for i in $(seq 100); do
		[ -s scpi.port ] && return 0
		sleep 0.05
	done
	echo "fake SCPI meter did not start" >&2
	return 1
}

# count_ratio DUMP TRUTH: the channel's (the first) per-sample sum in a
# profile's dump over the energy drawn that the workload's truth line gives
count_ratio() {
	awk -v got=$(sample_sum "$1" 1) '{ for (i = 2; i <= NF; i++) { split($i, kv, "="); t += kv[2] } }
		END { printf "%.4f\n", got / t }' "$2"
}

# no_rank_env: this script is not a rank of a job (record_ranks sets the
# variables of one, mpirun's, for each rank it starts)
no_rank_env() {
	unset OMPI_COMM_WORLD_RANK PMI_RANK PMIX_RANK SLURM_PROCID SLURM_JOB_ID \
		OMPI_MCA_ess_base_jobid OMPI_COMM_WORLD_SIZE PMI_SIZE SLURM_NTASKS \
		SLURM_STEP_NUM_TASKS
}

# record NAME HZ MS REST PLUGIN [SAMPLER OPTIONS]: RUNS runs of
# PHASE_SECONDS (1.2) s of phases MS long at HZ, with REST ms of rest (5 W) before and after, read
# through PLUGIN, as NAME.1 ... NAME.RUNS (.prof and .truth).
record() {
	name=$1 hz=$2 ms=$3 rest=$4 plugin=$5
	shift 5
	for i in $(seq $RUNS); do
		PHASES_STATE=$TRASH/state $SAMPLER "$@" -f $hz -p $plugin -o $name.$i.prof -- \
			"$EXAMPLES/phases" ${PHASE_SECONDS:-1.2} $ms $rest >$name.$i.truth 2>>$name.err || return 1
	done
}

# record_ranks NAME HZ MS REST PLUGIN [SAMPLER OPTIONS]: RUNS runs of two ranks of one job
# (the rank variables set as mpirun sets them) on this node side by side,
# each examples/phases PHASE_SECONDS (1.2) s with its own state file ($TRASH/state.0 and
# .1, both counted by the one fake meter), as NAME.RUN.RANK.prof/.truth.
record_ranks() {
	name=$1 hz=$2 ms=$3 rest=$4 plugin=$5
	shift 5
	for i in $(seq $RUNS); do
		for r in 0 1; do
			OMPI_COMM_WORLD_RANK=$r OMPI_COMM_WORLD_SIZE=2 OMPI_MCA_ess_base_jobid=$i \
			PHASES_STATE=$TRASH/state.$r $SAMPLER "$@" -f $hz -p $plugin -o $name.$i.%r.prof -- \
				"$EXAMPLES/phases" ${PHASE_SECONDS:-1.2} $ms $rest >$name.$i.$r.truth 2>>$name.err &
			eval pid$r=\$!
		done
		wait $pid0 || return 1
		wait $pid1 || return 1
	done
}

# runs NAME: the runs' names, for energy-check.py
runs() {
	for i in $(seq $RUNS); do
		printf "%s " $1.$i
	done
}

# misses_bar FILE MEAN WORST [COVERAGE]: energy-check.py's summary line in
# FILE misses the bar (mean or worst absolute error in % above, coverage of
# the 95% intervals in % below; 90 unless given), each figure a number: a
# summary of nan, or none, misses nothing (it was taken as a miss).
misses_bar() {
	local mean worst cover
	mean=$(field "$1" summary mean_abs_err) && worst=$(field "$1" summary worst) &&
	cover=$(field "$1" summary coverage) &&
	expect_number_ "$mean" "the mean absolute error (%)" &&
	expect_number_ "$worst" "the worst error (%)" &&
	expect_number_ "$cover" "the coverage (%)" || return 1
	awk -v m=$2 -v w=$3 -v c=${4:-90} -v a="$mean" -v b="$worst" -v d="$cover" \
		'BEGIN { exit !(a > m || b > w || d < c) }' && return 0
	echo "expected a miss of the bar (mean <= $2, worst <= $3, coverage >= ${4:-90}), got mean $mean, worst $worst, coverage $cover"
	return 1
}

# bar FILE MEAN WORST [COVERAGE]: assert the bar, naming each figure
bar() {
	cat "$1" &&
	expect_le $2 "$(field "$1" summary mean_abs_err)" "mean absolute error (%)" &&
	expect_le $3 "$(field "$1" summary worst)" "worst error (%)" &&
	expect_ge ${4:-90} "$(field "$1" summary coverage)" "coverage of the 95% intervals (%)"
}

# mean_error FILE FUNCTION: its mean signed error (%) over the runs
mean_error() {
	awk -v f="$2" '$2 == f { sub(/error=/, "", $7); s += $7; n++ } END { printf "%.2f\n", s / n }' "$1"
}
