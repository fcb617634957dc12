#!/bin/sh
# make demo: profile a multi-threaded example, print the run statistics, a
# per-function summary, and perf's own report of the export; then again
# with call stacks and energy: the call tree and an energy flame graph.
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
build=$top/build
out=${DEMO_DIR:-$top/build/demo}
mkdir -p "$out"

echo "== sampler -d -f 1000 -o $out/demo.prof -- demo-workload"
"$build/sampler" -d -f 1000 -o "$out/demo.prof" -- "$build/examples/demo-workload"

echo
echo "== sampler-export --info"
"$build/sampler-export" --info "$out/demo.prof"

echo
echo "== sampler-report (per function; share = share of thread-samples, cpu% = share of CPU time)"
# The scripts need the Python that make deps equips (Debian's, with numpy).
"${PYTHON:-/usr/bin/python3}" "$top/scripts/sampler-report" --top 12 "$out/demo.prof"

echo
echo "== sampler-export -o perf.data && perf report --sort dso,symbol"
"$build/sampler-export" -o "$out/perf.data" "$out/demo.prof"
if command -v perf >/dev/null 2>&1; then
	perf report -i "$out/perf.data" --stdio --sort dso,symbol 2>/dev/null |
		grep -v '^# (Tip' | sed -n '1,40p'
else
	echo "(perf is not installed: make deps installs linux-perf)"
fi
# Call stacks and energy: RAPL when this machine has it; else, as root, the
# tests' fake power PMU (1 W: CPU 0's clock, so joules follow wall time).
energy=
fake=
if "$build/sampler" -p help | grep -A2 '^  rapl\[' | grep -q 'usable on this machine'; then
	energy="-p rapl"
elif [ "$(id -u)" = 0 ]; then
	fake=$(mktemp -d)
	trap 'rm -rf "$fake"' EXIT
	"$top/tests/fakes/fake-power-pmu.sh" "$fake" 0
	energy="-p rapl-perf"
	echo
	echo "(no RAPL here: energy from the tests' fake power PMU, 1 W)"
fi
echo
echo "== sampler -g $energy -o $out/stacks.prof -- demo-workload"
SAMPLER_SYSFS_ROOT=${fake:-/sys} "$build/sampler" -g $energy -o "$out/stacks.prof" -- "$build/examples/demo-workload"
echo
echo "== sampler-report --tree --min-share 3 (inclusive and self shares of each call path)"
"${PYTHON:-/usr/bin/python3}" "$top/scripts/sampler-report" --tree --min-share 3 "$out/stacks.prof"
weight=cpu
[ -n "$energy" ] && weight=energy
echo
echo "== sampler-plot --kind flame --weight $weight -o $out/flame.svg"
"${PYTHON:-/usr/bin/python3}" "$top/scripts/sampler-plot" --kind flame --weight $weight -o "$out/flame.svg" \
	--title "demo-workload: $weight by call path" "$out/stacks.prof"
"$build/sampler-export" --format folded --weight $weight -o "$out/stacks.folded" "$out/stacks.prof"
echo
echo "The profile is $out/demo.prof, its export $out/perf.data; with call stacks"
echo "$out/stacks.prof, its flame graph $out/flame.svg (in a browser: click to zoom, Search),"
echo "its collapsed stacks $out/stacks.folded (for flamegraph.pl, inferno, speedscope)."
