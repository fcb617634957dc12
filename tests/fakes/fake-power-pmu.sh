#!/bin/sh
# fake-power-pmu.sh ROOT [CPUMASK] - a fake perf "power" PMU under
# ROOT/bus/event_source/devices/power for the rapl-perf plug-in's tests.
#
# Its events are really the software event cpu-clock (type 1, config 0:
# nanoseconds of a CPU's time) with a scale of 1e-9 J per count, so every
# counter gains exactly 1 J per second of wall-clock time: a known "power"
# of 1 W per package, through the real perf_event_open path (root only, as
# system-wide events are).
set -eu
dir=$1/bus/event_source/devices/power
mkdir -p "$dir/events"
echo 1 >"$dir/type"
echo "${2:-0}" >"$dir/cpumask"
for event in energy-pkg energy-ram energy-psys; do
	echo event=0x00 >"$dir/events/$event"
	echo 1e-9 >"$dir/events/$event.scale"
	echo Joules >"$dir/events/$event.unit"
done
