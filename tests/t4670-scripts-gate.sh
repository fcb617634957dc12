#!/bin/sh
# t4670-scripts-gate.sh - sampler-compare --fail-on, the gate a CI job
# runs: exit status 3 and one line per function (or call path) whose share
# of CPU time or energy grew beyond both profiles' 95% intervals; 0 for
# two runs of one program.  Real profiles: examples/phases runs alpha
# (13 W), beta (28 W) and gamma (8 W) in turn for the CPU times
# PHASES_CYCLE gives, and drives a fake RAPL domain (tests/pmu/energy-lib.sh)
# with the energy they draw; it prints each function's true energy.  The
# base and a second run of it: 10 ms each; the new build: beta 25 ms
# (its CPU share 33% -> 56%, its energy share 57% -> 77%).  --min-share 5:
# main's start-up work (1-3%) is a fixed CPU time, its share follows how
# much CPU the run got in its fixed wall time, which a loaded machine
# changes from run to run.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/pmu/pmu-lib.sh"
. "$ROOT/tests/pmu/energy-lib.sh"
test_have_prereq NUMPY || { skip_all="missing $test_missing_"; test_done; }

COMPARE="$PY $ROOT/scripts/sampler-compare"
SAME="alpha:10,beta:10,gamma:10"
GROWN="alpha:10,beta:25,gamma:10"

start_rapl state

# run NAME CYCLE: 2 s of phases in CYCLE, with call stacks, through the
# fake RAPL domain: NAME.prof, NAME.truth
run() {
	PHASES_STATE=$TRASH/state PHASES_CYCLE=$2 $SAMPLER -g -f 1000 -p rapl -o $1.prof -- \
		"$EXAMPLES/phases" 2 10 >$1.truth 2>>$1.err
}

# truth_share FILE FUNCTION cpu|energy: the function's true share (%) of
# the phases' CPU time (energy / watts) or of their energy
truth_share() {
	awk -v f=$2 -v q=$3 '/^truth / {
		split("alpha=13 beta=28 gamma=8 rest=5 delta=10", ws, " ")
		for (i in ws) { split(ws[i], kv, "="); watt[kv[1]] = kv[2] }
		for (i = 2; i <= NF; i++) {
			split($i, kv, "="); v = q == "cpu" ? kv[2] / watt[kv[1]] : kv[2]
			all += v; if (kv[1] == f) mine = v
		}
		printf "%.2f\n", 100 * mine / all }' "$1"
}

# reported FILE FUNCTION WHAT base|new: the share a regression line gives
reported() {
	sed -n "s/^sampler-compare: regression: $2[ :].*: $3 share \([0-9.]*\)% [^>]*> \([0-9.]*\)% .*/\1 \2/p" "$1" |
	awk -v side=$4 '{ print side == "base" ? $1 : $2 }'
}

test_expect_success 'setup: a base, a second run of it, a build where beta grew' '
	run base $SAME && run again $SAME && run grown $GROWN &&
	for p in base again grown; do
		expect_grep "^truth alpha=" $p.truth &&
		"$BUILD/sampler-profile" dump $p.prof >$p.dump &&
		expect_ge 200 "$(sed -n "s/^stats .* samples=\([0-9]*\).*/\1/p" $p.dump)" "samples of $p"
	done
'

test_expect_success 'the gate fires on the function that grew, naming its shares' '
	run_status $COMPARE --min-share 5 --fail-on cpu --fail-on energy base.prof grown.prof \
		>table 2>gate &&
	cat gate &&
	expect_eq 3 "$rc" "exit status" &&
	expect_eq 2 "$(wc -l <gate)" "regression lines (beta: CPU time, energy)" &&
	expect_near "$(truth_share base.truth beta cpu)" "$(reported gate beta "CPU time" base)" 3 \
		"beta CPU share in the base" &&
	expect_near "$(truth_share grown.truth beta cpu)" "$(reported gate beta "CPU time" new)" 3 \
		"beta CPU share in the new build" &&
	expect_near "$(truth_share base.truth beta energy)" "$(reported gate beta "package-0 energy" base)" 4 \
		"beta energy share in the base" &&
	expect_near "$(truth_share grown.truth beta energy)" "$(reported gate beta "package-0 energy" new)" 4 \
		"beta energy share in the new build" &&
	expect_grep "^beta .* + " table &&
	expect_no_grep "regression: \(alpha\|gamma\)" gate
