#!/bin/sh
# t4610-scripts-callstacks.sh - the scripts on a profile recorded with -g:
# sampler-report --tree/--callers/--callees, sampler-plot --kind flame and
# sampler-compare --tree agree with the exporter's own sums of the stacks
# (CPU shares within 0.1 point: the folded export adds each thread's CPU
# time after its last sample, which a CSV without exit rows lacks); compare
# gives each side's inclusive CPU time and the change, in text and CSV; the
# energy flame graph (SVG and PNG) shares the energy as the exporter does.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/export-lib.sh"
PY=/usr/bin/python3
REPORT="$PY $ROOT/scripts/sampler-report"
PLOT="$PY $ROOT/scripts/sampler-plot"
COMPARE="$PY $ROOT/scripts/sampler-compare"
export SAMPLER_BIN_DIR=$BUILD
if ! $PY -c 'import numpy' 2>/dev/null; then
	test_skip 'scripts on call stacks' 'python3-numpy is not installed'
	test_done
	exit
fi

# csv_field CSV PATH FIELD: FIELD of the row whose path is PATH.
csv_field() {
	$PY - "$@" <<-'PYEOF'
	import csv, sys
	rows = list(csv.DictReader(open(sys.argv[1])))
	for r in rows:
	    if r["path"] == sys.argv[2]:
	        print(r[sys.argv[3]])
	        break
	PYEOF
}

# folded_share FOLDED PREFIX: the share (%) of the weight of stacks that
# begin with PREFIX (a call path), as the exporter sums them.
folded_share() {
	awk -v p="$2" '{ w = $NF; s = substr($0, 1, length($0) - length(w) - 1); total += w
		if (s == p || index(s, p ";") == 1) hit += w }
		END { printf "%.3f\n", 100 * hit / total }' "$1"
}

# folded_sum FOLDED PREFIX: the weight (ns) of stacks that begin with PREFIX,
# in seconds.
folded_sum() {
	awk -v p="$2" '{ w = $NF; s = substr($0, 1, length($0) - length(w) - 1)
		if (s == p || index(s, p ";") == 1) hit += w }
		END { printf "%.6f\n", hit / 1e9 }' "$1"
}


test_expect_success 'setup: calltree with -g' '
	"$SAMPLER" -f 1000 -g -o p.prof -- "$EXAMPLES/calltree" 1 >/dev/null &&
	"$EXPORT" --format folded --weight cpu p.prof >cpu.folded &&
	"$EXPORT" --format folded --weight samples p.prof >samples.folded
'

test_expect_success 'report --tree: the inclusive shares of the exporter'"'"'s stack sums' '
	$REPORT --tree --min-share 0 --csv p.prof >tree.csv &&
	MAIN=$(awk -F, "\$2 == \"timed\" { print \$3; exit }" tree.csv) &&
	expect_grep "^calltree;_start;.*;main;timed$" "$(echo "$MAIN" >main.path; echo main.path)" &&
	for path in "$MAIN;a" "$MAIN;a;leaf" "$MAIN;b;leaf" "$MAIN;rec50"; do
		expect_near "$(folded_share cpu.folded "$path")" "$(csv_field tree.csv "$path" cpu_share)" 0.1 "cpu share of $path" &&
		expect_near "$(folded_share samples.folded "$path")" "$(csv_field tree.csv "$path" share)" 0.01 "sample share of $path" || exit 1
	done &&
	lo=$(csv_field tree.csv "$MAIN;a" share_lo) && hi=$(csv_field tree.csv "$MAIN;a" share_hi) &&
	share=$(csv_field tree.csv "$MAIN;a" share) &&
	expect_le "$hi" "$share" "share within its interval" && expect_ge "$lo" "$share" "share within its interval" &&
	expect_ge 0.1 "$(awk -v a="$lo" -v b="$hi" "BEGIN { print b - a }")" "interval width"
'

