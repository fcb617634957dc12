#!/bin/sh
# t4625-scripts-deep.sh - the scripts and the folded export on the stacks
# the format allows: 1,025 frames deep (19.5: nothing recurses over
# frames), and many distinct stacks on one long trunk (19.6: memory follows
# the tree's nodes, not stacks times depth).  The profiles are built from
# the text view (tests/scripts/deepstacks.py); peak memory is the kernel's
# count (/usr/bin/time %M), which load does not change.
. "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
REPORT="$PY $ROOT/scripts/sampler-report"
PLOT="$PY $ROOT/scripts/sampler-plot"
COMPARE="$PY $ROOT/scripts/sampler-compare"
DEEP="$PY $ROOT/tests/scripts/deepstacks.py"
export SAMPLER_BIN_DIR=$BUILD
export XDG_CACHE_HOME="$TRASH/cache"
if ! $PY -c 'import numpy' 2>/dev/null; then
	test_skip 'scripts on deep stacks' 'python3-numpy is not installed'
	test_done
	exit
fi
if ! command -v gcc >/dev/null || ! command -v nm >/dev/null; then
	test_skip 'scripts on deep stacks' 'gcc and nm are needed to build the test program'
	test_done
	exit
fi
test_lazy_prereq TIME 'test -x /usr/bin/time'

# peak_kb FILE: the peak RSS (KB) /usr/bin/time -f %M wrote as FILE's last line
peak_kb() {
	tail -n 1 "$1"
}

test_expect_success 'setup: 3 stacks of 1,025 frames (main, 1,023 rec, a leaf)' '
	$DEEP --bin "$BUILD" deep.prof 1025 3 &&
	"$EXPORT" --format folded --weight samples deep.prof >deep.folded &&
	expect_eq 3 "$(grep -c . deep.folded)" "folded lines" &&
	expect_eq 1025 "$(head -n 1 deep.folded | tr -cd ";" | wc -c)" "separators of a line (comm + 1,025 frames)"
'

test_expect_success 'report --tree, --tree --json, --callers, --callees: 1,025 frames, no recursion error' '
	$REPORT --tree --min-share 0 --csv deep.prof >tree.csv &&
	deepest=$(awk -F, "NR > 1 && \$1 > d { d = \$1 } END { print d }" tree.csv) &&
	expect_eq 1025 "$deepest" "depth of the deepest row (comm at 0)" &&
	expect_eq 3 "$(awk -F, "\$1 == 1025" tree.csv | wc -l)" "leaves at depth 1,025" &&
	leaf=$(awk -F, "\$1 == 1025 && \$2 == \"leaf1\" { printf \"%.1f\", \$5 }" tree.csv) &&
	expect_eq 33.3 "$leaf" "share of leaf1" &&
	$REPORT --tree --json deep.prof >tree.json &&
	$PY -c "import json, sys; d = json.load(open(\"tree.json\")); print(max(r[\"depth\"] for r in d[\"rows\"]))" >depth &&
	expect_eq 1025 "$(cat depth)" "JSON: deepest row" &&
	$REPORT --callers leaf2 --min-share 0 --csv deep.prof >callers.csv &&
	expect_eq 1025 "$(awk -F, "NR > 1 && \$1 > d { d = \$1 } END { print d }" callers.csv)" "callers of leaf2: out to the comm" &&
	expect_eq 100.0 "$(awk -F, "NR == 2 { printf \"%.1f\", \$5 }" callers.csv)" "leaf2 is all of its callers tree" &&
	$REPORT --callees rec --min-share 0 --csv deep.prof >callees.csv &&
	expect_eq 1023 "$(awk -F, "NR > 1 && \$1 > d { d = \$1 } END { print d }" callees.csv)" "callees of rec: 1,023 rec frames, then the leaf"
'

test_expect_success 'plot --kind flame (SVG, PNG) and compare --tree of 1,025-frame stacks' '
	$PLOT --kind flame --weight samples -o deep.svg deep.prof &&
	expect_eq 1029 "$(grep -c "<rect" deep.svg)" "rects: background + comm, main, 1,023 rec, 3 leaves" &&
	$PLOT --kind flame -o deep.png deep.prof &&
	test -s deep.png &&
	$COMPARE --tree --min-share 0 --csv deep.prof deep.prof >cmp.csv &&
	expect_eq 1029 "$(grep -c . cmp.csv)" "compare rows (header + 1,028 paths)" &&
	expect_eq 0 "$(awk -F, "NR > 1 && \$NF != \"\"" cmp.csv | wc -l)" "paths flagged as changed"
'

# 800 frames (below Python's recursion limit, so that this holds the
# memory alone): before 19.6 sampler-report --tree held every stack as a
# list of frames (340 MB at 1,000 x 4,000), the folded export every line's
# text (21 MB); now about 45 MB (the interpreter and numpy) and 6 MB
# (without inlined frames: their DWARF tables are a cost of their own,
# docs/EXPORT.md).
test_expect_success TIME 'an 800-frame trunk, 5,000 distinct leaves: memory follows the nodes' '
	$DEEP --bin "$BUILD" wide.prof 800 5000 &&
	/usr/bin/time -f %M -o report.mem $REPORT --tree --no-cache wide.prof >wide.txt &&
	expect_eq 800 "$(grep -c " \(deep\|main\|rec\)$" wide.txt)" "trunk rows (the leaves, 0.02% each, are below --min-share)" &&
	expect_le 150000 "$(peak_kb report.mem)" "peak KB of report --tree" &&
	/usr/bin/time -f %M -o flame.mem $PLOT --kind flame -o wide.svg wide.prof &&
	expect_le 150000 "$(peak_kb flame.mem)" "peak KB of plot --kind flame" &&
	/usr/bin/time -f %M -o folded.mem "$EXPORT" --format folded --no-inline --weight samples -o wide.folded wide.prof &&
	expect_eq 5000 "$(grep -c . wide.folded)" "folded lines" &&
	expect_eq 5000 "$(awk "{ s += \$NF } END { print s }" wide.folded)" "folded thread-samples" &&
	expect_le 12000 "$(peak_kb folded.mem)" "peak KB of the folded export"
'

test_done
