#!/bin/bash
# The recorder drives PMU plug-ins: per-thread counters are attached to every
# thread, read at every sample, and totalled in the statistics.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/recorder-lib.sh"

if ! "$SAMPLER" -p perf:perf::TASK-CLOCK -- true 2>err; then
	test_skip 'per-thread counters' "the perf plug-in cannot count here: $(cat err)"
	test_done
	exit
fi

test_expect_success 'perf counters: one channel per event, a value per thread-sample' '
	"$SAMPLER" -f 500 -p perf:perf::TASK-CLOCK,perf::CONTEXT-SWITCHES -o pmu -- "$EXAMPLES/threads" 4 0.3 >out &&
	dump pmu &&
	expect_eq 2 "$(records pmu.txt channel)" "channel records" &&
	expect_grep "^channel name=perf::TASK-CLOCK source=perf .*kind=counter scope=thread" pmu.txt &&
	expect_eq 4 "$(field_values pmu.txt ts tid | sort -u | wc -l)" "threads sampled" &&
	expect_eq 0 "$(field_values pmu.txt ts counters | grep -cv "^[0-9]*,[0-9]*\$")" "thread-samples without two counts"
'

test_expect_success 'perf counters: the statistics total the per-thread deltas' '
	sum=$(field_values pmu.txt ts dcounters | awk -F, "{ a += \$1; b += \$2 } END { printf \"%d,%d\", a, b }") &&
	expect_eq "$sum" "$(stat_of pmu.txt totals)" "totals"
'

test_expect_success 'perf counters: task-clock per thread agrees with the schedstat CPU time' '
	field_values pmu.txt ts cpu >cpu && field_values pmu.txt ts counters | cut -d, -f1 >clock &&
	paste cpu clock | tail -1 >last &&
	read cpu clock <last &&
	expect_near "$cpu" "$clock" "$((cpu / 20 + 2000000))" "task-clock vs CPU time (ns)"
'

test_done
