#!/bin/bash
# Attach to a running program (--pid, --tid) and detach cleanly: the
# program goes on exactly as before (no thread left stopped, no signal lost
# or added, its output and exit status its own), and the profile holds only
# what happened while attached.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/recorder-lib.sh"

# start_attachee: examples/attachee reading numbers from the FIFO "in"
# (kept open on fd 7), its pid in $app; "wait $app" gives its status.
start_attachee() {
	local i
	rm -f in out log && mkfifo in || return 1
	"$EXAMPLES/attachee" log <in >out 2>&1 &
	app=$!
	exec 7>in
	for i in $(seq 100); do grep -q ready out 2>/dev/null && return 0; sleep 0.05; done
	echo "attachee did not start"; return 1
}

# no_thread_stopped PID: no thread of PID in a stopped state (T or t).
no_thread_stopped() {
	states=$(for s in /proc/$1/task/*/stat; do sed "s/.*) //" "$s" | cut -d" " -f1; done | tr -d "\n")
	case "$states" in *[Tt]*) echo "thread states of $1: $states"; return 1 ;; esac
}

# start_busy SECONDS: examples/busy in the background, its pid in $target,
# once it runs busy (a signal or an attach before the exec reaches the
# shell's copy); it is stopped at the end of the test, pass or fail (left
# stopped, it would hold the test's output open for ever).
start_busy() {
	"$EXAMPLES/busy" "$1" &
	target=$!
	test_when_finished "kill -CONT $target; kill $target"
	wait_exec $target "$EXAMPLES/busy"
}

# wait_traced PID TRACER: until TRACER has attached to PID (at most 20 s).
wait_traced() {
	local i
	for i in $(seq 400); do
		[ "$(sed -n "s/^TracerPid:\t*//p" /proc/$1/status 2>/dev/null)" = "$2" ] && return 0
		sleep 0.05
	done
	echo "process $2 did not attach to $1 in 20 s"
	return 1
}

# usr1 PID: send SIGUSR1 once the previous one was taken (a standard signal
# sent while one is pending would merge with it, sampler or not).
usr1() {
	local i
	for i in $(seq 200); do
		pend=$(sed -n "s/^ShdPnd:\t*//p" /proc/$1/status)
		[ $((0x$pend & 0x200)) -eq 0 ] && break
		sleep 0.01
	done
	kill -USR1 $1
}

test_expect_success 'attach 1 s to 8 threads, detach: every thread runs on, every signal arrives' '
	start_attachee || exit 1
	echo 5 >&7
	{ for k in 1 2 3 4 5; do sleep 0.1; usr1 $app; done; } &
	sender=$!
	"$SAMPLER" -f 500 --pid $app --duration 1 -o a.prof 2>err &&
	wait $sender &&
	no_thread_stopped $app &&
	for k in 1 2 3; do usr1 $app; done &&
	echo 7 >&7 && exec 7>&- &&
	run_status wait $app &&
	expect_eq 3 "$rc" "exit status of the program" &&
	expect_grep "^sum=12 usr1=8 woken=4\$" out &&
	expect_no_grep "error" err
'

test_expect_success 'attach: the profile holds every thread, one window, exit status 0' '
	dump a.prof &&
	expect_eq 9 "$(field_values a.prof.txt thread tid | sort -u | wc -l)" "threads recorded" &&
	expect_eq "1 0" "$(field_values a.prof.txt window enabled | tr "\n" " " | sed "s/ \$//")" "window states" &&
	expect_ge 10 "$(records a.prof.txt sample)" "samples" &&
	expect_eq 0 "$(stat_of a.prof.txt exit)" "stats exit status"
'

test_expect_success 'attach: CPU shares of spin_full and spin_third within 3 points of the program own truth' '
	python3 - a.prof.txt log <<-\PY
	import sys, collections
	prof, log = sys.argv[1], sys.argv[2]
	func, points = {}, collections.defaultdict(list)
	for line in open(log):
	    tid, f, mono, cpu = line.split()
	    func[tid] = f
	    points[tid].append((int(mono), int(cpu)))
	def at(tid, t):
	    p = points[tid]
	    for (m0, c0), (m1, c1) in zip(p, p[1:]):
	        if m0 <= t <= m1:
	            return c0 + (c1 - c0) * (t - m0) / max(m1 - m0, 1)
	    raise SystemExit("no truth for %s at %d" % (tid, t))
	got = collections.Counter()
	times = []
	for line in open(prof):
	    w = line.split()
	    if w[0] == "sample":
	        times.append(int(w[1].split("=")[1]))
	    if w[0] == "ts":
	        kv = dict(x.split("=", 1) for x in w[1:])
	        if kv["tid"] in func:
	            got[func[kv["tid"]]] += int(kv["dcpu"])
	t0, t1 = times[0], times[-1]
	truth = collections.Counter()
	for tid in func:
	    truth[func[tid]] += at(tid, t1) - at(tid, t0)
	ok = True
	for f in ("spin_full", "spin_third"):
	    g = 100 * got[f] / sum(got.values())
	    t = 100 * truth[f] / sum(truth.values())
	    print("%s: profile %.1f%%, truth %.1f%%" % (f, g, t))
	    ok = ok and abs(g - t) <= 3
	sys.exit(0 if ok else 1)
	PY
