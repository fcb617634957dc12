# lib.sh - the test library every tests/tNNNN-*.sh sources (after git's t/).
#
#   test_expect_success 'what must hold' '
#       commands...            # run with set -e in a subshell
#   '
#   test_skip 'what' 'why it cannot run here'
#
# Each script runs in its own scratch directory ($TRASH, removed at the end).
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
TRASH=$(mktemp -d "${TMPDIR:-/tmp}/sampler-test.XXXXXX")
chmod 755 "$TRASH"
# The exporter's symbol cache (docs/EXPORT.md): per script, not the user's.
export SAMPLER_CACHE_DIR=$TRASH/symbol-cache
trap 'rm -rf "$TRASH"' EXIT
cd "$TRASH" || exit 1

test_count=0
test_failed=0

# SAMPLER_SKIP_SCRIPTS="t3040-export-fuzz ...": scripts a pass leaves out
# (make check's sanitizer pass skips what it would only repeat).
case " ${SAMPLER_SKIP_SCRIPTS:-} " in
*" $(basename "$0" .sh) "*)
	echo "ok 1 # skip $(basename "$0" .sh): left out of this pass (SAMPLER_SKIP_SCRIPTS)"
	exit 0 ;;
esac

test_expect_success() {
	local what=$1 body=$2 out rc
	test_count=$((test_count + 1))
	out=$( (set -e; eval "$body") 2>&1 )
	rc=$?
	if [ $rc -eq 0 ]; then
		echo "ok $test_count - $what"
	else
		test_failed=$((test_failed + 1))
		echo "not ok $test_count - $what"
		printf '%s\n' "$out" | sed 's/^/#   /'
	fi
}

test_skip() {
	test_count=$((test_count + 1))
	echo "ok $test_count # skip $1: $2"
}

# Assertions: each prints what was expected and what came, and fails.
expect_eq() {	# expected actual [what]
	[ "$1" = "$2" ] && return 0
	echo "expected ${3:+$3 }'$1', got '$2'"
	return 1
}

expect_near() {	# expected actual tolerance [what]
	awk -v e="$1" -v a="$2" -v t="$3" 'BEGIN { d = e - a; if (d < 0) d = -d; exit !(d <= t) }' && return 0
	echo "expected ${4:+$4 }$1 +- $3, got $2"
	return 1
}

expect_ge() {	# minimum actual [what]
	awk -v m="$1" -v a="$2" 'BEGIN { exit !(a >= m) }' && return 0
	echo "expected ${3:+$3 }>= $1, got $2"
	return 1
}

expect_le() {	# maximum actual [what]
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
	echo "# $test_count tests, $test_failed failed"
	[ $test_failed -eq 0 ]
}
