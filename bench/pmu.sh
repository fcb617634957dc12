#!/bin/sh
# bench/pmu.sh - what PMU plug-ins cost per read (pmu-probe, 2000 reads
# back to back, fake devices where the hardware is missing), and perf
# counts next to the reference, `perf stat`, on the same workload.
# Prints, never asserts.
cd "$(dirname "$0")/.." || exit 1
BUILD=${BUILD:-build}
PY=/usr/bin/python3
PROBE=$BUILD/tests/pmu-probe
WORK=$BUILD/tests/pmu-workload
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sampler-bench-pmu.XXXXXX")
meter=
trap 'kill $meter 2>/dev/null; rm -rf "$tmp"' EXIT

if [ ! -x "$PROBE" ] || [ ! -x "$WORK" ]; then
	echo "pmu: skipped ($PROBE or $WORK not built; run make)"
	exit 0
fi

# cost LABEL SPEC [pmu-probe options]: mean and max microseconds per read
cost() {
	label=$1 spec=$2
	shift 2
	"$PROBE" -q -n 2000 -i 0 "$@" -p "$spec" 2>&1 |
	awk -v l="$label" '/^latency/ { for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		printf "  %-38s mean %6s us   max %8s us\n", l, v["mean_us"], v["max_us"]; found = 1 }
		END { if (!found) printf "  %-38s failed\n", l }'
}

echo "read cost per sample (all threads stopped meanwhile):"
$PY tests/fakes/fake-powercap.py make "$tmp/sys" --packages 2
SAMPLER_SYSFS_ROOT=$tmp/sys cost "rapl, 2 packages (fake tree)" rapl
SAMPLER_SYSFS_ROOT=$tmp/sys cost "rapl:all, 6 domains (fake tree)" rapl:all
if [ "$(id -u)" = 0 ]; then
	sh tests/fakes/fake-power-pmu.sh "$tmp/pmu" 0
	SAMPLER_SYSFS_ROOT=$tmp/pmu cost "rapl-perf, 1 package (fake PMU)" rapl-perf
fi
cost "perf, 1 event, 1 thread" perf:perf::PAGE-FAULTS
cost "perf, 3 events, 1 thread" perf:perf::PAGE-FAULTS,perf::TASK-CLOCK,perf::MINOR-FAULTS
if [ "$(id -u)" = 0 ]; then
	$PY tests/fakes/fake-hwmon.py make "$tmp/class"
	label="sensors, 4 inputs (fake hwmon)"
	unshare -m sh -c 'mount --make-rprivate / && mount --bind "$0" /sys/class && exec "$@"' \
		"$tmp/class" "$PROBE" -q -n 2000 -i 0 -p sensors 2>&1 |
	awk -v l="$label" '/^latency/ { split($3, a, "="); split($4, b, "=");
		printf "  %-38s mean %6s us   max %8s us\n", l, a[2], b[2] }'
fi
$PY tests/fakes/fake-scpi.py --tcp "$tmp/port" >/dev/null 2>&1 &
meter=$!
while [ ! -s "$tmp/port" ]; do sleep 0.05; done
cost "scpi, loopback TCP (Python fake)" "scpi:tcp://127.0.0.1:$(cat "$tmp/port")" -n 1000 -i 1

# A slow meter must not slow the target: examples/blocked (one thread of
# 40 M work units, its own clock) under -p scpi with fake meters answering
# in 1, 20 and 80 ms (within the default timeout_ms=100), runs interleaved,
# the median of SLOW_RUNS each; the sampler without a meter for scale.
. bench/lib.sh
SLOW_RUNS=${SLOW_RUNS:-7}
BLOCKED=$BUILD/examples/blocked
slow_once() {	# name [-p spec]: one run, its runtime appended to $tmp/name.t
	name=$1
	shift
	"$BUILD/sampler" -o "$tmp/slow.prof" "$@" -- "$BLOCKED" 1 0 40 >"$tmp/slow.out" 2>/dev/null
	runtime "$tmp/slow.out" >>"$tmp/$name.t"
}
if [ -x "$BLOCKED" ] && [ -x "$BUILD/sampler" ]; then
	for ms in 1 20 80; do
		$PY tests/fakes/fake-scpi.py --tcp "$tmp/slow$ms.port" --value 10 --delay-ms $ms >/dev/null 2>&1 &
		meter="$meter $!"
		while [ ! -s "$tmp/slow$ms.port" ]; do sleep 0.05; done
	done
	for i in $(seq $SLOW_RUNS); do
		slow_once none
		for ms in 1 20 80; do
			slow_once m$ms -p "scpi:tcp://127.0.0.1:$(cat "$tmp/slow$ms.port")"
		done
	done
	echo "target runtime under a slow meter (examples/blocked 1 0 40 at 1 kHz, median of $SLOW_RUNS):"
	for name in none m1 m20 m80; do
		median <"$tmp/$name.t" >"$tmp/$name.median"
		label="meter answering in ${name#m} ms"
		[ $name = none ] && label="no meter"
		printf "  %-38s %8s s\n" "$label" "$(cat "$tmp/$name.median")"
	done
	for ms in 20 80; do
		printf "  %-38s %8s (at most 1.05)\n" "slowdown, $ms ms meter / 1 ms meter" \
			"$(awk -v a="$(cat "$tmp/m$ms.median")" -v b="$(cat "$tmp/m1.median")" 'BEGIN { printf "%.3f", a / b }')"
	done
fi

echo "perf counts, 20000 pages touched (reference: perf stat):"
printf "  %-38s %s\n" "pmu-probe -p perf:perf::PAGE-FAULTS" \
	"$("$PROBE" -q -p perf:perf::PAGE-FAULTS -- "$WORK" pages 20000 | sed -n 's/^thread .* value=//p')"
if command -v perf >/dev/null 2>&1; then
	printf "  %-38s %s\n" "perf stat -e page-faults" \
		"$(perf stat -x, -e page-faults -- "$WORK" pages 20000 2>&1 >/dev/null | cut -d, -f1)"
else
	printf "  %-38s %s\n" "perf stat" "not installed"
fi
