#!/bin/bash
# The recorder needs no privileges: run as an ordinary user it profiles its
# own child, falls back to normal priority without complaint, and the
# target runs with that user's credentials.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/recorder-lib.sh"

test_expect_success NOBODY_CAN_READ 'as nobody: a complete profile, at normal priority' '
	mkdir nobody && chown $NOBODY:$NOBODY nobody &&
	as_nobody "$SAMPLER" -d -f 1000 -o nobody/p -- "$EXAMPLES/threads" 4 0.2 >out 2>err &&
	expect_grep "^threads: 4" out &&
	expect_grep "scheduling: normal priority" err &&
	expect_no_grep "CPU latency request" err &&
	but_rate_warning err >other &&
	expect_no_grep "error\|warning" other &&
	dump nobody/p &&
	expect_eq 4 "$(field_values nobody/p.txt ts tid | sort -u | wc -l)" "threads sampled" &&
	expect_schedule nobody/p.txt &&
	check_snapshots nobody/p.txt
'

test_expect_success NOBODY_CAN_READ 'as nobody: the output file belongs to nobody' '
	expect_eq "$NOBODY" "$(stat -c %u nobody/p)" "owner uid"
'

test_expect_success NOBODY_CAN_READ 'as nobody: the target runs as nobody, not as root' '
	as_nobody "$SAMPLER" -- sh -c "id -u" >out &&
	expect_eq "$NOBODY" "$(cat out)" "uid of the target"
'

test_expect_success ROOT 'as root: the target keeps the normal scheduling policy' '
	"$SAMPLER" -- sh -c "chrt -p \$\$" >out &&
	expect_grep "SCHED_OTHER" out
'

test_expect_success NOBODY_CAN_READ 'as nobody: --fifo is refused with one error line' '
	run_status as_nobody "$SAMPLER" --fifo 10 -- true 2>err &&
	expect_eq 125 "$rc" "exit status" &&
	one_error_line err && expect_grep "CAP_SYS_NICE" err
'

nice_of() {	# the nice value in a /proc/PID/stat line on stdin (field 19)
	sed "s/.*) //" | cut -d" " -f17
}

# The suite may itself run under nice: the values expected are relative to
# this script's own (nice_plus N: it plus N, capped at 19 as the kernel does)
NICE0=$(nice)
nice_plus() {
	echo $((NICE0 + $1 > 19 ? 19 : NICE0 + $1))
}

test_expect_success NOBODY_CAN_READ 'as nobody: --nice 19 lowers the target and its children, not the sampler' '
	as_nobody "$SAMPLER" -d --nice 19 -- sh -c \
		"nice_of() { sed \"s/.*) //\" | cut -d\" \" -f17; }
		 nice_of </proc/\$\$/stat; sh -c \"cat /proc/self/stat\" | nice_of
		 nice_of </proc/\$PPID/stat" >out 2>err &&
	expect_eq "19 19 $NICE0" "$(echo $(cat out))" "nice of target, its child, the sampler" &&
	expect_grep "scheduling: normal priority.*, target nice 19" err
'

test_expect_success NOBODY_CAN_READ 'as nobody: --nice adds to the nice value it was started with, capped at 19' '
	as_nobody nice -n 5 "$SAMPLER" --nice 4 -- sh -c "cat /proc/\$\$/stat" >out1 &&
	as_nobody nice -n 5 "$SAMPLER" --nice 30 -- sh -c "cat /proc/\$\$/stat" >out2 &&
	expect_eq "$(nice_plus 9)" "$(nice_of <out1)" "nice $NICE0 + 5 + 4" &&
	expect_eq 19 "$(nice_of <out2)" "nice $NICE0 + 5 + 30"
'

test_expect_success NOBODY_CAN_READ 'as nobody: --idle runs the target and its children at SCHED_IDLE, not the sampler' '
	as_nobody "$SAMPLER" -d --idle -- sh -c \
		"chrt -p \$\$; sh -c \"chrt -p \\\$\\\$\"; chrt -p \$PPID" >out 2>err &&
	expect_eq "SCHED_IDLE SCHED_IDLE SCHED_OTHER" \
		"$(echo $(sed -n "s/.*policy: //p" out))" "policy of target, its child, the sampler" &&
	expect_grep "scheduling: normal priority.*, target SCHED_IDLE" err
'

test_expect_success NOBODY_CAN_READ 'as nobody: a negative --nice is refused before the target runs' '
	run_status as_nobody "$SAMPLER" --nice -5 -- sh -c "echo ran" >out 2>err &&
	expect_eq 125 "$rc" "exit status" &&
	one_error_line err && expect_grep "CAP_SYS_NICE" err &&
	expect_no_grep ran out
'

test_expect_success NOBODY_CAN_READ 'as nobody: a file nobody may not write is a 125 error' '
	run_status as_nobody "$SAMPLER" -o p -- "$EXAMPLES/busy" 0.01 2>err &&
	expect_eq 125 "$rc" "exit status" &&
	one_error_line err && expect_grep "Permission denied" err
'

test_done