test_expect_success 'report --tree as text: the call path indented, heaviest first' '
	$REPORT --tree p.prof >tree.txt &&
	cat tree.txt &&
	expect_grep "^# p.prof: call tree, [0-9]* thread-samples" tree.txt &&
	expect_grep "incl%.*95%ci.*self%.*cpu%.*call path$" tree.txt &&
	expect_grep " calltree$" tree.txt &&
	expect_grep "^ .*               leaf$" tree.txt
'

test_expect_success 'report --callers leaf: a and b, and nothing else' '
	$REPORT --callers leaf --min-share 0 --csv p.prof >callers.csv &&
	a=$(csv_field callers.csv "leaf;a" share) && b=$(csv_field callers.csv "leaf;b" share) &&
	expect_near 100 "$(awk -v a="$a" -v b="$b" "BEGIN { print a + b }")" 0.01 "leaf via a + via b (%)" &&
	expect_eq 2 "$(awk -F, "\$1 == 1" callers.csv | wc -l)" "callers of leaf"
'

test_expect_success 'report --callees main: everything under timed; an unknown function is one error' '
	$REPORT --callees main --csv p.prof >callees.csv &&
	expect_ge 95 "$(csv_field callees.csv "main;timed" share)" "share of main;timed (the rest: main'"'"'s clock reads)" &&
	run_status $REPORT --callees no_such_function p.prof 2>err &&
	expect_eq 1 "$rc" "exit status" &&
	expect_grep "^sampler-report: error: .*no stack holds the function .no_such_function." err
'

test_expect_success 'plot --kind flame: an SVG with a frame per path, its share in the tooltip' '
	$PLOT --kind flame p.prof -o flame.svg &&
	$PY -c "import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])" flame.svg &&
	expect_grep "<title>calltree (.* s, 100.00%)</title>" flame.svg &&
	expect_grep "<title>leaf (" flame.svg &&
	$PLOT --kind flame --weight samples p.prof -o flame.png &&
	expect_eq PNG "$(head -c 4 flame.png | tail -c 3)" "PNG magic" &&
	run_status $PLOT --kind flame --weight energy p.prof -o e.svg 2>err &&
	expect_eq 1 "$rc" "exit status without an energy channel" &&
	expect_grep "no such energy channel" err
'

