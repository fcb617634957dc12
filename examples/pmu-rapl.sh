#!/bin/sh
# pmu-rapl.sh - energy profile of a program with RAPL:
#
#     sampler -f 1000 -p rapl -o out -- ./app
#
# On a machine without RAPL (a VM, or energy_uj root-only and you are not
# root) this example records against a fake powercap tree instead, moved
# into place with SAMPLER_SYSFS_ROOT, whose package counter gains 5 W.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
OUT=${1:-${TMPDIR:-/tmp}/pmu-rapl.prof}
APP="$BUILD/examples/busy 0.5"

if SAMPLER_SYSFS_ROOT= "$BUILD/sampler" -p help | grep -A2 '^  rapl' | grep -q 'usable on this machine'; then
	"$BUILD/sampler" -f 1000 -p rapl -o "$OUT" -- $APP
else
	echo "no usable RAPL here: recording against a fake powercap tree (5 W)"
	FAKE=$(mktemp -d)
	trap 'rm -rf "$FAKE"' EXIT
	/usr/bin/python3 "$ROOT/tests/fakes/fake-powercap.py" make "$FAKE" --range 1000000
	SAMPLER_SYSFS_ROOT=$FAKE "$BUILD/sampler" -f 1000 -p rapl -o "$OUT" -- \
		/usr/bin/python3 "$ROOT/tests/fakes/fake-powercap.py" run "$FAKE" \
		--rate intel-rapl:0=5 --seconds 0.5 --log "$FAKE/log"
	cat "$FAKE/log"
fi
# the channels and the run's total energy (uJ, channel order)
"$BUILD/sampler-profile" dump "$OUT" | grep -E '^(channel|stats) '
