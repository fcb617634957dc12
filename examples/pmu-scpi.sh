#!/bin/sh
# pmu-scpi.sh - an external power meter speaking SCPI, over TCP or serial:
#
#     sampler -f 100 -p scpi:tcp://192.168.1.50:5025 -o out -- ./app
#     sampler -f 100 -p scpi:/dev/ttyUSB0@115200,query=MEAS:POW?,timeout_ms=50 -o out -- ./app
#
# Without an address, this example starts the fake meter of the tests on
# loopback (it always reads 12.5 W).
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
OUT=${2:-${TMPDIR:-/tmp}/pmu-scpi.prof}
ADDRESS=${1:-}

if [ -z "$ADDRESS" ]; then
	DIR=$(mktemp -d)
	/usr/bin/python3 "$ROOT/tests/fakes/fake-scpi.py" --tcp "$DIR/port" --value 12.5 >/dev/null 2>&1 &
	METER=$!
	trap 'kill $METER; rm -rf "$DIR"' EXIT
	while [ ! -s "$DIR/port" ]; do sleep 0.05; done
	ADDRESS=tcp://127.0.0.1:$(cat "$DIR/port")
	echo "fake meter at $ADDRESS"
fi
"$BUILD/sampler" -f 100 -p "scpi:$ADDRESS" -o "$OUT" -- "$BUILD/examples/busy" 0.3
"$BUILD/sampler-profile" dump "$OUT" | grep -E '^(channel|sample|stats) ' | tail -4
