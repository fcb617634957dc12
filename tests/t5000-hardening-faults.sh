#!/bin/bash
# Faults around a run: the sampler killed, the disk full, targets that die,
# block every signal, stop themselves, exec setuid programs or fork many
# processes.  docs/RELIABILITY.md says what each promises.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/recorder-lib.sh"
. "$ROOT/tests/hardening/hardening-lib.sh"

# Every pid in the target tree, read from /proc while the run goes on.
descendants() {	# pid
	local kids
	kids=$(pgrep -P "$1" || true)
	for k in $kids; do
		echo "$k"
		descendants "$k"
	done
}

test_expect_success 'SIGKILL to the sampler: no process of the target tree is left' '
	"$SAMPLER" -f 1000 -o killed -- "$HW/hw-tree" 3 30 >tree.out 2>tree.err &
	sampler=$! &&
	wait_for_line "^ready" tree.out &&
	sleep 1.5 &&
	descendants $sampler >tree.pids &&
	expect_eq 4 "$(wc -l <tree.pids)" "processes in the target tree" &&
	# a loaded machine may start the last thread late: wait for it (30 s at most)
	for i in $(seq 300); do
		n=$(for p in $(cat tree.pids); do ls /proc/$p/task; done | wc -l)
		[ "$n" = 8 ] && break
		sleep 0.1
	done &&
	expect_eq 8 "$n" "threads in the target tree" &&
	# every record reaches the file with the next timed flush (a second of
	# sample time): wait for one after the last thread appeared, so that
	# the records of the whole tree are on disk (30 s at most, under load)
	size=$(stat -c %s killed) &&
	for i in $(seq 300); do
		[ "$(stat -c %s killed)" -gt "$size" ] && break
		sleep 0.1
	done &&
	expect_ge "$((size + 1))" "$(stat -c %s killed)" "profile bytes after a flush" &&
	kill -KILL $sampler &&
	run_status wait $sampler &&
	expect_eq 137 "$rc" "sampler status" &&
	for i in $(seq 100); do
		left=$(for p in $(cat tree.pids); do [ -d /proc/$p ] && echo $p; done | wc -l)
		[ "$left" = 0 ] && break
		sleep 0.05
	done &&
	expect_eq 0 "$left" "target processes alive after the sampler died"
'

test_expect_success 'SIGKILL to the sampler: the profile reads back, truncated, with samples' '
	run_status "$BUILD/sampler-profile" dump killed >killed.txt 2>killed.err &&
	expect_eq 2 "$rc" "dump status (2: truncated)" &&
	expect_empty "$(cat killed.err)" "dump errors" &&
	expect_grep "^truncated good_bytes=[1-9]" killed.txt &&
	expect_eq truncated "$(tail -1 killed.txt | cut -d" " -f1)" "last line" &&
	expect_ge "$(min_samples 1)" "$(records killed.txt sample)" "samples before the kill (the chunk of the first second at least)" &&
	expect_eq 4 "$(records killed.txt process)" "processes recorded" &&
	expect_no_grep "^stats " killed.txt &&
	check_snapshots killed.txt
'

# The output file system is a small tmpfs in a private mount namespace,
# filled up as soon as the profile has grown past its first write (the
# header; the chunk of the first second follows): every later write fails,
# whatever the rate the machine allows (a fixed size that a 4-thread run at
# 1 kHz outgrows in a second was not reached under load).
cat >fill-after-first-chunk <<-\EOF
	dir=$1 first=0 i=0
	while [ $i -lt 400 ]; do
		size=$(find "$dir" -type f -printf "%s\n" | sort -n | tail -1)
		if [ "$first" = 0 ]; then
			first=${size:-0}
		elif [ "${size:-0}" -gt "$first" ]; then
			break
		fi
		sleep 0.05
		i=$((i + 1))
	done
	cat /dev/zero >"$dir/filler" 2>/dev/null
EOF
test_expect_success UNSHARE 'full disk: one error, the target runs to its end, exit 125' '
	mkdir small &&
	run_status unshare -m sh -c "mount -t tmpfs -o size=1m tmpfs small &&
		{ sh fill-after-first-chunk small & } &&
		\"\$1\" -f 1000 -o small/prof -- \"\$2\" 4 4 >target.out 2>sampler.err;
		status=\$?; wait; cp small/prof full.prof; exit \$status" sh "$SAMPLER" "$HW/hw-writer" &&
	expect_eq 125 "$rc" "sampler status" &&
	but_rate_warning sampler.err >sampler.err2 &&
	one_error_line sampler.err2 &&
	expect_grep "cannot write .*small/prof: No space left on device" sampler.err &&
	expect_grep "^finished 4 threads after 4 s" target.out
