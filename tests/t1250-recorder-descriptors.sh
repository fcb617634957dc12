#!/bin/bash
# The sampler's file descriptors with -g (issue 19 #2): the unwinder keeps
# every mapped file of a process open, and under a low `ulimit -n` those
# took the descriptors the CPU-time readings need; a reading that failed
# was recorded as 0 (24 of 32 processes ended with cpu=0, and a thread's
# CPU time went back to 0: a delta of 2^64 - 25932 ns), silently.  A
# failed reading keeps the previous value, the unwinder's files share the
# descriptor budget, and running out is said once, with the fix.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/recorder-lib.sh"

# run_counted SCRIPT: a bash script that runs the workload, waits for it
# and writes its children's CPU time (bash's `times`, second line) to
# times.txt: what the kernel counted, to hold the profile to.
run_counted() {
	{
		echo '#!/bin/bash'
		echo "$1"
		echo 'wait'
		echo 'times >times.txt'
	} >counted.sh && chmod +x counted.sh
}

# children_cpu: the CPU seconds in times.txt's second line ("0m1.234s 0m0.010s").
children_cpu() {
	sed -n 2p times.txt | awk '{
		s = 0
		for (i = 1; i <= 2; i++) { split($i, ms, /[ms]/); s += ms[1] * 60 + ms[2] }
		print s
	}'
}

# exit_cpu TEXT: the CPU seconds in the exit records of every thread but
# the root process's (the shell that measured them).
exit_cpu() {
	awk '$1 == "process" && !root { for (i = 2; i <= NF; i++) if ($i ~ /^pid=/) root = substr($i, 5) }
	$1 == "exit" {
		pid = cpu = ""
		for (i = 2; i <= NF; i++) {
			if ($i ~ /^pid=/) pid = substr($i, 5)
			if ($i ~ /^cpu=/) cpu = substr($i, 5)
		}
		if (pid != root) s += cpu
	}
	END { printf "%.3f\n", s / 1e9 }' "$1"
}

# zero_exits TEXT: exit records of the root's children with cpu=0.
zero_exits() {
	awk '$1 == "process" && !root { for (i = 2; i <= NF; i++) if ($i ~ /^pid=/) root = substr($i, 5) }
	$1 == "exit" && $0 !~ " pid=" root " " && / cpu=0 / { n++ }
	END { print n + 0 }' "$1"
}

# cpu_backwards TEXT: thread-samples whose CPU time is below the thread's
# previous one (dcpu would wrap around).
cpu_backwards() {
	awk '$1 == "ts" {
		t = c = ""
		for (i = 2; i <= NF; i++) {
			if ($i ~ /^tid=/) t = substr($i, 5)
			if ($i ~ /^cpu=/) c = substr($i, 5) + 0
		}
		if (t in last && c < last[t]) n++
		last[t] = c
	}
	END { print n + 0 }' "$1"
}

# 16 processes at once with 4 files each (program, libc, ld.so, vDSO): 64
# descriptors for the unwinder alone, under a limit of 64.
test_expect_success '-g, 64 descriptors, 16 processes: their CPU time is the kernel'"'"'s' '
	run_counted "for i in \$(seq 16); do \"$EXAMPLES/busy\" 0.4 & done" &&
	(ulimit -n 64 && "$SAMPLER" -g -f 200 -o many -- ./counted.sh >out 2>err) &&
	dump many &&
	expect_eq 16 "$(field_values many.txt exec comm | grep -c "^busy$")" "busy processes recorded" &&
	expect_eq 0 "$(zero_exits many.txt)" "processes that ended with cpu=0" &&
	expect_eq 0 "$(cpu_backwards many.txt)" "thread-samples whose CPU time went back" &&
	kernel=$(children_cpu) && recorded=$(exit_cpu many.txt) &&
	expect_ge 0.1 "$kernel" "CPU seconds of the 16 processes (times)" &&
	expect_near "$kernel" "$recorded" "$(awk -v k="$kernel" "BEGIN { print 0.03 * k + 0.05 }")" \
		"CPU seconds in the exit records" &&
	expect_le 1 "$(grep -c "out of file descriptors" err)" "descriptor warnings"
'

# Below the 32 descriptors kept free for transient reads nothing is kept
# open: every CPU time is read by path, and no file can be held for the
# unwinder, which says so (once), counting the call stacks cut short: the
# profile's stacks that end at an unknown map.
test_expect_success '-g, 12 descriptors, 8 threads: every thread has its CPU time, one warning' '
	run_counted "\"$EXAMPLES/threads\" 8 1 >/dev/null" &&
	(ulimit -n 12 && "$SAMPLER" -g -o few -- ./counted.sh >out 2>err) &&
	dump few &&
	expect_eq 0 "$(zero_exits few.txt)" "threads that ended with cpu=0" &&
	expect_eq 0 "$(cpu_backwards few.txt)" "thread-samples whose CPU time went back" &&
	kernel=$(children_cpu) && recorded=$(exit_cpu few.txt) &&
	expect_ge 0.1 "$kernel" "CPU seconds of the threads (times)" &&
	expect_near "$kernel" "$recorded" "$(awk -v k="$kernel" "BEGIN { print 0.03 * k + 0.05 }")" \
		"CPU seconds in the exit records" &&
	expect_eq 1 "$(grep -c "^sampler: warning: out of file descriptors (limit 12): .*ulimit -n" err)" \
		"descriptor warnings naming ulimit -n" &&
	stacks=$(grep -c "^ts " few.txt) &&
	cut=$(grep "^ts " few.txt | grep -c " stack_end=unknown-map") &&
	expect_ge 100 "$cut" "stacks the profile holds cut at an unknown map" &&
	expect_eq "$cut of $stacks call stacks end at a file" \
		"$(grep -o "[0-9]* of [0-9]* call stacks end at a file" err)" \
		"the warning counts the stacks cut (issue 44: it counted 24 files for 5333 stacks)"
'

test_expect_success 'with enough descriptors: the same CPU time, no warning' '
	run_counted "for i in \$(seq 16); do \"$EXAMPLES/busy\" 0.4 & done" &&
	"$SAMPLER" -g -f 200 -o plenty -- ./counted.sh >out 2>err &&
	dump plenty &&
	kernel=$(children_cpu) && recorded=$(exit_cpu plenty.txt) &&
	expect_near "$kernel" "$recorded" "$(awk -v k="$kernel" "BEGIN { print 0.03 * k + 0.05 }")" \
		"CPU seconds in the exit records" &&
	expect_no_grep "out of file descriptors" err
'

test_done
