#!/bin/bash
# Signals and the sampler (issue 11 #3, docs/RELIABILITY.md "Adversarial
# scenarios"): no signal the target sends to its own process group ends the
# sampler, and every signal reaches the target exactly as often as it would
# without the sampler: once, whether it was sent to the process group (which
# holds both), by timeout(1), by the target's own processes, or to the
# sampler alone (then the sampler passes it on).
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/recorder-lib.sh"
. "$ROOT/tests/hardening/hardening-lib.sh"

# wait_taken PID: until PID has taken its pending SIGINT (ShdPnd bit 2
# clear) and sits in a ptrace stop (state t): its signal-delivery stop.
wait_taken() {
	for i in $(seq 400); do
		pending=$(sed -n "s/^ShdPnd:\t//p" /proc/$1/status)
		[ $((0x$pending & 2)) = 0 ] && [ "$(proc_state $1)" = t ] && return 0
		sleep 0.05
	done
	echo "process $1 did not take its SIGINT: $(proc_state $1), ShdPnd $pending"
	return 1
}

test_expect_success 'the target signals its own process group: the sampler survives every signal it does not forward' '
	# setsid -w: the sampler leads the group the target sends to.  35 and
	# 64 are real-time signals, 16 is SIGSTKFLT (no name in dash).
	for sig in USR1 USR2 ALRM PROF VTALRM IO PWR XCPU XFSZ PIPE 16 35 64 \
		   SEGV BUS ILL FPE TRAP ABRT SYS; do
		run_status setsid -w "$SAMPLER" -o grp.$sig -- \
			sh -c "trap \"\" $sig; kill -$sig 0; sleep 0.1; echo survived" >out.$sig 2>err.$sig
		echo "$sig:$rc:$(cat out.$sig)"
	done >results &&
	expect_eq 0 "$(grep -vc ":0:survived$" results)" "runs that did not survive (see below)" ||
		{ cat results; false; } &&
	dump grp.USR1 &&
	expect_eq 0 "$(stat_of grp.USR1.txt exit)" "stats exit" &&
	expect_ge 1 "$(stat_of grp.USR1.txt signals)" "signals delivered (the target got its own)"
'

test_expect_success 'the sampler keeps the mask and dispositions it was given for the target' '
	(trap "" USR2 && grep -E "^Sig(Blk|Ign)" /proc/self/status) >alone &&
	(trap "" USR2 && "$SAMPLER" -- grep -E "^Sig(Blk|Ign)" /proc/self/status) >traced &&
	expect_eq "$(cat alone)" "$(cat traced)" "the target'"'"'s SigBlk and SigIgn"
'

test_expect_success 'timeout(1) sends SIGINT to the sampler and to its group: the target gets it once' '
	# timeout signals the command, then its process group; alone, the
	# command takes the two as one.  -h: a copy that came late would be
	# counted on its own.
	for mode in busy -s; do
		opt=; [ $mode = -s ] && opt=-s
		run_status timeout -s INT 2 "$SAMPLER" -o to -- \
			"$EXAMPLES/sigcount" $opt -h 0.2 -a 0.5 20 INT >out.to &&
		expect_eq 124 "$rc" "timeout status (it timed out)" &&
		expect_eq "ready INT=1" "$(echo $(cat out.to))" "target output ($mode)"
	done &&
	dump to &&
	expect_eq 0 "$(stat_of to.txt exit)" "stats exit"
'

test_expect_success 'kill -INT -PGID reaches the target once: the sampler does not pass its copy on' '
	# -f 1: the sampler waits between samples, so that the target takes
	# its copy while the sampler is stopped; the sampler takes its own
	# once continued (before it handled the target'"'"'s: the hard order).
	setsid "$SAMPLER" -f 1 -o pg -- "$EXAMPLES/sigcount" -h 0.3 -a 1 30 INT >out.pg &
	sampler=$! &&
	wait_for_line ready out.pg &&
	target=$(pgrep -P $sampler) &&
	kill -STOP $sampler && wait_for_state $sampler T &&
	kill -INT -- -$sampler &&
	wait_taken $target &&
	kill -CONT $sampler &&
	run_status wait $sampler &&
	expect_eq 0 "$rc" "sampler status" &&
	expect_eq "ready INT=1" "$(echo $(cat out.pg))" "target output" &&
	dump pg &&
	expect_eq 1 "$(stat_of pg.txt signals)" "signals delivered"
'

test_expect_success 'a signal from the target'"'"'s own processes to their group is not sent back to the target' '
	setsid "$SAMPLER" -f 1 -o self -- "$EXAMPLES/sigcount" -h 0.3 -a 1 -g go 30 INT >out.self &
	sampler=$! &&
	wait_for_line ready out.self &&
	target=$(pgrep -P $sampler) &&
	kill -STOP $sampler && wait_for_state $sampler T &&
	: >go &&
	wait_taken $target &&
	kill -CONT $sampler &&
	run_status wait $sampler &&
	expect_eq 0 "$rc" "sampler status" &&
	expect_eq "ready INT=1" "$(echo $(cat out.self))" "target output"
'

test_expect_success 'INT, USR1 and USR2 sent to the sampler alone reach the target once each' '
	"$SAMPLER" -o alone -- "$EXAMPLES/sigcount" -h 0.2 -a 1 30 INT USR1 USR2 >out.alone &
	sampler=$! &&
	wait_for_line ready out.alone &&
	kill -USR1 $sampler && kill -USR2 $sampler && kill -INT $sampler &&
	run_status wait $sampler &&
	expect_eq 0 "$rc" "sampler status" &&
	expect_eq "ready INT=1 USR1=1 USR2=1" "$(echo $(cat out.alone))" "target output" &&
	dump alone &&
	expect_eq 3 "$(stat_of alone.txt signals)" "signals delivered"
'

test_done
