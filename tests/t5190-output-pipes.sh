#!/bin/bash
# Issue 11 #6 and the pipes around it: a FIFO as output is opened as a
# FIFO - with no reader that is one error within a moment (never a hang,
# the command never starts), with a reader the whole output comes through; a
# reader that goes away is one error that says so, not a full disk; -o -
# streams the profile, and the command's own stdout goes to stderr.
# (timeout 20 only guards against the old hang; nothing here is timed.)
. "$(dirname "$0")/lib.sh"

test_expect_success 'sampler -o FIFO without a reader: one error, and the command never runs' '
	mkfifo f &&
	run_status timeout 20 "$SAMPLER" -o f -- sh -c "touch ran" 2>err &&
	expect_eq 125 "$rc" "status (124: it hung)" &&
	expect_eq 1 "$(wc -l <err)" "error lines" &&
	expect_grep "^sampler: error: cannot write f: it is a FIFO and nothing reads it (start the reader first)" err &&
	expect_eq no "$([ -e ran ] && echo yes || echo no)" "the command ran"
'

test_expect_success 'sampler-export -o FIFO without a reader: the same, for perf.data and CSV' '
	"$SAMPLER" -f 1000 -o p.prof -- "$EXAMPLES/busy" 0.1 &&
	run_status timeout 20 "$EXPORT" -o f p.prof 2>err &&
	expect_eq 1 "$rc" "status (124: it hung)" &&
	expect_grep "cannot write f: it is a FIFO and nothing reads it" err &&
	run_status timeout 20 "$EXPORT" --format csv -o f p.prof 2>err &&
	expect_eq 1 "$rc" "CSV status (124: it hung)"
'

test_expect_success 'a FIFO with a reader: the whole profile comes through' '
	{ timeout 20 cat f >got.prof & } &&
	"$SAMPLER" -f 1000 -o f -- "$EXAMPLES/busy" 0.1 &&
	wait &&
	"$BUILD/sampler-profile" dump got.prof >got.txt &&
	expect_grep "^stats " got.txt &&
	expect_eq prw-r--r-- "$(stat -c %A f | sed "s/^p.*/prw-r--r--/")" "f is still a FIFO"
'

test_expect_success PERF 'sampler-export -o FIFO: pipe-mode perf.data that perf reads' '
	{ timeout 20 cat f >got.data & } &&
	"$EXPORT" -o f p.prof &&
	wait &&
	perf report -i got.data --stdio --sort comm >rep.txt 2>rep.err &&
	expect_empty "$(cat rep.err)" "perf report stderr" &&
	expect_grep "% *busy" rep.txt
'

test_expect_success '-o - streams the profile; the command'"'"'s stdout goes to stderr' '
	"$SAMPLER" -f 1000 -o - -- sh -c "echo printed-\$((6 * 7)); exec \"\$0\" 0.05" "$EXAMPLES/busy" >s.prof 2>s.err &&
	"$BUILD/sampler-profile" dump s.prof >s.txt &&
	expect_grep "^stats " s.txt &&
	expect_grep "^printed-42$" s.err &&
	expect_eq 0 "$(grep -c -a "printed-42" s.prof)" "the command'"'"'s line in the profile"
'

test_expect_success 'sampler -o - -- cmd | sampler-export --info -: the whole profile streams through' '
	"$SAMPLER" -f 500 -o - -- "$EXAMPLES/busy" 0.1 2>/dev/null | "$EXPORT" --info - >chain.info &&
	expect_grep "^command: .*busy 0.1 (busy)" chain.info &&
	expect_grep "^truncated: *no$" chain.info
'

test_expect_success 'the reader of the sampler'"'"'s pipe goes away: one error about the pipe, the command runs to its end' '
	{ "$SAMPLER" -f 1000 -o - -- "$EXAMPLES/busy" 0.5 2>err; echo $? >status; } | head -c 100 >/dev/null &&
	expect_eq 125 "$(cat status)" "status" &&
	expect_eq 1 "$(grep -c "error:" err)" "error lines (a loaded machine may add a rate warning)" &&
	expect_grep "^sampler: error: cannot write stdout: the reading end of the pipe was closed" err &&
	expect_no_grep "space\|disk full" err
'

test_expect_success 'the reader of sampler-export goes away: one error about the pipe, and it stops' '
	"$BUILD/bench/genprofile" big.prof 100000 4 >/dev/null &&
	for f in "--format csv" "-o -"; do
		{ "$EXPORT" $f big.prof 2>err; echo $? >status; } | head -c 100 >/dev/null &&
		expect_eq 1 "$(cat status)" "status ($f)" &&
		expect_eq 1 "$(wc -l <err)" "error lines ($f)" &&
		expect_grep "^sampler-export: error: cannot write stdout: the reading end of the pipe was closed" err || exit 1
	done
'

test_done
