#!/bin/sh
# make demo: profile a multi-threaded example, print the run statistics, a
# per-function summary, and perf's own report of the export.
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
echo
echo "The profile is $out/demo.prof, its export $out/perf.data."
