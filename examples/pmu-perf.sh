#!/bin/sh
# pmu-perf.sh - per-thread counters with libpfm4 event names:
#
#     sampler -f 1000 -p perf:perf::PAGE-FAULTS,perf::TASK-CLOCK -o out -- ./app
#
# Software events work everywhere, even in a VM; on real hardware add
# cycles or instructions.  sampler -p help shows which events work here.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
OUT=${1:-${TMPDIR:-/tmp}/pmu-perf.prof}

"$BUILD/sampler" -f 1000 -p perf:perf::PAGE-FAULTS,perf::TASK-CLOCK -o "$OUT" -- \
	"$BUILD/tests/pmu-workload" pages 20000 50
# channels, the last per-thread counts, and the totals
"$BUILD/sampler-profile" dump "$OUT" | grep -E '^(channel|stats) '
"$BUILD/sampler-profile" dump "$OUT" | grep '^ts ' | tail -1
