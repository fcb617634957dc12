#!/bin/sh
# perf plug-in: per-thread software counters with known counts (this VM has
# no hardware PMU), and the errors for events that cannot be counted.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/pmu/pmu-lib.sh"

# count FILE CHANNEL: the final per-thread count pmu-probe printed
count() {
	sed -n "s/^thread name=$2 value=//p" "$1"
}

test_expect_success 'channels: one per event, named as given, per-thread counters' '
	$PROBE -n 1 -p perf:perf::PAGE-FAULTS,perf::TASK-CLOCK >out &&
	grep ^channel out >channels &&
	printf "%s\n" \
		"channel name=perf::PAGE-FAULTS source=perf unit= scale=1 kind=counter scope=thread" \
		"channel name=perf::TASK-CLOCK source=perf unit= scale=1 kind=counter scope=thread" >expect &&
	diff expect channels
'

test_expect_success 'page faults of a workload touching 20000 pages: at least 20000, at most 20000 + 1000' '
	$PROBE -q -p perf:perf::PAGE-FAULTS,perf::TASK-CLOCK -- $WORK pages 20000 >out &&
	cat out &&
	expect_ge 20000 "$(count out perf::PAGE-FAULTS)" "page faults" &&
	expect_le 21000 "$(count out perf::PAGE-FAULTS)" "page faults" &&
	expect_ge 1 "$(count out perf::TASK-CLOCK)" "task clock ns"
'

test_expect_success 'page faults scale with the pages touched (2000 vs 20000)' '
	$PROBE -q -p perf:perf::PAGE-FAULTS -- $WORK pages 2000 >small &&
	$PROBE -q -p perf:perf::PAGE-FAULTS -- $WORK pages 20000 >big &&
	diff=$(( $(count big perf::PAGE-FAULTS) - $(count small perf::PAGE-FAULTS) )) &&
	expect_near 18000 $diff 200 "difference in page faults"
'

test_expect_success 'counts are cumulative per read and never go back' '
	$PROBE -i 1 -p perf:perf::PAGE-FAULTS -- $WORK pages 30000 >out &&
	sed -n "s/^read .* counters=//p" out >counts &&
	expect_ge 2 "$(wc -l <counts)" "reads" &&
	awk "\$1 < prev { print \"went back: \" prev \" -> \" \$1; bad = 1 } { prev = \$1 } END { exit bad }" counts
'

test_expect_success 'one instance follows 300 threads; detaching and re-attaching leaves exactly the followed ones readable' '
	$BUILD/tests/pmu-threads 300 perf:perf::TASK-CLOCK,perf::PAGE-FAULTS >out &&
	printf "%s\n" "followed=300 readable=300 wrong=0" "followed=150 readable=150 wrong=0" \
		"followed=225 readable=225 wrong=0" >expect &&
	diff expect out
'

test_expect_success ROOT 'context switches of a workload that sleeps 40 times: 40 to 80' '
	$PROBE -q -p perf:perf::CONTEXT-SWITCHES -- $WORK sleeps 40 1 >out &&
	cat out &&
	expect_ge 40 "$(count out perf::CONTEXT-SWITCHES)" "context switches" &&
	expect_le 80 "$(count out perf::CONTEXT-SWITCHES)" "context switches"
'

test_expect_success NOBODY_CAN_READ 'unprivileged: user-space page faults count; kernel-only events are refused with the reason' '
	as_nobody $PROBE -q -p perf:perf::PAGE-FAULTS -- $WORK pages 5000 >out &&
	expect_ge 5000 "$(count out perf::PAGE-FAULTS)" "page faults as nobody" &&
	run_status as_nobody $PROBE -p perf:perf::CONTEXT-SWITCHES 2>err &&
	expect_eq 125 $rc "exit status" &&
	expect_grep "perf: event .perf::CONTEXT-SWITCHES. happens only in the kernel, which perf_event_paranoid=2 does not let unprivileged users count (run as root" err &&
	run_status as_nobody $PROBE -p perf:perf::PAGE-FAULTS:k 2>err &&
	expect_eq 125 $rc "exit status for :k" &&
	one_error err "perf: event .perf::PAGE-FAULTS:k. is not allowed here: perf_event_open: Permission denied (not allowed at this perf_event_paranoid; run as root, or lower it"
