#!/bin/bash
# The recorder needs no privileges: run as an ordinary user it profiles its
# own child, falls back to normal priority without complaint, and the
# target runs with that user's credentials.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/recorder-lib.sh"

if [ "$(id -u)" != 0 ]; then
	test_skip 'unprivileged run' 'the suite does not run as root, so it cannot switch to uid 65534'
	test_done
	exit
fi

mkdir nobody && chown $NOBODY:$NOBODY nobody

test_expect_success 'as nobody: a complete profile, at normal priority' '
	as_nobody "$SAMPLER" -d -f 1000 -o nobody/p -- "$EXAMPLES/threads" 4 0.2 >out 2>err &&
	expect_grep "^threads: 4" out &&
	expect_grep "scheduling: normal priority" err &&
	expect_no_grep "CPU latency request" err &&
	expect_no_grep "error\|warning" err &&
	dump nobody/p &&
	expect_eq 4 "$(field_values nobody/p.txt ts tid | sort -u | wc -l)" "threads sampled" &&
	expect_ge 10 "$(records nobody/p.txt sample)" "samples" &&
	check_snapshots nobody/p.txt
'

test_expect_success 'as nobody: the output file belongs to nobody' '
	expect_eq "$NOBODY" "$(stat -c %u nobody/p)" "owner uid"
'

test_expect_success 'as nobody: the target runs as nobody, not as root' '
	as_nobody "$SAMPLER" -- sh -c "id -u" >out &&
	expect_eq "$NOBODY" "$(cat out)" "uid of the target"
'

test_expect_success 'as root: the target keeps the normal scheduling policy' '
	"$SAMPLER" -- sh -c "chrt -p \$\$" >out &&
	expect_grep "SCHED_OTHER" out
'

test_expect_success 'as nobody: --fifo is refused with one error line' '
	run_status as_nobody "$SAMPLER" --fifo 10 -- true 2>err &&
	expect_eq 125 "$rc" "exit status" &&
	one_error_line err && expect_grep "CAP_SYS_NICE" err
'

test_expect_success 'as nobody: a file nobody may not write is a 125 error' '
	run_status as_nobody "$SAMPLER" -o p -- "$EXAMPLES/busy" 0.01 2>err &&
	expect_eq 125 "$rc" "exit status" &&
	one_error_line err && expect_grep "Permission denied" err
'

test_done