'

test_expect_success 'the intervals in the line hold the shares, the new above the base' '
	sed -n "s/.*CPU time share \([0-9.]*\)% \[\([0-9.]*\), \([0-9.]*\)\] -> \([0-9.]*\)% \[\([0-9.]*\), \([0-9.]*\)\]$/\1 \2 \3 \4 \5 \6/p" gate >ci &&
	read b blo bhi n nlo nhi <ci &&
	expect_ge "$blo" "$b" "base share over its low end" && expect_le "$bhi" "$b" "base share" &&
	expect_ge "$nlo" "$n" "new share over its low end" && expect_le "$nhi" "$n" "new share" &&
	expect_ge "$bhi" "$nlo" "low end of the new interval, over the base high end" &&
	expect_ge 0.5 "$(awk -v l=$blo -v h=$bhi "BEGIN { print h - l }")" "base interval width (points)"
'

test_expect_success 'two runs of one program: no regression' '
	run_status $COMPARE --min-share 5 --fail-on cpu,energy base.prof again.prof >table 2>gate &&
	cat gate && expect_eq 0 "$rc" "exit status" && expect_empty "$(cat gate)" "regression lines" &&
	expect_grep "^beta " table &&
	run_status $COMPARE --tree --min-share 5 --fail-on cpu,energy base.prof again.prof >tree 2>gate &&
	cat gate && expect_eq 0 "$rc" "exit status (--tree)" && expect_empty "$(cat gate)" "regression lines"
'

test_expect_success 'the call-path view gates on the path into beta' '
	run_status $COMPARE --tree --min-share 5 --fail-on cpu base.prof grown.prof >tree 2>gate &&
	cat gate && expect_eq 3 "$rc" "exit status" &&
	expect_grep "^sampler-compare: regression: phases;.*;main;beta: CPU time share" gate &&
	expect_near "$(truth_share grown.truth beta cpu)" \
		"$(sed -n "s/.*;main;beta: CPU time share [^>]*> \([0-9.]*\)% .*/\1/p" gate)" 3 \
		"beta path CPU share in the new build" &&
	expect_no_grep ";\(alpha\|gamma\)[;:]" gate
'

test_expect_success 'a share limit above beta (perf'"'"'s --percent-limit) keeps the gate quiet' '
	run_status $COMPARE --percent-limit 60 --fail-on cpu base.prof grown.prof >table 2>gate &&
	expect_eq 0 "$rc" "exit status" && expect_empty "$(cat gate)" "regression lines"
'

test_expect_success 'no --fail-on: the table only, exit status 0' '
	run_status $COMPARE base.prof grown.prof >table 2>gate &&
	expect_eq 0 "$rc" "exit status" && expect_empty "$(cat gate)" "stderr" &&
	expect_grep "^beta " table
'

test_expect_success 'bad --fail-on, or energy without a channel: one error line, status 1' '
	run_status $COMPARE --fail-on power base.prof grown.prof >out 2>err &&
	expect_eq 1 "$rc" "exit status" &&
	one_error err "^sampler-compare: error: --fail-on .power.: unknown quantity (use cpu, energy" &&
	"$SAMPLER" -g -f 200 -o plain.prof -- "$EXAMPLES/busy" 0.2 >/dev/null 2>&1 &&
	run_status $COMPARE --fail-on energy plain.prof plain.prof >out 2>err &&
	expect_eq 1 "$rc" "exit status" &&
	one_error err "^sampler-compare: error: --fail-on energy: the profiles have no energy channel"
'

test_done
