#!/bin/bash
# Resource limits of the sampler's own process: with fewer file descriptors
# than the target has threads (a 1100-thread program under the usual soft
# limit of 1024 is the same case), every thread must still get its CPU time.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/recorder-lib.sh"

# threads_without_cpu TEXT: threads whose CPU time is 0 in every sample.
threads_without_cpu() {
	awk '$1 == "ts" {
		split($2, tid, "="); split($5, cpu, "=")
		if (cpu[2] + 0 > most[tid[2]]) most[tid[2]] = cpu[2] + 0
		seen[tid[2]] = 1
	}
	END { for (t in seen) if (!most[t]) n++; print n + 0 }' "$1"
}

test_expect_success '64 file descriptors, 100 spinning threads: every thread has CPU time' '
	(ulimit -n 64 && "$SAMPLER" -f 500 -o fds -- "$EXAMPLES/threads" 100 0.3 >out 2>err) &&
	dump fds &&
	expect_eq 100 "$(field_values fds.txt ts tid | sort -u | wc -l)" "threads sampled" &&
	expect_eq 0 "$(threads_without_cpu fds.txt)" "threads that never got CPU time"
'

test_expect_success 'the same run with enough descriptors: every thread has CPU time' '
	"$SAMPLER" -f 500 -o plenty -- "$EXAMPLES/threads" 100 0.3 >out &&
	dump plenty &&
	expect_eq 0 "$(threads_without_cpu plenty.txt)" "threads that never got CPU time"
'

test_done
