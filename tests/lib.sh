# lib.sh - the test library every tests/tNNNN-*.sh sources (after git's t/).
#
#   test_expect_success [PREREQ,...] 'what must hold' '
#       commands...            # run with set -e in a subshell
#   '
#   test_lazy_prereq NAME 'script'  # NAME holds when the script succeeds;
#                                   # when it fails (exit 1: set -e may not
#                                   # hold there), its last output line says
#                                   # why (printed with each skip)
#   test_have_prereq NAME...        # the same test in a script's own code
#   test_when_finished 'command'    # in a test: run when the test ends, pass or fail
#   test_atexit 'command'           # run when the script ends (top level only)
#   skip_all='why'; test_done       # nothing in the script can run here
#
# A test whose prerequisites do not hold is skipped, and says which and why:
#   ok 3 # skip perf reads it (missing PERF: perf is not installed (...))
# "!NAME" asks for NAME not to hold.  The prerequisites every script may use
# are defined at the end of this file; tests/README.md lists them.
#
# Options (tests/run passes them on):
#   -v, --verbose    show the commands and the output of every test
#   -i, --immediate  stop at the first failing test
#   -x, --trace      trace the commands of each test (set -x)
#
# Each script runs in its own scratch directory ($TRASH): removed when every
# test passed, kept when one failed or the script died, and its path printed
# ("# trash directory kept: ...") so the files of the failure can be read.
# A failing test prints its output, so the expected and actual values show.
# Output is TAP-like; tests/run adds up the "ok" / "not ok" lines.

set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
SAMPLER=$BUILD/sampler
EXPORT=$BUILD/sampler-export
# Workloads always come from the plain build (a sanitizer build of the tools
# must not change how the profiled programs behave).
EXAMPLES=${SAMPLER_EXAMPLES:-$ROOT/build/examples}
TEST_NAME=$(basename "$0" .sh)

test_verbose= test_immediate= test_trace=
for test_arg_ in "$@"; do
	case $test_arg_ in
	-v|--verbose) test_verbose=t ;;
	-i|--immediate) test_immediate=t ;;
	-x|--trace) test_trace=t ;;
	-h|--help)
		echo "usage: $0 [-v|--verbose] [-i|--immediate] [-x|--trace]"
		exit 0 ;;
	*)
		echo "$0: unknown option '$test_arg_' (use -v, -i or -x; --help)" >&2
		exit 1 ;;
	esac
done

test_count=0
test_failed=0
skip_all=
test_atexit_cmds_=

# SAMPLER_SKIP_SCRIPTS="t3040-export-fuzz ...": scripts a pass leaves out
# (make check's sanitizer pass skips what it would only repeat).
case " ${SAMPLER_SKIP_SCRIPTS:-} " in
*" $TEST_NAME "*)
	echo "ok 1 # skip $TEST_NAME: left out of this pass (SAMPLER_SKIP_SCRIPTS)"
	exit 0 ;;
esac

TRASH=$(mktemp -d "${TMPDIR:-/tmp}/sampler-test.$TEST_NAME.XXXXXX") || exit 1
chmod 755 "$TRASH"
# The exporter's symbol cache (docs/EXPORT.md): per script, not the user's.
export SAMPLER_CACHE_DIR=$TRASH/symbol-cache
# the scripts fit their tables to $COLUMNS: tests read whole names
unset COLUMNS

# At the end: the test_atexit commands, then the scratch directory goes,
# unless something failed.
test_exit_() {
	test_status_=$?
	trap - EXIT
	if [ -n "$test_atexit_cmds_" ]; then
		(eval "$test_atexit_cmds_") >/dev/null 2>&1
	fi
	cd / || :
	if [ "$test_status_" -eq 0 ] && [ "$test_failed" -eq 0 ]; then
		rm -rf "$TRASH"
	else
		echo "# trash directory kept: $TRASH"
	fi
	exit "$test_status_"
}
trap test_exit_ EXIT
trap 'echo "# $TEST_NAME: interrupted"; exit 130' INT
trap 'echo "# $TEST_NAME: terminated"; exit 143' TERM
cd "$TRASH" || exit 1

# test_atexit COMMAND: run COMMAND when the script ends, whatever happened.
# Call it at the top level: a test body runs in a subshell.
test_atexit() {
	test_atexit_cmds_="$1
$test_atexit_cmds_"
}

# Prerequisites: test_lazy_prereq stores the script; the first question
# runs it (in a subshell, in a directory of its own) and keeps the answer.
test_lazy_prereq() {	# NAME SCRIPT
	eval "test_prereq_script_$1=\$2"
}

test_set_prereq() {	# NAME: holds from now on
	eval "test_prereq_state_$1=yes"
}