'

test_expect_success 'two --pid profiles (one window each, the second started first) merge: each counts its attached time only' '
	start_busy 30 && t1=$target &&
	start_busy 30 && t2=$target &&
	sleep 1 &&
	{ "$SAMPLER" -f 200 --pid $t2 --duration 0.5 -o p2.prof 2>/dev/null & } && s2=$! &&
	wait_traced $t2 $s2 &&
	"$SAMPLER" -f 200 --pid $t1 --duration 0.5 -o p1.prof 2>/dev/null &&
	wait $s2 &&
	"$EXPORT" --format csv -o p12.csv p1.prof p2.prof &&
	"$EXPORT" --format csv -o p1.csv p1.prof &&
	"$EXPORT" --format csv -o p2.csv p2.prof &&
	alone="$(csv_cpu p1.csv | cut -d" " -f2) $(csv_cpu p2.csv | cut -d" " -f2)" &&
	merged="$(csv_cpu p12.csv | cut -d" " -f2 | tr "\n" " " | sed "s/ \$//")" &&
	expect_eq "$alone" "$merged" "CPU ns of each process, merged vs alone" &&
	for c in $merged; do expect_le 700000000 $c "CPU ns of 0.5 s attached" || exit 1; done &&
	for p in p1 p2; do
		"$BUILD/sampler-profile" dump $p.prof >$p.txt &&
		expect_near "$(window_cpu $p.txt)" "$(csv_cpu $p.csv | cut -d" " -f2)" 1000 \
			"$p: CPU ns, by its readings at attach and detach" &&
		expect_ge 1000000 "$(csv_cpu $p.csv | cut -d" " -f2)" "$p: CPU ns of a busy process in 0.5 s attached" || exit 1
	done &&
	expect_eq 2 "$(grep -c "^# process .*comm=busy\[#[01]\]" p12.csv)" "processes in the merge" &&
	expect_eq 0 "$(grep -c "^-" p12.csv)" "rows before the start"
'

test_expect_success '20 attach/detach cycles on one process: it goes on as before' '
	start_attachee || exit 1
	for k in $(seq 20); do
		"$SAMPLER" --pid $app --duration 0.05 -o c.prof 2>>err || { echo "cycle $k failed"; exit 1; }
		no_thread_stopped $app || exit 1
		usr1 $app
		echo $k >&7
	done &&
	dump c.prof && expect_ge 1 "$(records c.prof.txt sample)" "samples of the last cycle" &&
	exec 7>&- && run_status wait $app &&
	expect_eq 3 "$rc" "exit status" &&
	expect_grep "^sum=210 usr1=20 woken=4\$" out &&
	expect_no_grep "error" err
'

test_expect_success 'SIGINT to the sampler ends the attachment: status 0, complete profile, program runs on' '
	start_busy 30 || exit 1
	"$SAMPLER" --pid $target -o i.prof &
	s=$!
	wait_traced $target $s && kill -INT $s && run_status wait $s &&
	expect_eq 0 "$rc" "sampler status" &&
	no_thread_stopped $target &&
	kill -0 $target && kill $target && { wait $target || true; } &&
	dump i.prof && expect_grep "^stats " i.prof.txt
'

# The program waits until it is traced, then works 0.3 s and exits: the
# sampler is attached when it exits, however late the sampler started.
test_expect_success 'the attached process exits: the sampler ends with 0, the parent gets its status' '
	sh -c "while grep -q \"^TracerPid:.0\\\$\" /proc/\$\$/status; do sleep 0.01; done; exec \"\$0\" 0.3" \
		"$EXAMPLES/exit3" &
	target=$!
	test_when_finished "kill $target" &&
	"$SAMPLER" --pid $target -o e.prof &&
	run_status wait $target &&
	expect_eq 3 "$rc" "status the parent sees" &&
	dump e.prof && expect_eq 0 "$(stat_of e.prof.txt exit)" "stats exit" &&
	expect_grep "^exit .*whole=1" e.prof.txt
