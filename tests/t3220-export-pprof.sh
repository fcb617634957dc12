#!/bin/sh
# t3220-export-pprof.sh - sampler-export --format pprof: a gzipped
# profile.proto read by the real clients, Go's pprof (go tool pprof -top,
# -raw, -tags, -traces, -diff_base; Debian's golang-go) and the npm
# pprof-format decoder.  Its figures are sampler-report's (per function:
# samples and CPU time), the folded stacks' (inlined functions) and the CSV
# export's (totals of samples, CPU time and energy per channel); its labels
# the threads, process and rank the profile recorded; its mappings' build
# IDs those readelf reads from the binaries.  The protobuf writer itself is
# checked against the examples of protobuf's encoding guide.
. "$(dirname "$0")/lib.sh"

PY=/usr/bin/python3
REPORT="$PY $ROOT/scripts/sampler-report"
export SAMPLER_BIN_DIR=$BUILD
NPM_DIR=${SPEEDSCOPE_DIR:-$ROOT/build/npm}
export NODE_PATH="$NPM_DIR/pprof-format/node_modules"
TOTALS="node $ROOT/tests/scripts/pprof_totals.js"
# offline, and the names as the profile gives them
PPROF="go tool pprof -symbolize=none"

test_lazy_prereq GO_PPROF '
	command -v go >/dev/null && go tool pprof -h >/dev/null 2>&1 ||
	{ echo "go tool pprof is not installed (make deps installs golang-go)"; exit 1; }
'

test_lazy_prereq PPROF_FORMAT '
	command -v node >/dev/null ||
	{ echo "node is not installed (apt-get install nodejs npm)"; exit 1; }
	test -f "$NODE_PATH/pprof-format/package.json" ||
	{ echo "pprof-format is not installed in build/npm/pprof-format (make deps installs it with npm)"; exit 1; }
'

# pprof_flat TOP: "NAME VALUE" per function of go tool pprof -top -unit=ns
# output (flat column, "ns" or nothing after the number).
pprof_flat() {
	sed -n '/^ *flat  *flat%/,$p' "$1" | sed 1d |
	sed -E 's/^ *(-?[0-9.e+]+)(ns)? +[^ ]+ +[^ ]+ +-?[0-9.e+]+(ns)? +[^ ]+ +(.*)$/\4 \1/' | sort
}

# report_flat CSV COLUMN SCALE: "NAME VALUE*SCALE" per row of sampler-report --csv.
report_flat() {
	$PY -c '
import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    print(r["name"], round(float(r[sys.argv[2]]) * float(sys.argv[3])))' "$1" "$2" "$3" | sort
}

# same_figures A B REL [ABS]: every name of A in B with a value within REL
# of it (relative) plus ABS (default 0.5), and the other way round; prints
# the differences.
same_figures() {
	$PY -c '
import sys
def read(path):
    d = {}
    for line in open(path):
        name, value = line.rstrip("\n").rsplit(" ", 1)
        d[name] = d.get(name, 0) + float(value)
    return {k: v for k, v in d.items() if v}
a, b, rel = read(sys.argv[1]), read(sys.argv[2]), float(sys.argv[3])
tol = float(sys.argv[4]) if len(sys.argv) > 4 else 0.5
bad = [(k, a.get(k), b.get(k)) for k in sorted(set(a) | set(b))
       if k not in a or k not in b or abs(a[k] - b[k]) > rel * max(abs(a[k]), abs(b[k])) + tol]
for k in bad:
    print("differs: %s %s %s" % k)
print("%d functions, %d differ" % (len(set(a) | set(b)), len(bad)))
sys.exit(1 if bad or not a else 0)' "$@"
}

test_expect_success 'the protobuf writer gives the encoding guide'"'"'s bytes' '
	"$BUILD/tests/protobuf-check" >out &&
	cat >expect <<-\EOF &&
	varint 089601
	string 120774657374696e67
	message 1a03089601
	packed 2206038e029ea705
	negative 08feffffffffffffffff01
	max 08ffffffffffffffffff01
	EOF
	diff -u expect out
'