# test_prereq_eval_ NAME: sets test_prereq_state_NAME (yes, no, unknown)
# and test_prereq_why_NAME.
test_prereq_eval_() {
	local state script out dir
	eval "state=\${test_prereq_state_$1:-}"
	[ -n "$state" ] && return 0
	eval "script=\${test_prereq_script_$1-__none__}"
	if [ "$script" = __none__ ]; then
		eval "test_prereq_state_$1=unknown"
		eval "test_prereq_why_$1=\"no such prerequisite (tests/lib.sh defines them)\""
		return 0
	fi
	dir=$TRASH/.prereq-$1
	mkdir -p "$dir"
	# set -e has no effect here when the question is asked in a condition
	# (test_have_prereq X || ...): the scripts exit 1 where they fail
	if out=$( (cd "$dir" || exit 1; eval "$script") 2>&1 ); then
		eval "test_prereq_state_$1=yes"
	else
		eval "test_prereq_state_$1=no"
	fi
	rm -rf "$dir"
	out=$(printf '%s\n' "$out" | sed '/^[[:space:]]*$/d' | tail -1)
	eval "test_prereq_why_$1=\$out"
}

# test_missing_prereqs_ LIST: the prerequisites of LIST (NAME,!NAME,...)
# that do not hold, with their reasons, in test_missing_; status 1 if any,
# 2 if one is not defined at all (a typo must not skip a test for ever).
test_missing_prereqs_() {
	local p name want state why status=0
	test_missing_=
	for p in $(echo "$1" | tr , ' '); do
		case $p in
		!*) name=${p#!} want=no ;;
		*) name=$p want=yes ;;
		esac
		test_prereq_eval_ "$name"
		eval "state=\$test_prereq_state_$name why=\$test_prereq_why_$name"
		[ "$state" = "$want" ] && continue
		if [ "$state" = unknown ]; then
			status=2
		elif [ "$want" = no ]; then
			why="$name holds here${why:+: $why}"
		fi
		[ "$status" = 2 ] || status=1
		test_missing_="${test_missing_:+$test_missing_; }$p${why:+: $why}"
	done
	return $status
}

test_have_prereq() {	# NAME... (or NAME,NAME): true when all hold
	test_missing_prereqs_ "$(echo "$*" | tr ' ' ,)"
}

test_bug_() {
	echo "not ok $test_count - bug in the test script: $*"
	test_failed=$((test_failed + 1))
	exit 1
}

test_expect_success() {	# [PREREQS] TITLE BODY
	local test_prereqs_= test_title_ test_body_ test_out_ test_rc_
	if [ $# = 3 ]; then
		test_prereqs_=$1
		shift
	fi
	test_count=$((test_count + 1))
	[ $# = 2 ] || test_bug_ "test_expect_success takes [PREREQ] 'title' 'commands', got $# arguments"
	test_title_=$1 test_body_=$2
	if [ -n "$test_prereqs_" ]; then
		test_missing_prereqs_ "$test_prereqs_"
		case $? in
		1)	echo "ok $test_count # skip $test_title_ (missing $test_missing_)"
			return 0 ;;
		2)	test_bug_ "'$test_title_' asks for an unknown prerequisite: $test_missing_" ;;
		esac
	fi
	if [ -n "$test_verbose" ]; then
		echo "# expecting success of $TEST_NAME.$test_count '$test_title_':"
		printf '%s\n' "$test_body_" | sed -e '/^[[:space:]]*$/d' -e 's/^/#   > /'
	fi
	test_out_=$( (set -e; test_cleanup_=:; trap 'eval "$test_cleanup_"' EXIT
		[ -z "$test_trace" ] || set -x; eval "$test_body_") 2>&1 )
	test_rc_=$?
	if [ $test_rc_ -eq 0 ]; then
		echo "ok $test_count - $test_title_"
		[ -z "$test_verbose" ] || [ -z "$test_out_" ] ||
			printf '%s\n' "$test_out_" | sed 's/^/#   /'
		return 0
	fi
	test_failed=$((test_failed + 1))
	echo "not ok $test_count - $test_title_"
	printf '%s\n' "$test_out_" | sed 's/^/#   /'
	if [ -n "$test_immediate" ]; then
		echo "# $TEST_NAME: stopped at the first failure (-i)"
		exit 1
	fi
}

# test_when_finished COMMAND: run COMMAND when this test ends, whether it
# passed or failed, its status ignored (e.g. stop a process it started: one
# left behind keeps the test's output open, and the script waits for it).
test_when_finished() {
	test_cleanup_="{ $1
} >/dev/null 2>&1 || :; $test_cleanup_"
}

# test_skip TITLE WHY: one skipped test, for a reason no prerequisite names.
test_skip() {
	test_count=$((test_count + 1))
	echo "ok $test_count # skip $1 ($2)"
}