'

test_expect_success 'modifiers are honoured: :u counts the user-space page faults' '
	$PROBE -q -p perf:perf::PAGE-FAULTS:u -- $WORK pages 5000 >out &&
	expect_ge 5000 "$(count out perf::PAGE-FAULTS:u)" "user page faults" &&
	expect_le 6000 "$(count out perf::PAGE-FAULTS:u)" "user page faults"
'

test_expect_success !HW_PMU 'cycles without a hardware PMU: one error line naming the event, the reason and the fix' '
	run_status $PROBE -p perf:perf::PAGE-FAULTS,cycles 2>err &&
	expect_eq 125 $rc "exit status" &&
	expect_eq 1 "$(wc -l <err)" "error lines" &&
	expect_grep "^pmu-probe: error: perf: event .cycles. is not supported on this machine: perf_event_open: .* (no hardware PMU for it, e.g. in a VM; .*try perf::TASK-CLOCK or perf::PAGE-FAULTS)$" err
'

test_expect_success 'an event libpfm4 does not know is refused by name' '
	run_status $PROBE -p perf:perf::NO-SUCH-EVENT 2>err &&
	expect_eq 125 $rc "exit status" &&
	expect_grep "perf: unknown event .perf::NO-SUCH-EVENT.: libpfm4 knows no such event" err
'

# The faults of the exit path come after the last sample: the exit record
# holds them (and the final count), and the totals add them.
test_expect_success 'sampler -p perf: the last cumulative count holds all page faults (workload lingers 200 ms)' '
	$SAMPLER -f 1000 -p perf:perf::PAGE-FAULTS -o prof -- $WORK pages 20000 200 &&
	$PROFILE dump prof >dump &&
	expect_grep "^channel name=perf::PAGE-FAULTS source=perf unit= scale=1 kind=counter scope=thread" dump &&
	last=$(sed -n "s/^ts .* counters=\([0-9]*\).*/\1/p" dump | sort -n | tail -1) &&
	expect_ge 20000 "$last" "last cumulative page-fault count" &&
	expect_le 21000 "$last" "last cumulative page-fault count" &&
	expect_eq 1 "$(grep -c "^exit " dump)" "exit records" &&
	final=$(field dump "exit " counters) tail=$(field dump "exit " dcounters) &&
	expect_eq "$final" "$((last + tail))" "final count (exit record) = last sampled + faults after the last sample" &&
	expect_le 1000 "$tail" "faults after the last sample (the exit path)" &&
	expect_eq "$final" "$(field dump stats totals)" "stats totals"
'
test_expect_success 'sampler -p perf follows every thread: the task clock of each matches its CPU time' '
	$SAMPLER -f 200 -p perf:perf::TASK-CLOCK -o thr -- $EXAMPLES/threads 8 0.3 >/dev/null &&
	$PROFILE dump thr >dump &&
	awk "/^ts / { for (i = 2; i <= NF; i++) { split(\$i, kv, \"=\"); v[kv[1]] = kv[2] }
		last[v[\"tid\"]] = v[\"cpu\"] \" \" v[\"counters\"] }
		END { for (t in last) print t, last[t] }" dump >last &&
	cat last &&
	expect_ge 8 "$(wc -l <last)" "threads with counters" &&
	awk "{ d = \$2 - \$3; if (d < 0) d = -d;
		if (d > \$2 * 0.05 + 2000000) { print \"thread \" \$1 \": cpu \" \$2 \" ns, task clock \" \$3 \" ns\"; bad = 1 } }
		END { exit bad }" last
'
test_expect_success !HW_PMU 'sampler -p perf:cycles exits 125 before starting the target' '
	run_status $SAMPLER -p perf:cycles -o prof2 -- touch started 2>err &&
	expect_eq 125 $rc "exit status" &&
	expect_grep "^sampler: error: perf: event .cycles. is not supported on this machine" err &&
	test ! -e started
'

test_done
