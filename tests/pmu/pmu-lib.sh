# pmu-lib.sh - helpers shared by the PMU plug-in tests (t2*-pmu-*.sh),
# sourced after lib.sh.
PROBE=$BUILD/tests/pmu-probe
# workloads come from the plain build, like $EXAMPLES (lib.sh)
WORK=$(dirname "$EXAMPLES")/tests/pmu-workload
PROFILE=$BUILD/sampler-profile
PY=/usr/bin/python3
FAKES=$ROOT/tests/fakes

# field FILE PREFIX KEY: the value of KEY=... on the first line of FILE that
# starts with PREFIX (pmu-probe and sampler-profile dump print key=value).
field() {
	awk -v p="$2" -v k="$3=" 'index($0, p) == 1 {
		for (i = 1; i <= NF; i++)
			if (index($i, k) == 1) { print substr($i, length(k) + 1); exit }
		exit
	}' "$1"
}

# within_percent EXPECTED ACTUAL PERCENT [WHAT]
within_percent() {
	expect_near "$1" "$2" "$(awk -v e="$1" -v p="$3" 'BEGIN { print (e < 0 ? -e : e) * p / 100 }')" "${4:-}"
}

# one_error FILE PATTERN: FILE holds exactly one line, matching PATTERN
# (besides what a loaded machine adds: lib.sh, but_load_notes).
one_error() {
	expect_eq 1 "$(but_load_notes "$1" | wc -l)" "error lines in $1" &&
	expect_grep "$2" "$1"
}

# sample_sum FILE INDEX: sum of the INDEX-th (from 1) per-sample value over
# the `sample` lines of a dump, NaN skipped; sample_nan counts the NaNs.
sample_sum() {
	sed -n 's/^sample .* values=\([^ ]*\).*/\1/p' "$1" |
	awk -F, -v i="$2" '$i != "nan" && $i != "" { s += $i } END { printf "%.17g\n", s }'
}
sample_nan() {
	sed -n 's/^sample .* values=\([^ ]*\).*/\1/p' "$1" |
	awk -F, -v i="$2" '$i == "nan" { n++ } END { print n + 0 }'
}

# start_meter FILE ARGS...: start a fake SCPI meter (tests/fakes/fake-scpi.py
# ARGS) that publishes its port or pty path in FILE, and wait until it has.
# Call it at the top level only (tests run in subshells: their FAKE_PIDS
# would not reach test_atexit); every meter is killed at exit.
FAKE_PIDS=
test_atexit 'kill $FAKE_PIDS'
start_meter() {
	file=$1
	shift
	# its own output goes to a file: an inherited pipe would hold the
	# caller's $(...) open
	$PY $FAKES/fake-scpi.py "$@" >>fakes.out 2>&1 &
	FAKE_PIDS="$FAKE_PIDS $!"
	for i in $(seq 100); do
		[ -s "$file" ] && return 0
		sleep 0.05
	done
	echo "fake meter did not start: $*" >&2
	return 1
}
