#!/bin/sh
# t3180-export-speedscope.sh - sampler-export --format speedscope: speedscope's
# file format (a sampled profile per thread, frames named by the
# exporter's symbolizer), weighted by --weight as the folded output is
# (default cpu), on the stacks fixture and on a real -g recording.  (t4700
# opens the file in speedscope's own page.)
. "$(dirname "$0")/lib.sh"

CHECK="/usr/bin/python3 $ROOT/tests/scripts/speedscope_check.py"

unit_of() {
	case $1 in cpu|wall) echo nanoseconds ;; *) echo none ;; esac
}

test_expect_success 'setup: the stacks fixture (two threads, energy, a counter)' '
	"$BUILD/sampler-profile" build p.prof <"$ROOT/tests/fixtures/stacks.txt"
'

test_expect_success 'every weight: the folded stacks and weights, a profile per thread' '
	for w in cpu samples wall energy energy:package-0 instructions; do
		"$EXPORT" --format speedscope --weight $w -o $w.json p.prof &&
		"$EXPORT" --format folded --weight $w p.prof >$w.folded &&
		$CHECK $w.json $w.folded $(unit_of $w) >check.out || { cat check.out; exit 1; }
		expect_grep "^2 profiles," check.out || exit 1
	done
'

test_expect_success 'the default weight is CPU time; threads are named as perf names them' '
	"$EXPORT" --format speedscope -o default.json p.prof &&
	cmp default.json cpu.json &&
	/usr/bin/python3 -c "import json, sys; d = json.load(open(sys.argv[1])); print(d[\"name\"]); [print(p[\"name\"]) for p in d[\"profiles\"]]" \
		default.json >names &&
	printf "%s\n" "cpu (ns)" "app (tid 500)" "app (tid 501)" >expect &&
	cmp expect names
'

test_expect_success 'a bad weight is refused with one error line, and no file' '
	for w in bogus energy:dram; do
		run_status "$EXPORT" --format speedscope --weight $w -o bad.json p.prof 2>err &&
		expect_eq 1 "$rc" "exit status of --weight $w" &&
		expect_eq 1 "$(wc -l <err)" "error lines" &&
		expect_grep "^sampler-export: error: .*--weight" err &&
		test ! -e bad.json || exit 1
	done
'

test_expect_success 'a -g recording: the symbolizer'"'"'s names, as in the folded stacks' '
	"$SAMPLER" -g -f 200 -o cs.prof -- "$EXAMPLES/calltree" 0.3 >/dev/null 2>&1 &&
	"$EXPORT" --format speedscope -o cs.json cs.prof &&
	"$EXPORT" --format folded --weight cpu cs.prof >cs.folded &&
	$CHECK cs.json cs.folded nanoseconds >check.out || { cat check.out; exit 1; }
	cat check.out &&
	expect_grep "\"name\":\"leaf\"" cs.json &&
	expect_grep "\"name\":\"main\"" cs.json
'

test_expect_success 'two profiles merged: a profile per thread, each named with its input' '
	"$SAMPLER" -f 200 -o m1.prof -- "$EXAMPLES/busy" 0.2 >/dev/null 2>&1 &&
	"$SAMPLER" -f 200 -o m2.prof -- "$EXAMPLES/busy" 0.2 >/dev/null 2>&1 &&
	"$EXPORT" --format speedscope -o m.json m1.prof m2.prof &&
	/usr/bin/python3 -c "import json, sys; [print(p[\"name\"].split(\" \")[0]) for p in json.load(open(sys.argv[1]))[\"profiles\"]]" \
		m.json >names &&
	printf "%s\n" "busy[#0]" "busy[#1]" >expect &&
	cmp expect names
'

test_done