test_expect_success 'setup: the stacks fixture, as one rank, and -g recordings' '
	"$BUILD/sampler-profile" build p.prof <"$ROOT/tests/fixtures/stacks.txt" &&
	sed "s/ target_hz=1000\$/ target_hz=1000 rank=2/" "$ROOT/tests/fixtures/stacks.txt" |
		"$BUILD/sampler-profile" build r.prof &&
	"$SAMPLER" -g -f 200 -o cs.prof -- "$EXAMPLES/calltree" 0.15 >/dev/null 2>&1 &&
	"$SAMPLER" -g -f 200 -o cs2.prof -- "$EXAMPLES/calltree" 0.08 >/dev/null 2>&1 &&
	"$SAMPLER" -g -f 200 -o in.prof -- "$EXAMPLES/inlined" 0.15 >/dev/null 2>&1 &&
	for p in p r cs cs2 in; do
		"$EXPORT" --format pprof -o $p.pb.gz $p.prof || exit 1
	done &&
	"$EXPORT" --format pprof --no-inline -o cs-flat.pb.gz cs.prof &&
	"$EXPORT" --format pprof --no-inline -o cs2-flat.pb.gz cs2.prof &&
	"$EXPORT" --format pprof --no-inline -o in-flat.pb.gz in.prof &&
	test "$(od -An -tx1 -N2 p.pb.gz | tr -d " ")" = 1f8b
'

test_expect_success GO_PPROF 'go tool pprof -top: samples and CPU time per function are sampler-report'"'"'s' '
	$REPORT --csv --no-inline cs.prof >report.csv &&
	$PPROF -top -nodefraction=0 -nodecount=100000 -unit=ns -sample_index=cpu \
		cs-flat.pb.gz >top.cpu 2>top.err &&
	$PPROF -top -nodefraction=0 -nodecount=100000 -sample_index=samples \
		cs-flat.pb.gz >top.samples 2>>top.err &&
	expect_grep "^Type: cpu" top.cpu &&
	expect_grep "^File: calltree\$" top.cpu &&
	pprof_flat top.cpu >pprof.cpu && report_flat report.csv cpu_s 1e9 >report.cpu &&
	same_figures pprof.cpu report.cpu 1e-5 &&
	pprof_flat top.samples >pprof.samples && report_flat report.csv samples 1 >report.samples &&
	same_figures pprof.samples report.samples 0 &&
	expect_grep "^leaf " pprof.cpu
'

test_expect_success GO_PPROF 'inlined functions are lines of their caller'"'"'s location, as in the folded stacks' '
	"$EXPORT" --format folded --weight cpu in.prof >in.folded &&
	$PY -c "
