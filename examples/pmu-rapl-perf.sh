#!/bin/sh
# pmu-rapl-perf.sh - RAPL energy through the perf power PMU, for a user
# who may open system-wide perf events (root, or the sampler binary given
# CAP_PERFMON: sudo setcap cap_perfmon=ep build/sampler):
#
#     sampler -f 1000 -p rapl-perf -o out -- ./app
#
# Without a power PMU (a VM), and as root, this example uses the fake PMU of
# the tests, whose "energy" is CPU 0's clock: 1 J per second.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
OUT=${1:-${TMPDIR:-/tmp}/pmu-rapl-perf.prof}
APP="$BUILD/examples/busy 0.5"

if "$BUILD/sampler" -p help | grep -A2 '^  rapl-perf' | grep -q 'usable on this machine'; then
	"$BUILD/sampler" -f 1000 -p rapl-perf -o "$OUT" -- $APP
elif [ "$(id -u)" = 0 ]; then
	echo "no usable power PMU here: using a fake one (1 W per package)"
	FAKE=$(mktemp -d)
	trap 'rm -rf "$FAKE"' EXIT
	"$ROOT/tests/fakes/fake-power-pmu.sh" "$FAKE" 0
	SAMPLER_SYSFS_ROOT=$FAKE "$BUILD/sampler" -f 1000 -p rapl-perf -o "$OUT" -- $APP
else
	echo "no usable power PMU here; sampler -p help says:"
	"$BUILD/sampler" -p help | grep -A2 '^  rapl-perf'
	exit 0
fi
"$BUILD/sampler-profile" dump "$OUT" | grep -E '^(channel|stats) '
