#!/bin/sh
# Precise stops (sampler/preempt.h): a stop sent to a thread running on
# another CPU lands at its next entry into the kernel, a system call if it
# makes one before the interrupt arrives.  examples/syscalls spends nearly
# all of its time in work() (perf record: the call and its wrapper under
# 2%) and calls getppid every ~40 us.  The sampler counts the stops that
# found a running thread at a system call's return (-d), and with
# preemptors those samples are where the time went (3% in the call quiet,
# 11.6% under two busy loops, where a hold can run out before the stops
# are sent; without them 60-75%).  Every run stops the threads that wait
# for a CPU too (--carry-preempted=never): carried ones are not stopped,
# so the stops counted would be a few of the samples.
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
	"$SAMPLER" --carry-preempted=never -d --precise-stops=never -f 1000 -o never.prof -- "$EXAMPLES/syscalls" 1.5 2>never.err &&
	share never.prof syscall >never.share &&
	expect_near "$(cat never.share)" "$(late never.err)" 3 "late stops (%) and the samples in syscall (%)" &&
	expect_grep "precise stops: off" never.err
'

test_expect_success SCHED_FIFO,PLAIN_BUILD 'with preemptors the samples are in work(), not at the call' '
	"$SAMPLER" --carry-preempted=never -d --precise-stops=always -f 1000 -o always.prof -- "$EXAMPLES/syscalls" 1.5 2>always.err &&
	expect_grep "precise stops: on from sample 1 " always.err &&
	expect_le 20 "$(share always.prof syscall)" "samples in syscall (%)" &&
	expect_ge 75 "$(share always.prof work)" "samples in work (%)" &&
	expect_le 20 "$(late always.err)" "stops at a system call'"'"'s return (%)"
'

# auto leaves them off on a machine where tasks wait for a CPU (the
# kernel's CPU pressure), and says what it chose in one line, -d or not
test_expect_success SCHED_FIFO,PLAIN_BUILD 'by default they come on when stops land at calls (or none land there)' '
	"$SAMPLER" --carry-preempted=never -d -f 1000 -o auto.prof -- "$EXAMPLES/syscalls" 2 2>auto.err &&
	if grep -q "precise stops: on" auto.err; then
		expect_le 20 "$(share auto.prof syscall)" "samples in syscall (%)" &&
		expect_eq 1 "$(grep -c "^sampler: precise stops on from sample [0-9]*: [0-9]*% of the stops" auto.err)" \
			"lines saying auto turned them on"
	elif grep -q "precise stops: left off (the machine was busy)" auto.err; then
		expect_eq 1 "$(grep -c "^sampler: precise stops left off: " auto.err)" "lines saying auto left them off"
	else
		expect_le 5 "$(share auto.prof syscall)" "samples in syscall, preemptors off (%)"
	fi
'

# Before, auto took every CPU at real-time priority on a loaded machine
# too (node, java, sqlite3 -g under load: in 23 of 48 runs, the target
# held up to 90% of the time).  The machine's load is the kernel's CPU
# pressure, faked here in a private mount namespace: a FIFO over
# /proc/pressure/cpu that says some task always waited (its total grows
# with the time).  Two busy loops would do it too, but under them the
# stops seldom land at a call (3.7%), and auto has nothing to choose.
test_expect_success SCHED_FIFO,PLAIN_BUILD 'a busy machine: auto leaves them off, and says so once without -d' '
	test -r /proc/pressure/cpu || { echo "no /proc/pressure/cpu: the kernel does not say"; exit 0; }
	mkfifo psi &&
	(while :; do echo "some avg10=100.00 avg60=100.00 avg300=100.00 total=$(date +%s%6N)" >psi; done) \
		>/dev/null 2>&1 &
	test_cleanup_="kill $!"
	unshare -m sh -c "mount --bind psi /proc/pressure/cpu && exec \"\$0\" \"\$@\"" \
		"$SAMPLER" --carry-preempted=never -d -f 1000 -o busy.prof -- "$EXAMPLES/syscalls" 2 2>busy.err &&
	late=$(late busy.err) &&
	if awk "BEGIN { exit !($late < 5) }"; then
		echo "only $late% of the stops at a call (a loaded machine): auto had nothing to choose"
		exit 0
	fi
	expect_eq 1 "$(grep -c "^sampler: precise stops left off: [0-9]*% of the stops of running threads came at a system call.s return, late, but other tasks waited for a CPU [0-9]*% of the time" busy.err)" \
		"lines saying auto left them off" &&
	expect_grep "precise stops: left off (the machine was busy)" busy.err &&
	expect_near "$(share busy.prof syscall)" "$late" 3 "samples in syscall (%) and late stops (%): preemptors off" &&
	"$SAMPLER" --carry-preempted=never -f 1000 -o quiet.prof -- "$EXAMPLES/syscalls" 1 2>quiet.err &&
	expect_no_grep "precise stops left off" quiet.err
'

test_expect_success 'a program that makes no system calls gets no preemptors' '
	"$SAMPLER" --carry-preempted=never -d -f 1000 -o busy.prof -- "$EXAMPLES/busy" 1 2>busy.err &&
	expect_grep "precise stops: off" busy.err &&
	expect_le 1 "$(late busy.err)" "stops at a system call'"'"'s return (%)"
'

test_expect_success NOBODY_CAN_READ 'without real-time priority they are refused; -d counts the stops at calls' '
	mkdir nobody && chown $NOBODY nobody &&
	as_nobody "$SAMPLER" --carry-preempted=never -d --precise-stops=always -f 1000 -o nobody/p.prof -- \
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