'
test_expect_success UNSHARE 'full disk: the profile written so far reads back, truncated' '
	run_status "$BUILD/sampler-profile" dump full.prof >full.txt 2>full.err &&
	expect_eq 2 "$rc" "dump status (2: truncated)" &&
	expect_grep "^truncated good_bytes=" full.txt &&
	expect_ge "$(min_samples 0.5)" "$(records full.txt sample)" "samples kept (the chunk of the first second)" &&
	check_snapshots full.txt
'

for how in kill:137 segv:139 abort:134; do
	sig=${how%:*} status=${how#*:}
	test_expect_success "the target dies by $sig: status $status, profile complete" '
		run_status "$SAMPLER" -f 1000 -o die-$sig -- "$HW/hw-die" $sig 0.2 >die.out 2>die.err &&
		expect_eq $status "$rc" "sampler status" &&
		expect_grep "^dying by $sig" die.out &&
		dump die-$sig &&
		expect_schedule die-$sig.txt &&
		expect_eq 1 "$(records die-$sig.txt exit)" "exit records"
	'
done

test_expect_success 'a target that blocks every signal is still sampled' '
	"$SAMPLER" -f 1000 -o blocked -- "$HW/hw-blockall" 0.5 >blocked.out &&
	expect_grep "^blocked 6[0-9] signals" blocked.out &&
	dump blocked &&
	expect_schedule blocked.txt &&
	expect_eq 0 "$(stat_of blocked.txt signals)" "signals delivered"
'

test_expect_success 'a target that stops itself stays stopped until another process continues it' '
	"$SAMPLER" -f 1000 -o stop -- "$HW/hw-selfstop" 0.2 >stop.out 2>stop.err &
	sampler=$! &&
	wait_for_line "^stopping" stop.out &&
	target=$(pgrep -P $sampler) &&
	wait_for_state $target "[Tt]" &&
	sleep 0.5 &&
	expect_eq stopped "$(proc_state $target | sed "s/^[Tt]$/stopped/")" "target state 0.5 s later" &&
	expect_eq 1 "$(wc -l <stop.out)" "target output lines while stopped" &&
	kill -CONT $target &&
	run_status timeout 20 tail --pid=$sampler -f /dev/null &&
	expect_eq 0 "$rc" "the sampler ended" &&
	wait $sampler &&
	expect_grep "^continued after [0-9]* ms" stop.out &&
	expect_ge 500 "$(sed -n "s/^continued after \([0-9]*\) ms/\1/p" stop.out)" "ms stopped" &&
	dump stop &&
	expect_eq "$(stat_of stop.txt samples)" "$(records stop.txt sample)" "stats samples vs sample records" &&
	awk "/^sample / { split(\$2, kv, \"=\"); t[++n] = kv[2] }
		END { for (i = 2; i <= n; i++) if (t[i] - t[i - 1] > gap) { gap = t[i] - t[i - 1]; at = i }
		      print at - 1, n - at + 1, int(gap / 1e6) }" stop.txt >split &&
	read before after gap <split &&
	expect_ge 500 "$gap" "longest gap between samples (ms): the stop" &&
	expect_ge "$(min_samples 0.2)" "$before" "samples before the stop (0.2 s spinning)" &&
	expect_ge "$(min_samples 0.2)" "$after" "samples after it"
'

# A setuid-root copy of id(1): alone it runs as euid 0, under ptrace the
# kernel does not grant the privilege (the sampler never becomes root).
test_expect_success NOBODY_CAN_READ 'exec of a setuid program: no privileges granted under ptrace' '
	mkdir -m 1777 nob && cp /usr/bin/id nob/suid-id && chmod 4755 nob/suid-id &&
	as_nobody nob/suid-id -u >alone.out &&
	if [ "$(cat alone.out)" != 0 ]; then
		echo "# the setuid bit has no effect here (nosuid mount?)"; cat alone.out
	fi &&
	(cd nob && as_nobody "$SAMPLER" -f 1000 -o prof -- ./suid-id -u >../traced.out 2>../traced.err) &&
	expect_eq $NOBODY "$(cat traced.out)" "euid of the setuid program under the sampler" &&
	expect_eq 0 "$(cat alone.out)" "euid of the setuid program alone" &&
	"$BUILD/sampler-profile" dump nob/prof >suid.txt &&
	expect_grep "^exec pid=.* comm=suid-id " suid.txt &&
	expect_eq 0 "$(stat_of suid.txt exit)" "exit"
'

test_expect_success 'a target that forks 200 processes: all in the profile, no hang' '
	timeout 120 "$SAMPLER" -f 1000 -o forks -- "$HW/hw-forks" 200 0.005 >forks.out &&
	expect_grep "^forked 200 reaped 200 ok 200$" forks.out &&
	dump forks &&
	expect_eq 201 "$(records forks.txt process)" "process records" &&
	expect_eq 201 "$(stat_of forks.txt processes)" "stats processes" &&
	expect_eq 201 "$(field_values forks.txt exit pid | sort -u | wc -l)" "processes that exited" &&
	check_snapshots forks.txt
'

test_done
