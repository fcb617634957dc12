#!/bin/bash
# What the target leaves behind when its first process exits (issue 11 #4,
# #12; docs/RELIABILITY.md "Adversarial scenarios"): the sampler follows the
# whole tree until every process has ended, so a child stopped with SIGSTOP
# or waiting in vfork goes on exactly as without the sampler.  Asked to stop
# following (SIGTERM once the first process is gone), the sampler detaches
# what is left, each process as it was.  A CLONE_UNTRACED child is not
# followed at all, and outlives a killed sampler.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/recorder-lib.sh"
. "$ROOT/tests/hardening/hardening-lib.sh"

# wait_first_gone SAMPLER: until the sampler's child (the target's first
# process) has been reaped, at most 20 s.
wait_first_gone() {
	for i in $(seq 400); do
		pgrep -P $1 >/dev/null || return 0
		sleep 0.05
	done
	echo "the first process under sampler $1 did not end"
	return 1
}

# tracer PID: the TracerPid of a process ("gone" when it is).
tracer() {
	sed -n "s/^TracerPid:\t//p" /proc/$1/status 2>/dev/null || echo gone
}

# after_exit_samples TEXT PID: samples of PID after the exit of the
# first process.
after_exit_samples() {
	first=$(field_values "$1" process pid | head -1)
	awk -v first="$first" -v pid="$2" '
		$1 == "exit" && $3 == "pid=" first { gone = 1 }
		gone && $1 == "ts" && $3 == "pid=" pid { n++ }
		END { print n + 0 }' "$1"
}

test_expect_success 'a child left stopped (SIGSTOP) is followed, and finishes once continued' '
	"$SAMPLER" -o stop -- "$HW/hw-leftover" stop 0.2 >out.stop &
	sampler=$! &&
	wait_for_line "^child=" out.stop &&
	child=$(sed -n "s/^child=//p" out.stop) &&
	wait_first_gone $sampler &&
	expect_eq t "$(proc_state $child | tr T t)" "child state once the first process is gone" &&
	expect_eq $sampler "$(tracer $child)" "the child'"'"'s tracer" &&
	kill -CONT $child &&
	run_status wait $sampler &&
	expect_eq 0 "$rc" "sampler status (the first process'"'"'s)" &&
	expect_grep "^child done" out.stop &&
	dump stop &&
	expect_eq 2 "$(records stop.txt exit)" "exit records" &&
	expect_ge 20 "$(after_exit_samples stop.txt $child)" "samples of the child after the first process exited"
'

test_expect_success 'a child waiting in vfork when the first process exits goes on, and is followed to its end' '
	run_status "$SAMPLER" -o vf -- "$HW/hw-leftover" vfork 0.3 >out.vf &&
	expect_eq 0 "$rc" "sampler status" &&
	expect_grep "^child done" out.vf &&
	dump vf &&
	expect_eq 3 "$(stat_of vf.txt processes)" "processes" &&
	expect_eq 3 "$(records vf.txt exit)" "exit records" &&
	vforked=$(sed -n "s/.*vforked=//p" out.vf) &&
	expect_ge 20 "$(after_exit_samples vf.txt $vforked)" "samples of the vfork child after the first process exited"
'

test_expect_success 'SIGTERM once the first process is gone: a stopped child is detached and stays stopped' '
	"$SAMPLER" -o tstop -- "$HW/hw-leftover" stop 0.2 >out.tstop &
	sampler=$! &&
	wait_for_line "^child=" out.tstop &&
	child=$(sed -n "s/^child=//p" out.tstop) &&
	wait_first_gone $sampler &&
	kill -TERM $sampler &&
	run_status wait $sampler &&
	expect_eq 0 "$rc" "sampler status (the first process'"'"'s)" &&
	expect_eq t "$(proc_state $child | tr T t)" "child state after the sampler ended" &&
	expect_eq 0 "$(tracer $child)" "the child'"'"'s tracer" &&
	expect_eq 1 "$(wc -l <out.tstop)" "output lines while stopped" &&
	kill -CONT $child &&
	wait_for_line "^child done" out.tstop &&
	dump tstop &&
	expect_eq 2 "$(records tstop.txt exit)" "exit records (the child'"'"'s when detached)"
'

test_expect_success 'SIGTERM once the first process is gone: a running child goes on untraced' '
	"$SAMPLER" -o trun -- "$HW/hw-leftover" run 0.3 >out.trun &
	sampler=$! &&
	wait_for_line "^child=" out.trun &&
	child=$(sed -n "s/^child=//p" out.trun) &&
	wait_first_gone $sampler &&
	kill -TERM $sampler &&
	run_status wait $sampler &&
	expect_eq 0 "$rc" "sampler status" &&
	expect_eq 0 "$(tracer $child)" "the running child'"'"'s tracer" &&
	wait_for_line "^child done" out.trun
'

test_expect_success 'SIGTERM once the first process is gone: a child in vfork goes on untraced' '
	"$SAMPLER" -o tvf -- "$HW/hw-leftover" vfork 1 >out.tvf &
	sampler=$! &&
	wait_for_line "^child=" out.tvf &&
	wait_first_gone $sampler &&
	kill -TERM $sampler &&
	run_status wait $sampler &&
	expect_eq 0 "$rc" "sampler status" &&
	wait_for_line "^child done" out.tvf &&
	dump tvf &&
	expect_eq 3 "$(records tvf.txt exit)" "exit records"
'

test_expect_success 'a CLONE_UNTRACED child is not followed and outlives a killed sampler (documented)' '
	"$SAMPLER" -o untr -- "$HW/hw-untraced" 1.5 >out.untr &
	sampler=$! &&
	wait_for_line "^child=" out.untr &&
	child=$(sed -n "s/^child=//p" out.untr) &&
	first=$(pgrep -P $sampler) &&
	expect_eq 0 "$(tracer $child)" "the untraced child'"'"'s tracer" &&
	expect_eq $sampler "$(tracer $first)" "the first process'"'"'s tracer" &&
	kill -KILL $sampler &&
	run_status wait $sampler &&
	expect_eq 137 "$rc" "sampler status" &&
	wait_for_line "^untraced child done" out.untr &&
	# killed, the sampler leaves a profile cut short: the dump reads the
	# records before the cut, which must hold the first process, not the child
	run_status "$BUILD/sampler-profile" dump untr >untr.txt 2>untr.err &&
	cat untr.err &&
	expect_grep "^process pid=$first " untr.txt &&
	expect_no_grep "^process pid=$child " untr.txt
'

test_done