# Assertions: each prints what was expected and what came, and fails.
# Two empty values are not equal: a parse that found nothing on both sides
# would pass.  A value that must be empty says so with expect_empty.
expect_eq() {	# expected actual [what]
	if [ -z "$1" ] && [ -z "$2" ]; then
		echo "expected ${3:+$3 }a value, got two empty ones (expect_empty checks for nothing)"
		return 1
	fi
	[ "$1" = "$2" ] && return 0
	echo "expected ${3:+$3 }'$1', got '$2'"
	return 1
}

expect_empty() {	# actual [what]
	[ -z "$1" ] && return 0
	echo "expected ${2:+$2 }to be empty, got '$1'"
	return 1
}

# expect_number_ VALUE WHAT: VALUE is one finite decimal number (sign,
# digits, point, exponent); an empty or other value fails, saying so.  awk
# would read "" as 0 and compare "n/a" as a string, so a parse that came
# back empty would pass every bound; a value of two lines would be matched
# line by line, and 1e999 read as infinity.
expect_number_() {
	case $1 in
	'') echo "expected $2 to be a number, got an empty value"
	    return 1 ;;
	*'
'*) echo "expected $2 to be one number, got several lines: '$(printf '%s' "$1" | tr '\n' ' ')'"
	    return 1 ;;
	esac
	printf '%s\n' "$1" |
		grep -Eqx '[-+]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][-+]?[0-9]+)?' &&
		awk -v v="$1" 'BEGIN { x = v + 0; exit !(x < 1.7e308 && x > -1.7e308) }' &&
		return 0
	echo "expected $2 to be a number, got '$1'"
	return 1
}

expect_near() {	# expected actual tolerance [what]
	expect_number_ "$1" "the expected value${4:+ of $4}" &&
	expect_number_ "$2" "${4:-the value}" &&
	expect_number_ "$3" "the tolerance${4:+ for $4}" || return 1
	awk -v e="$1" -v a="$2" -v t="$3" 'BEGIN { d = e - a; if (d < 0) d = -d; exit !(d <= t) }' && return 0
	echo "expected ${4:+$4 }$1 +- $3, got $2"
	return 1
}

expect_ge() {	# minimum actual [what]
	expect_number_ "$1" "the minimum${3:+ for $3}" &&
	expect_number_ "$2" "${3:-the value}" || return 1
	awk -v m="$1" -v a="$2" 'BEGIN { exit !(a >= m) }' && return 0
	echo "expected ${3:+$3 }>= $1, got $2"
	return 1
}

expect_le() {	# maximum actual [what]
	expect_number_ "$1" "the maximum${3:+ for $3}" &&
	expect_number_ "$2" "${3:-the value}" || return 1
	awk -v m="$1" -v a="$2" 'BEGIN { exit !(a <= m) }' && return 0
	echo "expected ${3:+$3 }<= $1, got $2"
	return 1
}

expect_grep() {	# pattern file
	grep -q -- "$1" "$2" && return 0
	echo "expected a line matching '$1' in $2, which holds:"
	sed 's/^/  /' "$2" | head -40
	return 1
}

expect_no_grep() {	# pattern file
	grep -q -- "$1" "$2" || return 0
	echo "expected no line matching '$1' in $2, but:"
	grep -- "$1" "$2" | head -10
	return 1
}

# without_tip FILE: a perf report without the random tip perf prints in
# its header ("# (Tip: ...)"), which differs from run to run and may even
# hold a "%".
without_tip() {
	grep -v "^# (Tip:" "$1"
}

# but_load_notes FILE: FILE without the lines a loaded machine rightly
# adds to the sampler's stderr: its rate warning, the target held while
# tasks waited for a CPU, and what the autos chose there (t1090, t1310,
# t1320 test those lines themselves).
but_load_notes() {
	grep -v "^sampler: warning: sampled at \|^sampler: warning: the target was held stopped \|^sampler: precise stops left off: \|^sampler: [0-9]* thread-samples of threads that waited for a CPU carried" "$1" || true
}

# wait_exec PID PROGRAM: until process PID runs PROGRAM (at most 20 s).  A
# process started with & is a copy of the shell until it has exec'd: a
# signal sent before then reaches the shell, not the program.
wait_exec() {
	local i want
	want=$(readlink -f "$(command -v "$2")")
	for i in $(seq 400); do
		[ "$(readlink -f /proc/$1/exe 2>/dev/null)" = "$want" ] && return 0
		sleep 0.05
	done
	echo "process $1 does not run $2 after 20 s"
	return 1
}

# Run a command, record its exit status in $rc instead of failing.
run_status() {
	set +e
	"$@"
	rc=$?
	set -e
}

# The uid unprivileged tests drop to.
NOBODY=65534
as_nobody() {
	setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups -- "$@"
}