test_expect_success 'compare --tree of a profile with itself: no change anywhere' '
	$COMPARE --tree --csv p.prof p.prof >same.csv &&
	expect_ge 5 "$(tail -n +2 same.csv | wc -l)" "paths compared" &&
	expect_eq 0 "$($PY -c "import csv,sys; print(sum(1 for r in csv.DictReader(open(sys.argv[1])) if r[\"changed\"] or float(r[\"cpu_delta\"])))" same.csv)" "changed paths"
'

# The other run has one thread: the signal thread's paths (clone3...) are
# in the base only, the main thread's in both.  How much CPU the signal
# thread got depends on the load (a starved CI machine gave it 0.02 s of 1 s).
test_expect_success 'compare --tree: inclusive CPU per path of each side, the change, a flag where it is significant' '
	"$SAMPLER" -f 1000 -g -o one.prof -- "$EXAMPLES/calltree" 1 1 >/dev/null &&
	"$EXPORT" --format folded --weight cpu one.prof >one.folded &&
	$COMPARE --tree --min-share 0 --csv p.prof one.prof >diff.csv &&
	MAIN=$(awk -F, "\$2 == \"timed\" { print \$3; exit }" diff.csv) &&
	for path in "$MAIN" "$MAIN;a" "$MAIN;b;leaf" "calltree;clone3"; do
		base=$(csv_field diff.csv "$path" base_cpu) && new=$(csv_field diff.csv "$path" new_cpu) &&
		expect_near "$(folded_sum cpu.folded "$path")" "$base" 0.001 "base CPU (s) of $path, inclusive" &&
		expect_near "$(folded_sum one.folded "$path")" "$new" 0.001 "new CPU (s) of $path, inclusive" &&
		expect_near "$(awk -v a="$base" -v b="$new" "BEGIN { print b - a }")" \
			"$(csv_field diff.csv "$path" cpu_delta)" 0.00001 "CPU change of $path" || exit 1
	done &&
	expect_eq 0 "$(csv_field diff.csv "calltree;clone3" new_cpu)" "new CPU of the signal thread" &&
	expect_ge 0.000001 "$(csv_field diff.csv "calltree;clone3" base_cpu)" "base CPU of the signal thread (s)" &&
	expect_eq "-" "$(csv_field diff.csv "calltree;clone3" cpu_flag)" "flag of the path gone" &&
	$COMPARE --tree --min-share 0 p.prof one.prof >diff.txt &&
	expect_grep "^# base: p.prof" diff.txt &&
	expect_grep "^  clone3  .* -100.0%  -$" diff.txt
'

# The fake power PMU spends exactly 1 W: the energy of the run is its wall
# time in joules, from the plug-in's first reading to its last
# (fake_power_holds; t3100 checks the split per path against the workload).
test_expect_success ROOT 'plot --kind flame --weight energy (fake RAPL PMU): SVG frames share the energy as the exporter does, and PNG' '
	"$ROOT/tests/fakes/fake-power-pmu.sh" "$TRASH/pmu" 0 &&
	SAMPLER_SYSFS_ROOT=$TRASH/pmu "$SAMPLER" -f 1000 -g -p rapl-perf -o e.prof -- "$EXAMPLES/calltree" 1 1 >/dev/null &&
	fake_power_holds e.prof 1 &&
	"$EXPORT" --format folded --weight energy e.prof >e.folded &&
	$PLOT --kind flame --weight energy e.prof -o e.svg &&
	joules=$(awk "{ s += \$NF } END { printf \"%.3f\", s / 1e6 }" e.folded) &&
	expect_grep "<title>calltree (.* J, 100.00%)</title>" e.svg &&
	expect_near "$joules" "$(sed -n "s/.*<title>calltree (\(.*\) J, 100.00%)<.*/\1/p" e.svg)" "$(awk -v j="$joules" "BEGIN { print j / 100 }")" "energy of the run (J)" &&
	MAIN=$(grep -o "^calltree;_start;.*;main;timed" e.folded | head -n 1) &&
	sed -n "s/.*<title>leaf (.* J, \(.*\)%)<.*/\1/p" e.svg | sort -n >svg.leaf &&
	{ folded_share e.folded "$MAIN;a;leaf"; folded_share e.folded "$MAIN;b;leaf"; } | sort -n >exported.leaf &&
	expect_eq 2 "$(wc -l <svg.leaf)" "leaf frames in the SVG" &&
	expect_near "$(sed -n 1p exported.leaf)" "$(sed -n 1p svg.leaf)" 0.1 "energy share of leaf via a (%)" &&
	expect_near "$(sed -n 2p exported.leaf)" "$(sed -n 2p svg.leaf)" 0.1 "energy share of leaf via b (%)" &&
	$PLOT --kind flame --weight energy:package-0 e.prof -o e.png &&
	expect_eq PNG "$(head -c 4 e.png | tail -c 3)" "PNG magic" &&
	expect_ge 10000 "$(wc -c <e.png)" "PNG bytes"
'

test_expect_success 'a profile without stacks: --tree and flame say how to get them' '
	"$SAMPLER" -o plain.prof -- "$EXAMPLES/calltree" 0.2 >/dev/null &&
	run_status $REPORT --tree plain.prof 2>err &&
	expect_eq 1 "$rc" "exit status" &&
	expect_eq 1 "$(wc -l <err)" "error lines" &&
	expect_grep "has no call stacks (record it with sampler -g)" err &&
	$REPORT plain.prof >/dev/null
'

test_done
