#!/bin/sh
# pmu-sensors.sh - on-board power, current and voltage sensors (hwmon) via
# libsensors:
#
#     sampler -p help                      # lists the inputs found
#     sampler -f 200 -p sensors -o out -- ./app
#     sampler -f 200 -p sensors:CHIP/power1 -o out -- ./app
#
# Without such sensors (a VM), and as root, this example mounts a fake hwmon
# tree over /sys/class in a private mount namespace instead.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
OUT=${1:-${TMPDIR:-/tmp}/pmu-sensors.prof}
APP="$BUILD/examples/busy 0.3"

if "$BUILD/sampler" -p help | grep -A2 '^  sensors' | grep -q 'usable on this machine'; then
	"$BUILD/sampler" -f 200 -p sensors -o "$OUT" -- $APP
elif [ "$(id -u)" = 0 ]; then
	echo "no hwmon power inputs here: using a fake hwmon tree (12.5 W, 12 V, 1.042 A)"
	FAKE=$(mktemp -d)
	trap 'rm -rf "$FAKE"' EXIT
	/usr/bin/python3 "$ROOT/tests/fakes/fake-hwmon.py" make "$FAKE"
	unshare -m sh -c 'mount --make-rprivate / && mount --bind "$0" /sys/class && exec "$@"' \
		"$FAKE" "$BUILD/sampler" -f 200 -p sensors -o "$OUT" -- $APP
else
	echo "no hwmon power inputs here, and a fake tree needs root; sampler -p help says:"
	"$BUILD/sampler" -p help | grep -A2 '^  sensors'
	exit 0
fi
"$BUILD/sampler-profile" dump "$OUT" | grep -E '^(channel|stats) '