test_done() {
	if [ -n "$skip_all" ]; then
		test_count=$((test_count + 1))
		echo "ok $test_count # skip $TEST_NAME: $skip_all"
		exit 0
	fi
	echo "# $test_count tests, $test_failed failed"
	[ "$test_failed" -eq 0 ] && exit 0
	exit 1
}

# The prerequisites scripts share.  Each prints why it does not hold.
test_lazy_prereq ROOT '
	test "$(id -u)" = 0 || { echo "the suite does not run as root"; exit 1; }
'
test_lazy_prereq UNSHARE '
	{ test "$(id -u)" = 0 && unshare -m true; } 2>/dev/null ||
	{ echo "needs root and unshare -m (a private mount namespace)"; exit 1; }
'
test_lazy_prereq NOBODY_CAN_READ '
	test "$(id -u)" = 0 || { echo "the suite does not run as root, so it cannot switch to uid $NOBODY"; exit 1; }
	as_nobody test -x "$SAMPLER" -a -x "$EXAMPLES/busy" -a -x "$TRASH" ||
	{ echo "uid $NOBODY cannot reach $BUILD or $TRASH (tests/run runs on a copy it can reach)"; exit 1; }
'
test_lazy_prereq PERF '
	perf version >/dev/null 2>&1 || { echo "perf is not installed (make deps installs linux-perf)"; exit 1; }
'
test_lazy_prereq PYTEST '
	/usr/bin/python3 -c "import pytest" 2>/dev/null ||
	{ echo "python3-pytest is not installed (apt-get install python3-pytest)"; exit 1; }
'
test_lazy_prereq NUMPY '
	/usr/bin/python3 -c "import numpy" 2>/dev/null ||
	{ echo "python3-numpy is not installed (make deps)"; exit 1; }
'
test_lazy_prereq CLANG_FUZZER '
	for f in fuzz-export fuzz-pmu-args fuzz-pmu-text; do
		test -x "$BUILD/fuzz/$f" ||
		{ echo "$BUILD/fuzz/$f is not built (needs clang and libclang-rt-14-dev: make deps)"; exit 1; }
	done
'
test_lazy_prereq MPI '
	command -v mpirun >/dev/null && test -x "$EXAMPLES/mpi_app" ||
	{ echo "no mpirun or no examples/mpi_app (make deps installs openmpi-bin and libopenmpi-dev)"; exit 1; }
'
test_lazy_prereq STRACE '
	command -v strace >/dev/null || { echo "strace is not installed"; exit 1; }
'
test_lazy_prereq VALGRIND '
	command -v valgrind >/dev/null || { echo "valgrind is not installed (make deps)"; exit 1; }
'
test_lazy_prereq SCRIPT_TTY '
	command -v script >/dev/null || { echo "script(1) from util-linux is needed to make a terminal"; exit 1; }
'
test_lazy_prereq SANITIZED '
	nm "$SAMPLER" 2>/dev/null | grep -q __asan_init ||
	{ echo "$SAMPLER is not a sanitizer build"; exit 1; }
'
# Shares are compared on the plain build only: a sanitizer build samples
# and unwinds up to ten times slower, too few samples for a share to hold
# within its margin.  A share check asks for PLAIN_BUILD and so shows as
# skipped on the sanitizer pass, rather than as a pass that compared nothing.
test_lazy_prereq PLAIN_BUILD '
	! nm "$SAMPLER" 2>/dev/null | grep -q __asan_init ||
	{ echo "$SAMPLER is a sanitizer build: too slow for shares to be compared (the plain pass compares them)"; exit 1; }
'
test_lazy_prereq SCHED_FIFO '
	{ test "$(id -u)" = 0 && chrt -f 1 true; } 2>/dev/null ||
	{ echo "the suite cannot use SCHED_FIFO here (needs root)"; exit 1; }
'
test_lazy_prereq PERF_COUNTERS '
	"$SAMPLER" -p perf:perf::TASK-CLOCK -- true 2>err ||
	{ echo "the perf plug-in cannot count here: $(cat err)"; exit 1; }
'
test_lazy_prereq HW_PMU '
	"$BUILD/tests/pmu-probe" -n 1 -p perf:cycles >/dev/null 2>err ||
	{ echo "no hardware PMU (perf:cycles: $(cat err))"; exit 1; }
'
test_lazy_prereq LIBC_DEBUG '
	libc=$(ldd /bin/true | awk "/libc.so/ { print \$3 }") &&
	ldso=$(readelf -lW /bin/true | sed -n "s/.*interpreter: \(.*\)]/\1/p") &&
	for f in "$libc" "$ldso"; do
		id=$(readelf -n "$f" | awk "/Build ID/ { print \$3 }") &&
		test -f /usr/lib/debug/.build-id/$(echo $id | cut -c1-2)/$(echo $id | cut -c3-).debug ||
		{ echo "no debug file for $f (install libc6-dbg)"; exit 1; }
	done
'