'

test_expect_success 'a job-control stop in progress is kept' '
	start_busy 30 &&
	kill -STOP $target &&
	for i in $(seq 400); do
		[ "$(sed "s/.*) //" /proc/$target/stat | cut -d" " -f1)" = T ] && break
		sleep 0.05
	done &&
	"$SAMPLER" --pid $target --duration 0.3 -o s.prof &&
	state=$(sed "s/.*) //" /proc/$target/stat | cut -d" " -f1) &&
	expect_eq T "$state" "state after detach" &&
	kill -CONT $target &&
	for i in $(seq 400); do
		state=$(sed "s/.*) //" /proc/$target/stat | cut -d" " -f1)
		[ "$state" = R ] && break
		sleep 0.05
	done &&
	expect_eq R "$state" "state after SIGCONT" &&
	kill $target && { wait $target || true; }
'

test_expect_success '--tid: only that thread is sampled' '
	start_attachee || exit 1
	tid=$(ls /proc/$app/task | sed -n 2p) &&
	"$SAMPLER" --tid $tid --duration 0.3 -o t.prof &&
	no_thread_stopped $app &&
	exec 7>&- && { wait $app || true; } &&
	dump t.prof && expect_eq "$tid" "$(field_values t.prof.txt ts tid | sort -u)" "tids sampled"
'

test_expect_success 'errors: no such process, a thread given to --pid, --pid with a command, bad ids' '
	pid=2; while [ -e /proc/$pid ]; do pid=$((pid + 1)); done &&
	run_status "$SAMPLER" --pid $pid 2>err &&
	expect_eq 125 "$rc" "status" &&
	expect_eq "sampler: error: cannot attach to $pid: no such process (check the id with ps)" "$(cat err)" &&
	run_status "$SAMPLER" --pid $$ -- true 2>err &&
	expect_eq 125 "$rc" "status" && expect_grep "both --pid/--tid and a command" err &&
	run_status "$SAMPLER" --pid 12x 2>err &&
	expect_grep "error: --pid 12x: not a list of process ids" err &&
	start_attachee || exit 1
	tid=$(ls /proc/$app/task | sed -n 2p) &&
	run_status "$SAMPLER" --pid $tid 2>err &&
	exec 7>&- && { wait $app || true; } &&
	expect_eq 125 "$rc" "status" &&
	expect_grep "error: --pid $tid: $tid is a thread of process $app (use --pid $app, or --tid $tid for the thread alone)" err
'

test_expect_success 'a process traced already (a debugger, another sampler) is one error naming the tracer' '
	start_busy 30 || exit 1
	"$SAMPLER" --pid $target --duration 30 -o /dev/null &
	first=$!
	wait_traced $target $first &&
	run_status "$SAMPLER" --pid $target 2>err
	kill -INT $first; wait $first
	expect_eq 125 "$rc" "status" &&
	expect_grep "cannot attach to $target: already traced by process $first (sampler; a debugger or strace: end or detach it first)" err
'

test_expect_success NOBODY_CAN_READ 'unprivileged: a process of another user is one error line with the fix' '
	start_busy 30 &&
	run_status as_nobody "$SAMPLER" --pid $target 2>err
	expect_eq 125 "$rc" "status" &&
	expect_eq 1 "$(wc -l <err)" "error lines" &&
	expect_grep "cannot attach to $target: it is a process of another user (uid 0; run the sampler as that user, or as root or with CAP_SYS_PTRACE)" err
'

