#!/bin/bash
# The target sees no signal of the sampler's, gets its own, and job control
# and signals sent to the sampler behave as without it.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/recorder-lib.sh"

test_expect_success 'a target using SIGUSR2 and SIGALRM counts the same as alone' '
	"$EXAMPLES/signals" 40 >alone &&
	"$SAMPLER" -f 2000 -o sig -- "$EXAMPLES/signals" 40 >traced &&
	expect_eq "usr2=40 alrm>=40 other=0" "$(cat alone)" "alone" &&
	expect_eq "$(cat alone)" "$(cat traced)" "under the sampler" &&
	dump sig &&
	expect_ge 80 "$(stat_of sig.txt signals)" "signals delivered" &&
	expect_schedule sig.txt
'

wait_for() {	# TEXT FILE: until FILE holds TEXT, at most 20 s
	for i in $(seq 400); do
		grep -q "$1" "$2" 2>/dev/null && return 0
		sleep 0.05
	done
	return 1
}

wait_ready() {	# FILE: until the target printed "ready"
	wait_for ready "$1"
}

test_expect_success 'SIGTERM to the sampler reaches the target, and the profile is complete' '
	"$SAMPLER" -o term -- "$EXAMPLES/term" 10 >out.term &
	pid=$! &&
	wait_ready out.term &&
	kill -TERM $pid &&
	run_status wait $pid &&
	expect_eq 0 "$rc" "exit status" &&
	expect_grep "terminated by SIGTERM" out.term &&
	dump term &&
	expect_eq 0 "$(stat_of term.txt exit)" "stats exit" &&
	expect_schedule term.txt
'

test_expect_success 'SIGINT to the sampler alone kills the target: 130, profile complete' '
	"$SAMPLER" -o int -- "$EXAMPLES/term" 10 >out.int &
	pid=$! &&
	wait_ready out.int &&
	kill -INT $pid &&
	run_status wait $pid &&
	expect_eq 130 "$rc" "exit status" &&
	dump int &&
	expect_eq 130 "$(stat_of int.txt exit)" "stats exit"
'

test_expect_success 'job control: a target stopped with SIGSTOP and continued finishes' '
	timeout 20 "$SAMPLER" -o job -- "$EXAMPLES/jobctl" >out &&
	expect_grep "conts=1" out &&
	stopped=$(sed -n "s/.*stopped_ms=\([0-9]*\).*/\1/p" out) &&
	expect_ge 80 "$stopped" "ms stopped" &&
	dump job &&
	expect_eq 2 "$(stat_of job.txt processes)" "processes (target and helper)"
'

test_expect_success 'job control: a stopped target is not sampled, and sampling goes on' '
	main=$(field_values job.txt process pid | head -1) &&
	gap=$(awk -v pid="$main" "
		/^sample / { split(\$2, kv, \"=\"); t = kv[2] }
		/^ts / && \$3 == \"pid=\" pid { if (last && t - last > max) max = t - last; last = t }
		END { print int(max / 1e6) }" job.txt) &&
	expect_ge 80 "$gap" "longest gap (ms) in the main process samples" &&
	helper=$(field_values job.txt process pid | sed -n 2p) &&
	expect_ge 1 "$(awk -v pid="$helper" "/^ts / && \$3 == \"pid=\" pid" job.txt | wc -l)" "samples of the helper (sampled meanwhile)"
'

test_expect_success 'SIGSTOP from outside: the target stays stopped until SIGCONT' '
	"$SAMPLER" -o ext -- "$EXAMPLES/term" 10 >out.ext &
	pid=$! &&
	wait_ready out.ext &&
	target=$(pgrep -P $pid) &&
	kill -STOP $target &&
	for i in $(seq 400); do
		state=$(awk "{ print \$3 }" /proc/$target/stat) &&
		case $state in [Tt]) break ;; esac
		sleep 0.05
	done &&
	sleep 0.3 &&
	state=$(awk "{ print \$3 }" /proc/$target/stat) &&
	kill -CONT $target && kill -TERM $target &&
	run_status wait $pid &&
	expect_eq t "$(echo $state | tr T t)" "state while stopped" &&
	expect_eq 0 "$rc" "exit status" &&
	expect_grep "terminated by SIGTERM" out.ext
'

test_expect_success SCRIPT_TTY 'Ctrl-C at a terminal reaches the target once, and the profile is complete' '
	# Type ^C once the handler is in place, and keep the terminal
	# open until the target has answered: no guess at timing.  exec:
	# script(1) starts $SHELL, /bin/sh when unset (as in CI), and
	# dash would stay in the foreground and die of the ^C itself.
	(wait_ready out.ctrlc && printf "\003" && wait_for sigint= out.ctrlc) |
		script -qec "exec $SAMPLER -o ctrlc -- $EXAMPLES/term 10 count-int" /dev/null >out.ctrlc ||
		{ echo "script failed; the terminal showed:"; cat out.ctrlc; false; } &&
	expect_grep "sigint=1" out.ctrlc &&
	dump ctrlc &&
	expect_eq 0 "$(stat_of ctrlc.txt exit)" "stats exit" &&
	expect_eq 1 "$(stat_of ctrlc.txt signals)" "signals delivered"
'

test_expect_success 'SIGKILL to the sampler: the target dies with it, the profile reads as truncated' '
	"$SAMPLER" -o killed -- "$EXAMPLES/term" 10 >out.kill &
	pid=$! &&
	wait_ready out.kill &&
	target=$(pgrep -P $pid) &&
	sleep 0.2 && kill -KILL $pid &&
	run_status wait $pid &&
	expect_eq 137 "$rc" "sampler exit status" &&
	for i in $(seq 50); do [ -d /proc/$target ] || break; sleep 0.05; done &&
	expect_eq gone "$([ -d /proc/$target ] && echo alive || echo gone)" "target" &&
	run_status "$BUILD/sampler-profile" dump killed >killed.txt &&
	expect_eq 2 "$rc" "dump status (truncated)" &&
	expect_grep "^truncated good_bytes=" killed.txt &&
	expect_grep "^host .*cmdline=.*term%2010" killed.txt
'

test_done
