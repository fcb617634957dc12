#!/bin/bash
# The recorder's memory follows the live processes, not every process a
# run ever started: a process and its maps are freed once it is reaped.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/recorder-lib.sh"
. "$ROOT/tests/hardening/hardening-lib.sh"

# execs N: a shell that runs /bin/true N times
execs() {
	echo "i=0; while [ \$i -lt $1 ]; do /bin/true; i=\$((i + 1)); done"
}

test_expect_success '1,000 processes: every one recorded' '
	peak_kib "$SAMPLER" -f 100 -o p1k -- sh -c "$(execs 1000)" >rss1k &&
	expect_ge 1000 "$(cat rss1k)" "peak KiB of the sampler" &&
	dump p1k &&
	expect_eq 1001 "$(stat_of p1k.txt processes)" "stats processes" &&
	expect_eq 1000 "$(grep -c "^exec .* comm=true " p1k.txt)" "exec records of /bin/true"
'

test_expect_success '10,000 processes: every one recorded, peak size below twice that of 1,000' '
	peak_kib "$SAMPLER" -f 100 -o p10k -- sh -c "$(execs 10000)" >rss10k &&
	dump p10k &&
	expect_eq 10001 "$(stat_of p10k.txt processes)" "stats processes" &&
	small=$(cat rss1k) && large=$(cat rss10k) &&
	echo "peak resident size: $small KiB for 1,000 processes, $large KiB for 10,000" &&
	expect_le $((2 * small)) "$large" "peak KiB for 10,000 processes (before the fix: 5 times that of 1,000)"
'

test_done
