#!/bin/bash
# Resource limits of the sampler's own process: with fewer file descriptors
# than the target has threads (a 1100-thread program under the usual soft
# limit of 1024 is the same case), every thread must still get its CPU time.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/recorder-lib.sh"

# threads_without_cpu TEXT: threads whose CPU time is 0 in every sample
# and in their exit record (a thread that ends between samples reports
# its CPU time there).
threads_without_cpu() {
	awk '$1 == "ts" || $1 == "exit" {
		t = ""; c = 0
		for (i = 2; i <= NF; i++) {
			split($i, kv, "=")
			if (kv[1] == "tid") t = kv[2]
			if (kv[1] == "cpu") c = kv[2] + 0
		}
		if (c > most[t]) most[t] = c
		seen[t] = 1
	}
	END { for (t in seen) if (!most[t]) n++; print n + 0 }' "$1"
}

test_expect_success '64 file descriptors, 100 spinning threads: every thread has CPU time' '
	(ulimit -n 64 && "$SAMPLER" -f 500 -o fds -- "$EXAMPLES/threads" 100 0.3 >out 2>err) &&
	dump fds &&
	# A thread that ends before a loaded machine lets a sample reach it is
	# accounted by its exit record (final CPU time), not by a sample.
	expect_ge 100 "$(field_values fds.txt thread tid | sort -u | wc -l)" "threads recorded" &&
	expect_eq "$(field_values fds.txt thread tid | sort -u | wc -l)" \
		"$({ field_values fds.txt ts tid; field_values fds.txt exit tid; } | sort -u | wc -l)" \
		"threads sampled or accounted at their exit" &&
	expect_eq 0 "$(threads_without_cpu fds.txt)" "threads that never got CPU time"
'

# Blocked threads are read through /proc/TID/syscall (a descriptor each):
# these share the budget with schedstat, or they would take the last ones.
test_expect_success '64 file descriptors, 100 blocked threads: every thread has CPU time and a PC' '
	(ulimit -n 64 && "$SAMPLER" -f 200 -o blk -- "$EXAMPLES/blocked" 2 100 20 >out 2>err) &&
	dump blk &&
	expect_ge 102 "$(field_values blk.txt thread tid | sort -u | wc -l)" "threads recorded" &&
	expect_eq 0 "$(threads_without_cpu blk.txt)" "threads that never got CPU time" &&
	expect_eq 0 "$(awk "\$1 == \"ts\" && / pc=0x0 /" blk.txt | wc -l)" "thread samples without a PC"
'

test_expect_success 'the same run with enough descriptors: every thread has CPU time' '
	"$SAMPLER" -f 500 -o plenty -- "$EXAMPLES/threads" 100 0.3 >out &&
	dump plenty &&
	expect_eq 0 "$(threads_without_cpu plenty.txt)" "threads that never got CPU time"
'

test_done
