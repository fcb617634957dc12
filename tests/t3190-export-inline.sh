#!/bin/bash
# Inlined functions as frames: examples/inlined spends most of its time in
# round_sum, a static function inlined into work (-O2: no symbol of its
# own, only DWARF inline scopes).  The folded and speedscope stacks, the
# columns' functions and stacks (sampler-report, its tree, sampler-plot
# flame) show it as "round_sum (inlined)" under work, as perf report
# --inline marks it, with its CPU share within 3 points of perf's own
# dwarf recording of the same program (each runs for 4 s of CPU time:
# 4000 samples, a standard error of the difference of the shares of about
# 1 point); --no-inline gives the stacks without inlined frames.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/callstack-lib.sh"

REPORT="$PY $ROOT/scripts/sampler-report"
PLOT="$PY $ROOT/scripts/sampler-plot"
export SAMPLER_BIN_DIR=$BUILD
W="$EXAMPLES/inlined"
HOT="round_sum (inlined)"

# perf_children REPORT SYMBOL: the Children share (%) of SYMBOL in perf
# report --children --sort symbol, summed over its rows (perf makes one per
# inlined copy of a function).
perf_children() {
	awk -v sym="$2" '{
		i = index($0, "[.] " sym)
		if (!i || substr($0, i + 4 + length(sym), 1) !~ /^( |)$/) next
		sub(/%/, "", $1); total += $1; found = 1
	} END { if (found) printf "%.2f\n", total }' "$1"
}

# report_cpu CSV NAME: NAME's cpu_share in sampler-report --tree --csv,
# summed over the call paths ending in it (perf's Children share).
report_cpu() {
	$PY -c '
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["name"] == sys.argv[2]]
if rows:
    print("%.2f" % sum(float(r["cpu_share"]) for r in rows))' "$1" "$2"
}

# speedscope_share JSON FRAME: the share (%) of the weight whose stack
# holds FRAME, over all profiles of the file.
speedscope_share() {
	$PY -c '
import json, sys
d = json.load(open(sys.argv[1]))
names = [f["name"] for f in d["shared"]["frames"]]
hit = total = 0.0
for p in d["profiles"]:
    for stack, w in zip(p["samples"], p["weights"]):
        total += w
        hit += w if any(names[i] == sys.argv[2] for i in stack) else 0
print("%.2f" % (100 * hit / total if total else 0))' "$1" "$2"
}

# without_inlined FOLDED: the stacks with their inlined frames dropped,
# equal stacks merged, sorted.
without_inlined() {
	$PY -c '
import sys
acc = {}
for line in open(sys.argv[1]):
    stack, w = line.rstrip("\n").rsplit(" ", 1)
    key = ";".join(f for f in stack.split(";") if not f.endswith(" (inlined)"))
    acc[key] = acc.get(key, 0) + int(w)
for k in sorted(acc):
    print(k, acc[k])' "$1"
}

test_lazy_prereq PERF_DWARF '
	command -v perf >/dev/null || { echo "perf is not installed (make deps installs linux-perf)"; exit 1; }
	perf record -q --call-graph dwarf -o probe.data true >probe.out 2>&1 ||
		{ echo "perf record --call-graph dwarf fails here: $(head -1 probe.out)"; exit 1; }
'

test_expect_success 'setup: round_sum is inlined into work (no symbol, a DWARF inline scope)' '
	nm "$W" >syms &&
	expect_grep " T work$" syms &&
	expect_no_grep "round_sum" syms &&
	readelf --debug-dump=info "$W" >info &&
	expect_grep "DW_TAG_inlined_subroutine" info &&
	expect_grep "DW_AT_name.*: round_sum$" info
'

test_expect_success 'setup: recorded with -g, exported with and without inlined frames' '
	"$SAMPLER" -g -f 1000 -o p.prof -- "$W" 4 >/dev/null 2>&1 &&
	"$EXPORT" --format folded --weight cpu p.prof >cpu.folded 2>err &&
	expect_empty "$(cat err)" "export stderr" &&
	"$EXPORT" --format folded --weight cpu --no-inline p.prof >plain.folded &&
	"$EXPORT" --format speedscope --weight cpu -o s.json p.prof
'

test_expect_success PERF_DWARF 'setup: perf record --call-graph dwarf of the same program' '
	# user space only, as the sampler'"'"'s clock samples: perf'"'"'s default
	# event also samples the kernel copying each stack (11% of its
	# samples here: round_sum (inlined) 66.9% of all, 76.7% of user)
	perf record -q -e cpu-clock:u -F 1000 --call-graph dwarf -o perf.data "$W" 4 >/dev/null 2>&1 &&
	perf report -i perf.data --stdio --children --inline --sort symbol -g none \
		>perf.txt 2>/dev/null &&
	expect_grep "$HOT" perf.txt
'

test_expect_success 'folded stacks: the inlined function under its caller' '
	expect_grep ";main;work;$HOT [0-9]*$" cpu.folded &&
	expect_ge 50 "$(folded_children cpu.folded "$HOT")" "share of $HOT (%)"
'

test_expect_success PERF_DWARF,PLAIN_BUILD 'folded and speedscope: its CPU share within 3 points of perf --inline' '
	want=$(perf_children perf.txt "$HOT") &&
	expect_near "$want" "$(folded_children cpu.folded "$HOT")" 3 "folded share of $HOT (%)" &&
	expect_near "$want" "$(speedscope_share s.json "$HOT")" 3 "speedscope share of $HOT (%)" &&
	expect_near "$(perf_children perf.txt work)" "$(folded_children cpu.folded work)" 3 \
		"folded share of work (%)"
'

# The flat report names a row by its ELF symbol, as perf report --sort
# symbol without --children does (the CSV's symbol column): work.
test_expect_success PERF_DWARF,PLAIN_BUILD 'sampler-report --tree: the inlined function under its caller' '
	$REPORT --tree --csv p.prof >tree.csv &&
	expect_grep ";main;work;$HOT," tree.csv &&
	expect_near "$(perf_children perf.txt "$HOT")" "$(report_cpu tree.csv "$HOT")" 3 \
		"report cpu share of $HOT (%)" &&
	$REPORT --csv p.prof >flat.csv &&
	expect_empty "$(report_cpu flat.csv "$HOT")" "a flat row named $HOT"
'

test_expect_success 'sampler-plot flame names the inlined function' '
	$PLOT --kind flame -o flame.svg p.prof &&
	expect_grep "round_sum (inlined)" flame.svg
'

test_expect_success '--no-inline: the same stacks without inlined frames' '
	expect_no_grep "(inlined)" plain.folded &&
	expect_grep ";main;work [0-9]*$" plain.folded &&
	without_inlined cpu.folded >stripped &&
	sort plain.folded >plain.sorted &&
	expect_empty "$(diff stripped plain.sorted)" "difference of the stacks" &&
	$REPORT --csv --no-inline p.prof >flat-plain.csv &&
	expect_no_grep "(inlined)" flat-plain.csv &&
	$PLOT --kind flame --no-inline -o flame-plain.svg p.prof &&
	expect_no_grep "(inlined)" flame-plain.svg
'

test_done