import sys
for line in open(sys.argv[1]):
    stack, w = line.rsplit(\" \", 1)
    leaf = stack.split(\";\")[-1].replace(\" (inlined)\", \" (inline)\")
    print(leaf, w.strip())" in.folded >folded.cpu &&
	$PPROF -top -nodefraction=0 -nodecount=100000 -unit=ns -sample_index=cpu in.pb.gz >top.in &&
	pprof_flat top.in >pprof.in &&
	same_figures pprof.in folded.cpu 1e-9 &&
	expect_grep "^round_sum (inline) " pprof.in &&
	$REPORT --csv --no-inline in.prof >in-report.csv &&
	$PPROF -top -nodefraction=0 -nodecount=100000 -unit=ns -sample_index=cpu in-flat.pb.gz >top.in-flat &&
	pprof_flat top.in-flat >pprof.in-flat && report_flat in-report.csv cpu_s 1e9 >report.in-flat &&
	same_figures pprof.in-flat report.in-flat 1e-5
'

test_expect_success GO_PPROF 'go tool pprof -raw and -tags: labels, sample types, mappings with build IDs' '
	$PPROF -raw r.pb.gz >raw.r &&
	expect_grep "^samples/count cpu/nanoseconds\\[dflt\\] energy:package-0/nanojoules\$" raw.r &&
	$PPROF -tags r.pb.gz >tags.r &&
	cat tags.r &&
	for tag in "tid" "pid" "comm" "rank"; do
		expect_grep "^ *$tag: Total" tags.r || exit 1
	done &&
	expect_eq 2 "$(sed -n "/^ *rank: Total/,/^ *\$/p" tags.r | sed -n "s/.*): //p")" "rank label" &&
	"$EXPORT" --format csv p.prof | grep -v "^#" | sed 1d | cut -d, -f3 | sort -u >tids.csv &&
	sed -n "/^ *tid: Total/,/^ *\$/p" tags.r | sed -n "s/.*): \([0-9]*\)\$/\1/p" | sort -u >tids.pprof &&
	diff -u tids.csv tids.pprof &&
	$PPROF -tags p.pb.gz >tags.p &&
	expect_no_grep "rank" tags.p &&
	$PPROF -raw cs.pb.gz >raw.cs &&
	id=$(readelf -n "$EXAMPLES/calltree" | sed -n "s/.*Build ID: *//p") &&
	expect_grep " $EXAMPLES/calltree $id \\[FN\\]\\[IN\\]\$" raw.cs
'

test_expect_success GO_PPROF 'a stack cut short ends in the frame naming the cause' '
	$PPROF -traces -sample_index=samples p.pb.gz >traces.p &&
	grep -o "stack_end=[a-z-]*" "$ROOT/tests/fixtures/stacks.txt" | sed "s/stack_end=//" |
		grep -v "^complete\$" | sort -u >causes.fixture &&
	sed -n "s/^ *\\[truncated: \\(.*\\)\\]\$/\\1/p" traces.p | sort -u >causes.pprof &&
	diff -u causes.fixture causes.pprof
'

test_expect_success GO_PPROF 'go tool pprof -diff_base: per function, one report minus the other' '
	$REPORT --csv --no-inline cs2.prof >report2.csv &&
	$PPROF -top -nodefraction=0 -nodecount=100000 -unit=ns -sample_index=cpu \
		-diff_base=cs-flat.pb.gz cs2-flat.pb.gz >diff.top &&
	pprof_flat diff.top >pprof.diff &&
	report_flat report2.csv cpu_s 1e9 >r2 &&
	report_flat report.csv cpu_s -1e9 >r1 &&
	cat r2 r1 >report.diff &&
	# the report prints 6 significant digits: each figure is within half
	# a unit of its 6th digit (5e-6 of the largest, 17.3929 s: 87 us)
	tol=$(cat r1 r2 | awk "{ v = \$2 < 0 ? -\$2 : \$2; if (v > m) m = v } END { print m * 1e-5 }") &&
	same_figures pprof.diff report.diff 0 "$tol"
'

test_expect_success PPROF_FORMAT 'the npm pprof-format decoder: totals per sample type are the CSV'"'"'s' '
	$TOTALS r.pb.gz >totals &&
	cat totals &&
	"$EXPORT" --format csv r.prof | grep -v "^#" >r.csv &&
	sums=$($PY -c "
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print(sum(r[\"kind\"] == \"sample\" for r in rows),
      sum(int(r[\"cpu_delta_ns\"]) for r in rows),
      sum(float(r[\"package-0\"] or 0) for r in rows) * 1e3)" r.csv) &&
	set -- $sums &&
	expect_eq "$1" "$(sed -n "s,^total samples/count ,,p" totals)" "samples" &&
	expect_eq "$2" "$(sed -n "s,^total cpu/nanoseconds ,,p" totals)" "CPU ns" &&
	expect_near "$3" "$(sed -n "s,^total energy:package-0/nanojoules ,,p" totals)" 6 \
		"energy nJ (rounded per stack: 11 stacks at most)" &&
	printf "%s\n" "label comm=app" "label pid=500" "label rank=2" "label tid=500" \
		"label tid=501" >expect &&
	grep "^label" totals >labels &&
	diff -u expect labels &&
	$TOTALS cs.pb.gz >totals.cs &&
	id=$(readelf -n "$EXAMPLES/calltree" | sed -n "s/.*Build ID: *//p") &&
	expect_grep "^mapping $EXAMPLES/calltree $id\$" totals.cs
'

test_done
