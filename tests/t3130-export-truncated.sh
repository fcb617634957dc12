#!/bin/bash
# A stack cut short ends in a marker frame naming the cause, where its outer
# frames are missing: "[truncated: no-cfi]" (examples/calltree-stripped: no
# CFI for its own code), "[truncated: max-depth]" (--max-stack 3), ... in
# the folded stacks, the CSV's stack column and the columns' stack table
# (what the scripts' tree and flame graph draw), and in perf.data as the
# outermost caller, in a map named after the marker.  Each marker counts
# exactly the thread-samples the profile says ended so (sampler-profile
# dump: stack_end=).
. "$(dirname "$0")/lib.sh"

# dump_ends PROF: "cause count" of the thread-samples not complete.
dump_ends() {
	"$BUILD/sampler-profile" dump "$1" | sed -n "s/^ts .* stack_end=\([a-z-]*\).*/\1/p" |
		grep -v "^complete\$" | sort | uniq -c | awk "{ print \$2, \$1 }"
}

# folded_ends FOLDED: "cause weight" of the lines with a marker; the marker
# is the first frame after the command.
folded_ends() {
	awk "{ split(\$0, f, \";\"); if (f[2] ~ /^\[truncated: /) { sub(/^\[truncated: /, \"\", f[2]); sub(/\]\$/, \"\", f[2]); s[f[2]] += \$NF }
	       else if (\$0 ~ /\[truncated/) { print \"marker not outermost: \" \$0; exit 1 } }
	     END { for (c in s) print c, s[c] }" "$1" | sort
}

test_expect_success 'setup: stacks cut short by missing CFI and by --max-stack' '
	"$SAMPLER" -g -o nocfi.prof -- "$EXAMPLES/calltree-stripped" 0.3 >/dev/null 2>&1 &&
	"$SAMPLER" -g --max-stack 3 -o depth.prof -- "$EXAMPLES/calltree" 0.3 >/dev/null 2>&1 &&
	dump_ends nocfi.prof | sort >nocfi.want &&
	dump_ends depth.prof | sort >depth.want &&
	expect_ge 50 "$(awk "\$1 == \"no-cfi\" { print \$2 }" nocfi.want)" "no-cfi stacks of calltree-stripped" &&
	expect_ge 50 "$(awk "\$1 == \"max-depth\" { print \$2 }" depth.want)" "max-depth stacks with --max-stack 3"
'

test_expect_success 'folded: each cut stack starts with its marker, weighing what the profile says' '
	for p in nocfi depth; do
		"$EXPORT" --format folded --weight samples $p.prof >$p.folded &&
		folded_ends $p.folded >$p.got &&
		diff $p.want $p.got || exit 1
	done &&
	expect_grep "^calltree-stripp;\[truncated: no-cfi\];" nocfi.folded
'

test_expect_success 'CSV: the stack column starts with the marker' '
	for p in nocfi depth; do
		"$EXPORT" --format csv --symbols $p.prof >$p.csv &&
		/usr/bin/python3 -c "
import csv, sys, urllib.parse, collections
rows = (l for l in open(sys.argv[1]) if not l.startswith(\"#\"))
n = collections.Counter()
for r in csv.DictReader(rows):
    first = urllib.parse.unquote(r[\"stack\"]).split(\";\")[0]
    if r[\"kind\"] == \"sample\" and first.startswith(\"[truncated: \"):
        n[first[12:-1]] += 1
for c in sorted(n): print(c, n[c])" $p.csv >$p.csvgot &&
		diff $p.want $p.csvgot || exit 1
	done
'

# (the tables follow the binary frames: the first line of one need not
# start a line, so the lines are matched anywhere, -o)
test_expect_success 'columns: the stack table has the markers' '
	"$EXPORT" --format columns --symbols -o depth.cols depth.prof &&
	grep -ao "# stack id=[0-9]* .*" depth.cols | sed "s/.* stack=//" |
		/usr/bin/python3 -c "import sys, urllib.parse; [print(urllib.parse.unquote(l.rstrip())) for l in sys.stdin]" >stacks &&
	expect_grep "^\[truncated: max-depth\];" stacks &&
	expect_no_grep ".;\[truncated" stacks
'

test_expect_success 'complete stacks have no marker' '
	for p in nocfi depth; do
		"$BUILD/sampler-profile" dump $p.prof | grep -c "^ts .* stack_end=complete" >$p.complete || :
		expect_eq "$(cat $p.complete)" \
			"$(awk "!/\[truncated: / { s += \$NF } END { print s + 0 }" $p.folded)" \
			"weight of the unmarked lines of $p" || exit 1
	done
'

# children_share REPORT EVENT DSO: the Children share (%) of DSO in EVENT.
children_share() {
	awk -v ev="$2" -v dso="$3" '
		/^# Samples:/ { split($0, q, "\047"); cur = q[2] == ev; next }
		cur && index($0, dso) { sub(/%/, "", $1); print $1; exit }
	' "$1"
}

test_expect_success PERF 'perf.data: the marker is the outermost caller, in a map named after it' '
	"$EXPORT" -o depth.data depth.prof 2>err &&
	expect_empty "$(cat err)" "export stderr" &&
	perf report -i depth.data --stdio --children --sort dso -g none >children 2>perr &&
	expect_empty "$(cat perr)" "perf report stderr" &&
	"$EXPORT" --format folded --weight wall depth.prof >wall.folded &&
	want=$(awk "{ t += \$NF } /;\[truncated: max-depth\];/ { m += \$NF } END { printf \"%.2f\", 100 * m / t }" wall.folded) &&
	expect_near "$want" "$(children_share children wall-time "[truncated: max-depth]")" 0.02 \
		"wall-time share of [truncated: max-depth] in perf report --children, as folded gives it" &&
	perf script -i depth.data -F ip,sym,dso 2>/dev/null >script &&
	expect_grep "^[[:space:]]*0 \[unknown\] (\[truncated: max-depth\])\$" script
'

test_done