test_expect_success NOBODY_CAN_READ 'unprivileged: a process of the same user that is not dumpable is one error line naming that' '
	setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups -- /usr/bin/python3 -c "import ctypes, time
ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE
print(\"ready\", flush=True)
time.sleep(60)" >nd.out &
	target=$!
	test_when_finished "kill $target"
	for i in $(seq 200); do grep -q ready nd.out && break; sleep 0.05; done &&
	expect_grep ready nd.out &&
	run_status as_nobody "$SAMPLER" --pid $target 2>err
	expect_eq 125 "$rc" "status" &&
	expect_eq 1 "$(wc -l <err)" "error lines" &&
	expect_grep "^sampler: error: cannot attach to $target: it is not dumpable (it called prctl(PR_SET_DUMPABLE, 0), or runs a setuid or setgid program), so only root or CAP_SYS_PTRACE may trace it (run the sampler as root" err
'

# Where the kernel refuses an attach the sampler has no other reason for
# (here a seccomp filter, tests/hardening/hw-noptrace; a container's
# profile or a security module alike), its error names that.
NOPTRACE=$(dirname "$EXAMPLES")/tests/hardening/hw-noptrace
test_expect_success 'ptrace refused by seccomp: one error line naming seccomp, in attach and launch mode' '
	start_busy 30 &&
	run_status "$NOPTRACE" "$SAMPLER" --pid $target 2>err
	expect_eq 125 "$rc" "status" &&
	expect_eq 1 "$(wc -l <err)" "error lines" &&
	expect_grep "^sampler: error: cannot attach to $target: PTRACE_SEIZE: Operation not permitted (seccomp or container settings may forbid ptrace; root or CAP_SYS_PTRACE can attach)\$" err &&
	no_thread_stopped $target &&
	run_status "$NOPTRACE" "$SAMPLER" -o l.prof -- "$EXAMPLES/busy" 0.1 2>err
	expect_eq 125 "$rc" "status" &&
	expect_grep "^sampler: error: cannot trace the target: PTRACE_SEIZE: Operation not permitted (ptrace may be forbidden here" err
'

# The Yama answers on a kernel without Yama: a private mount namespace
# shows a fake /proc/sys/kernel/yama/ptrace_scope, and seccomp makes the
# attach fail with EPERM as Yama would (uid 65534 attaching to a process
# of its own that is not its child: what scope 1 and 2 refuse).
test_expect_success UNSHARE,NOBODY_CAN_READ 'Yama ptrace_scope 1, 2, 3 (faked): one error line naming the sysctl, its value and the fix' '
	# setpriv itself, not the function as_nobody: $! is then busy (a
	# function in the background is a subshell that forks it)
	setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups -- "$EXAMPLES/busy" 30 &
	target=$!
	test_when_finished "kill $target"
	wait_exec $target "$EXAMPLES/busy" &&
	for scope in 1 2 3; do
		run_status unshare -m --propagation private sh -c "
			mount -t tmpfs -o mode=755 fake-sysctl /proc/sys/kernel &&
			mkdir /proc/sys/kernel/yama && echo $scope >/proc/sys/kernel/yama/ptrace_scope &&
			exec setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups -- \
				\"$NOPTRACE\" \"$SAMPLER\" --pid $target" 2>err$scope
		expect_eq 125 "$rc" "status with scope $scope" &&
		expect_eq 1 "$(wc -l <err$scope)" "error lines with scope $scope" || exit 1
	done &&
	expect_grep "^sampler: error: cannot attach to $target: the sysctl kernel.yama.ptrace_scope is 1, which lets a process trace only its own descendants (run as root or with CAP_SYS_PTRACE, set kernel.yama.ptrace_scope=0, or launch it under the sampler: sampler -- command)\$" err1 &&
	expect_grep "^sampler: error: cannot attach to $target: the sysctl kernel.yama.ptrace_scope is 2, which lets only root or CAP_SYS_PTRACE trace (run as root or with CAP_SYS_PTRACE, or set kernel.yama.ptrace_scope to 0 or 1)\$" err2 &&
	expect_grep "^sampler: error: cannot attach to $target: the sysctl kernel.yama.ptrace_scope is 3, which forbids attaching for everyone until a reboot" err3
'

test_lazy_prereq YAMA_SCOPE_1 '
	scope=/proc/sys/kernel/yama/ptrace_scope
	test -r $scope || { echo "this kernel has no Yama ($scope missing)"; exit 1; }
	test "$(cat $scope)" = 1 || { echo "kernel.yama.ptrace_scope is $(cat $scope), not 1"; exit 1; }
'
test_expect_success NOBODY_CAN_READ,YAMA_SCOPE_1 'unprivileged attach to a non-child under ptrace_scope 1 names the sysctl' '
	# setpriv itself, not the function as_nobody: $! is then busy (a
	# function in the background is a subshell that forks it)
	setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups -- "$EXAMPLES/busy" 30 &
	target=$!
	test_when_finished "kill $target"
	wait_exec $target "$EXAMPLES/busy"
	run_status as_nobody "$SAMPLER" --pid $target 2>err
	expect_eq 125 "$rc" "status" &&
	expect_grep "the sysctl kernel.yama.ptrace_scope is 1, which lets a process trace only its own descendants (run as root or with CAP_SYS_PTRACE" err
'

test_done
