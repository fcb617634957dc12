#!/bin/sh
# Precise stops (sampler/preempt.h): a stop sent to a thread running on
# another CPU lands at its next entry into the kernel, a system call if it
# makes one before the interrupt arrives.  examples/syscalls spends nearly
# all of its time in work() (perf record: the call and its wrapper under
# 2%) and calls getppid every ~40 us.  The sampler counts the stops that
# found a running thread at a system call's return (-d), and with
# preemptors those samples are where the time went (3% in the call quiet,
# 11.6% under two busy loops, where a hold can run out before the stops
# are sent; without them 60-75%).
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/recorder-lib.sh"

PY=/usr/bin/python3
REPORT="$PY $ROOT/scripts/sampler-report"

# share PROFILE FUNCTION: its share of the samples, % (0 when absent)
share() {
	$REPORT "$1" | awk -v f="$2" '$1 == f { s = $3 } END { print s + 0 }'
}

# late DEBUG: the share of running stops at a system call's return, %
late() {
	sed -n "s/.*of them at a system call's return (\(.*\)%)$/\1/p" "$1"
}

test_expect_success 'the stops counted at a system call'"'"'s return are the samples in the call' '
	"$SAMPLER" -d --precise-stops=never -f 1000 -o never.prof -- "$EXAMPLES/syscalls" 1.5 2>never.err &&
	share never.prof syscall >never.share &&
	expect_near "$(cat never.share)" "$(late never.err)" 3 "late stops (%) and the samples in syscall (%)" &&
	expect_grep "precise stops: off" never.err
'

test_expect_success SCHED_FIFO,PLAIN_BUILD 'with preemptors the samples are in work(), not at the call' '
	"$SAMPLER" -d --precise-stops=always -f 1000 -o always.prof -- "$EXAMPLES/syscalls" 1.5 2>always.err &&
	expect_grep "precise stops: on from sample 1 " always.err &&
	expect_le 20 "$(share always.prof syscall)" "samples in syscall (%)" &&
	expect_ge 75 "$(share always.prof work)" "samples in work (%)" &&
	expect_le 20 "$(late always.err)" "stops at a system call'"'"'s return (%)"
'

test_expect_success SCHED_FIFO,PLAIN_BUILD 'by default they come on when stops land at calls (or none land there)' '
	"$SAMPLER" -d -f 1000 -o auto.prof -- "$EXAMPLES/syscalls" 2 2>auto.err &&
	if grep -q "precise stops: on" auto.err; then
		expect_le 20 "$(share auto.prof syscall)" "samples in syscall (%)"
	else
		expect_le 5 "$(share auto.prof syscall)" "samples in syscall, preemptors off (%)"
	fi
'

test_expect_success 'a program that makes no system calls gets no preemptors' '
	"$SAMPLER" -d -f 1000 -o busy.prof -- "$EXAMPLES/busy" 1 2>busy.err &&
	expect_grep "precise stops: off" busy.err &&
	expect_le 1 "$(late busy.err)" "stops at a system call'"'"'s return (%)"
'

test_expect_success NOBODY_CAN_READ 'without real-time priority they are refused; -d counts the stops at calls' '
	mkdir nobody && chown $NOBODY nobody &&
	as_nobody "$SAMPLER" -d --precise-stops=always -f 1000 -o nobody/p.prof -- \
		"$EXAMPLES/syscalls" 1.5 2>nobody.err &&
	expect_grep "precise stops: refused (not at real-time priority" nobody.err &&
	expect_near "$(share nobody/p.prof syscall)" "$(late nobody.err)" 3 "late stops (%) and the samples in syscall (%)"
'

test_expect_success 'a bad --precise-stops is one line naming the values' '
	run_status "$SAMPLER" --precise-stops=sometimes -- true 2>bad.err &&
	expect_eq 125 "$rc" "exit status" &&
	one_error_line bad.err &&
	expect_grep "auto, always or never" bad.err
'

test_done
