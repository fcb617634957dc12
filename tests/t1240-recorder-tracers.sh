#!/bin/bash
# --tracers N: the threads of a command shared among N tracing threads
# (sampler/tracers.h, docs/SCALING.md).  A request on a thread works only
# from the thread that traces it, so a thread the engine places wrongly
# fails every stop, read and continue: the tests check where each thread
# is traced, that every one is sampled and read right, and that the
# recorder's thread, process and signal tests pass with three tracers.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/recorder-lib.sh"

# tracer_pids PID: the TracerPid of every thread of PID, one per line
# (shell built-ins only: read while the threads spin).
tracer_pids() {
	local s key value
	for s in /proc/"$1"/task/*/status; do
		while read -r key value; do
			if [ "$key" = TracerPid: ]; then echo "$value"; fi
		done <"$s" 2>/dev/null
	done
}

# spinning PID: true when a thread of PID other than the first has used
# 20 ms of user time.  examples/threads spins only once all its threads
# are past a barrier, which each reaches after its first stop, where the
# sampler moves it: then every move is done.
spinning() {
	local s stat
	[ -n "${1:-}" ] || return 1	# no target yet
	for s in /proc/"$1"/task/*/stat; do
		[ "$s" = /proc/$1/task/$1/stat ] && continue
		read -r stat <"$s" 2>/dev/null || continue
		set -- "$1" ${stat##*) }
		# after the command: state is field 3, utime (ticks) field 14
		[ "${13:-0}" -ge 2 ] && return 0
	done
	return 1
}

# Moves need real-time priority (the sampler takes it as root).
test_expect_success SCHED_FIFO 'three tracers: new threads move in turn, each is traced by a thread of the sampler' '
	# threads spin for wall time: 5 s, so that none has ended before the
	# shell reads their tracers on a loaded machine (at 1.5 s one had,
	# in a fresh clone'"'"'s make check beside other jobs: 3 3 1)
	"$SAMPLER" -d --tracers 3 -f 200 -o tr -- "$EXAMPLES/threads" 8 5 >out 2>dbg &
	sampler=$! &&
	for i in $(seq 400); do
		target=$(pgrep -P $sampler | head -1) && spinning "$target" && break
		sleep 0.05
	done &&
	tracer_pids $target >tracers &&
	sort tracers | uniq -c >tracing &&
	ls /proc/$sampler/task | sort >sampler_threads &&
	wait $sampler &&
	cat tracing &&
	expect_eq 3 "$(wc -l <tracing)" "threads of the sampler that trace the target" &&
	expect_eq "3 3 2" "$(awk "{ print \$1 }" tracing | sort -rn | tr "\n" " " | sed "s/ \$//")" \
		"threads per tracer (7 new threads in turn: 1 2 0 1 2 0 1, and the main thread on 0)" &&
	expect_empty "$(awk "{ print \$2 }" tracing | sort | comm -23 - sampler_threads)" \
		"tracers that are not threads of the sampler" &&
	expect_grep "^sampler: tracers: 3, threads moved to another at their first stop: 5 " dbg
'

test_expect_success SCHED_FIFO 'three tracers: every thread sampled, its PC in its loop, its CPU time its own' '
	dump tr &&
	expect_eq 8 "$(field_values tr.txt ts tid | sort -u | wc -l)" "threads sampled" &&
	check_snapshots tr.txt &&
	"$EXPORT" --format csv --symbols -o tr.csv tr &&
	# An unnamed PC (0x...) is in no function: a PC read from the wrong
	# thread or map must fail.  Starting the threads (clone3,
	# pthread_create, the start barrier) took 7% of the CPU time under a
	# load of 20, under 2% idle: named, it is their own.
	awk -F, "\$4 == \"sample\" || \$4 == \"cpu\" { c += \$6; if (\$NF ~ /spin|clock_gettime/) s += \$6
		else if (\$NF ~ /^(clone3?|pthread_create|pthread_barrier_wait|start_thread)(@|\$)/) b += \$6 }
		END { print int(100 * s / c), int(100 * (s + b) / c) }" tr.csv >spinning &&
	read loop owned <spinning &&
	expect_ge 95 "$owned" "% of the CPU time sampled in the spin loop (its clock reads in the vDSO included) or starting the threads" &&
	expect_ge 75 "$loop" "% of the CPU time sampled in the spin loop" &&
	awk "\$1 == \"ts\" || \$1 == \"exit\" { for (i = 2; i <= NF; i++) { split(\$i, kv, \"=\"); v[kv[1]] = kv[2] }
		if (v[\"cpu\"] + 0 < last[v[\"tid\"]]) bad++; last[v[\"tid\"]] = v[\"cpu\"] + 0 }
		END { print bad + 0 }" tr.txt >backwards &&
	expect_eq 0 "$(cat backwards)" "readings of a thread whose CPU time went back (another thread'"'"'s)"
'

# -d's cost line: the sampler's own CPU time (all its threads) and the
# engine thread's part of it, per thread stopped.  The tracers do the
# interrupts, reads and continues, so the engine's part is less than the
# whole.  The bounds follow the sampler's own work, not the target's CPU
# time, which a loaded machine shrinks while the sampler's work stays (8
# threads spinning 1.5 s of wall time: 0.29-0.53 s of CPU under a load of
# 15-20, the sampler 0.09-0.21 s, up to 0.34 of the target's).  Per
# thread stopped 106-175 us measured under that load (the sanitizer
# build: 110-145 us), bound at 1 ms; over the run under half of one CPU
# (summary.c's OWN_SHARE_LIMIT; 5-16% measured).  A tracer that spins
# waiting for another costs milliseconds per stop and a CPU for the run
# (two tracers on 2 CPUs took 3.1 s of CPU in 3 s).
test_expect_success SCHED_FIFO 'three tracers: -d splits the own CPU time between the engine thread and the tracers' '
	sed -n "s/^sampler: own CPU time: \([0-9.]*\) s, [0-9.]* us per sample, \([0-9.]*\) us per thread stopped; on the engine.s thread \([0-9.]*\) us .*/\1 \2 \3/p" dbg >own &&
	read own per_stop engine_per_stop <own &&
	wall=$(sed -n "s/^sampler: wall time: \([0-9.]*\) s actual.*/\1/p" dbg) &&
	echo "own $own s over $wall s, $per_stop us per stop, engine $engine_per_stop us per stop" &&
	expect_eq 1 "$(awk -v o="$own" "BEGIN { print (o > 0) }")" "own CPU time is positive" &&
	expect_eq 1 "$(awk -v e="$engine_per_stop" -v a="$per_stop" "BEGIN { print (e > 0 && e < a) }")" \
		"the engine thread uses part of the CPU time per stop, less than the whole" &&
	expect_le 1000 "$per_stop" "own CPU time per thread stopped (us)" &&
	expect_le "$(awk -v w="$wall" "BEGIN { print w / 2 }")" "$own" "own CPU time (s), half of one CPU over $wall s of wall time"
'

test_expect_success SCHED_FIFO,PERF_COUNTERS 'three tracers: the task clock of each thread matches the CPU time its tracer read' '
	"$SAMPLER" --tracers 3 -f 200 -p perf:perf::TASK-CLOCK -o clock -- "$EXAMPLES/threads" 8 0.3 >/dev/null &&
	dump clock &&
	awk "/^ts / { for (i = 2; i <= NF; i++) { split(\$i, kv, \"=\"); v[kv[1]] = kv[2] }
		last[v[\"tid\"]] = v[\"cpu\"] \" \" v[\"counters\"] }
		END { for (t in last) print t, last[t] }" clock.txt >last &&
	expect_eq 8 "$(wc -l <last)" "threads with counters" &&
	awk "{ d = \$2 - \$3; if (d < 0) d = -d;
		if (d > \$2 * 0.05 + 2000000) { print \"thread \" \$1 \": cpu \" \$2 \" ns, task clock \" \$3 \" ns\"; bad = 1 } }
		END { exit bad }" last
'

# Threads that start threads the moment they begin: each moves at its first
# stop while its parent may already start the next; none may be lost, none
# recorded twice, and every one must reach its exit record.
test_expect_success SCHED_FIFO 'three tracers, a tree of 127 threads starting threads: each recorded once' '
	for run in 1 2; do
		"$SAMPLER" -d --tracers 3 -f 500 -o tree -- "$EXAMPLES/tree" 7 >out 2>dbg &&
		expect_grep "^threads: 127\$" out &&
		dump tree &&
		expect_eq 127 "$(records tree.txt thread)" "thread records (run $run)" &&
		expect_eq 127 "$(field_values tree.txt thread tid | sort -u | wc -l)" "threads (run $run)" &&
		expect_eq 127 "$(records tree.txt exit)" "exit records (run $run)" &&
		check_snapshots tree.txt &&
		moved=$(sed -n "s/.*moved to another at their first stop: \([0-9]*\).*/\1/p" dbg) &&
		expect_ge 20 "$moved" "threads moved (run $run)" || return 1
	done
'

test_expect_success 'without real-time priority one tracer follows every thread, and says so' '
	"$SAMPLER" -d --no-realtime --tracers 3 -f 200 -o plain -- "$EXAMPLES/tree" 5 >out 2>dbg &&
	expect_eq 1 "$(grep -c "^sampler: warning: --tracers: .*real-time priority" dbg)" "warnings" &&
	expect_grep "^sampler: tracers: 1, threads moved to another at their first stop: 0 " dbg &&
	dump plain && expect_eq 31 "$(records plain.txt thread)" "thread records"
'

test_expect_success 'bad --tracers values and --tracers with --pid: one line each, nothing started' '
	for bad in 0 -1 257 two 2x ""; do
		run_status "$SAMPLER" --tracers "$bad" -- touch started 2>err &&
		expect_eq 125 "$rc" "status for --tracers \"$bad\"" &&
		expect_eq 1 "$(wc -l <err)" "error lines for --tracers \"$bad\"" &&
		expect_grep "bad --tracers .*from 1 to 256.*auto" err || return 1
	done &&
	test ! -e started &&
	run_status "$SAMPLER" --tracers 2 --pid $$ 2>err &&
	expect_eq 125 "$rc" "status with --pid" &&
	expect_grep "^sampler: error: --tracers applies to a command the sampler starts" err
'

# The recorder's own tests, every run with three tracers: a wrapper in a
# build directory of links stands in for the sampler.
test_expect_success SCHED_FIFO 'the thread, process and signal tests pass with three tracers' '
	mkdir build3 &&
	for f in "$BUILD"/*; do ln -s "$f" build3/; done &&
	rm build3/sampler &&
	printf "#!/bin/sh\nexec \"%s\" --tracers 3 \"\$@\"\n" "$SAMPLER" >build3/sampler &&
	chmod +x build3/sampler &&
	for t in t1010-recorder-threads t1020-recorder-processes t1030-recorder-signals; do
		BUILD=$TRASH/build3 SAMPLER_EXAMPLES=$EXAMPLES "$ROOT/tests/$t.sh" >$t.out 2>&1 ||
		{ grep -A8 "^not ok" $t.out; return 1; }
	done
'

test_done
