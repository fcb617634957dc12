#!/bin/bash
# Every thread is untraced when the sampler lets a process go: at the end
# of a --pid attachment (--duration, SIGINT), and when asked to stop
# following (SIGTERM once the first process is gone, in launch mode).
# Each check reads TracerPid in /proc/PID/task/TID/status of every thread
# of the process let go, and waits for the sampler at most 30 s (a sampler
# that does not end fails the test, killed, instead of holding the runner).
# Seen failing: with PTRACE_DETACH skipped for a process's leader thread
# (detach_task), the SIGTERM cases never ended (the sampler in
# sigtimedwait, the leader in tracing stop, TracerPid the sampler's).
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/recorder-lib.sh"
. "$ROOT/tests/hardening/hardening-lib.sh"

HW=$BUILD/tests/hardening

# start_threads SECONDS: examples/threads 4 SECONDS in the background, its
# pid in $target once it runs threads (4 threads); killed when the test
# ends, pass or fail.
start_threads() {
	"$EXAMPLES/threads" 4 "$1" >/dev/null &
	target=$!
	test_when_finished "kill -CONT $target; kill $target"
	wait_exec $target "$EXAMPLES/threads" &&
	for i in $(seq 400); do
		[ "$(ls /proc/$target/task | wc -l)" -ge 4 ] && return 0
		sleep 0.05
	done
	echo "$target did not start its 4 threads"
	return 1
}

# wait_traced_all TRACER PID: until TRACER traces every thread of PID (at
# most 20 s).
wait_traced_all() {
	for i in $(seq 400); do
		[ "$(cat /proc/$2/task/*/status | sed -n "s/^TracerPid:\t*//p" | sort -u)" = "$1" ] && return 0
		sleep 0.05
	done
	echo "$1 did not attach to every thread of $2 in 20 s"
	return 1
}

test_expect_success '--pid --duration: when the sampler ends, every thread of the target is untraced' '
	start_threads 60 || exit 1
	"$SAMPLER" -f 200 --pid $target --duration 0.3 -o dur.prof 2>dur.err &
	sampler=$! &&
	test_when_finished "kill -KILL $sampler" &&
	wait_ended $sampler &&
	expect_eq 0 "$rc" "sampler status" &&
	expect_eq 4 "$(ls /proc/$target/task | wc -l)" "threads of the target" &&
	untraced $target
'

test_expect_success '--pid, SIGINT: when the sampler ends, every thread of the target is untraced' '
	start_threads 60 || exit 1
	"$SAMPLER" -f 200 --pid $target -o int.prof 2>int.err &
	sampler=$! &&
	test_when_finished "kill -KILL $sampler" &&
	wait_traced_all $sampler $target &&
	kill -INT $sampler &&
	wait_ended $sampler &&
	expect_eq 0 "$rc" "sampler status" &&
	untraced $target
'

# hw-leftover: the first process leaves a child (its own process, so the
# child is a leader thread) running or stopped.
for mode in run:2 stop:0.2; do
	secs=${mode#*:} mode=${mode%:*}
	test_expect_success "SIGTERM once the first process is gone: a $mode child is untraced when the sampler ends" '
		"$SAMPLER" -o t$mode -- "$HW/hw-leftover" $mode $secs >out.$mode &
		sampler=$! &&
		test_when_finished "kill -KILL $sampler" &&
		wait_for_line "^child=" out.$mode &&
		child=$(sed -n "s/^child=//p" out.$mode) &&
		test_when_finished "kill -CONT $child; kill $child" &&
		for i in $(seq 400); do pgrep -P $sampler >/dev/null || break; sleep 0.05; done &&
		kill -TERM $sampler &&
		wait_ended $sampler &&
		expect_eq 0 "$rc" "sampler status (the first process'"'"'s)" &&
		untraced $child
	'
done

test_done
