#!/bin/bash
# Issue 11 #2 and issue 10 ".old": an output that exists is replaced by a new
# file (the mode of a new file under the umask, never the old file's) and
# kept as FILE.old, as perf record does, unless --force; a path that cannot
# be an output is refused before the command runs; /dev/null still works.
. "$(dirname "$0")/lib.sh"

test_expect_success 'the sampler keeps the previous profile as FILE.old' '
	"$SAMPLER" -f 1000 -o p.prof -- "$EXAMPLES/busy" 0.05 &&
	cp p.prof first.prof &&
	"$SAMPLER" -f 1000 -o p.prof -- "$EXAMPLES/busy" 0.05 &&
	cmp p.prof.old first.prof &&
	! cmp -s p.prof first.prof &&
	"$BUILD/sampler-profile" dump p.prof >p.txt &&
	expect_grep "^stats " p.txt
'

test_expect_success '--force replaces it and leaves FILE.old as it was' '
	cp p.prof second.prof &&
	"$SAMPLER" --force -f 1000 -o p.prof -- "$EXAMPLES/busy" 0.05 &&
	cmp p.prof.old first.prof &&
	! cmp -s p.prof second.prof
'

test_expect_success 'sampler-export keeps the previous perf.data, CSV and pperf as FILE.old' '
	for f in "-o x.data" "--format csv -o x.csv" "--format pperf -o x.pperf"; do
		"$EXPORT" $f first.prof 2>/dev/null &&
		cp ${f##* } one &&
		"$EXPORT" $f second.prof 2>/dev/null &&
		cmp ${f##* }.old one &&
		! cmp -s ${f##* } one &&
		"$EXPORT" --force $f p.prof 2>/dev/null &&
		cmp ${f##* }.old one || exit 1
	done
'

test_expect_success 'umask 077: a replaced 0666 file becomes 0600 (the mode of a new file), for every output' '
	for f in r.prof r.data r.csv r.pperf; do
		echo old >$f && chmod 666 $f || exit 1
	done &&
	(umask 077 &&
	 "$SAMPLER" -f 1000 -o r.prof -- "$EXAMPLES/busy" 0.05 &&
	 "$EXPORT" -o r.data r.prof &&
	 "$EXPORT" --format csv -o r.csv r.prof &&
	 "$EXPORT" --format pperf -o r.pperf r.prof 2>/dev/null) &&
	for f in r.prof r.data r.csv r.pperf; do
		expect_eq 600 "$(stat -c %a $f)" "mode of $f" &&
		expect_eq 666 "$(stat -c %a $f.old)" "mode of $f.old" || exit 1
	done
'

test_expect_success 'umask 022: profile and CSV 0644, perf.data 0600 (as perf writes it)' '
	(umask 022 &&
	 "$SAMPLER" -f 1000 -o m.prof -- "$EXAMPLES/busy" 0.05 &&
	 "$EXPORT" -o m.data m.prof &&
	 "$EXPORT" --format csv -o m.csv m.prof) &&
	expect_eq "644 600 644" "$(stat -c %a m.prof m.data m.csv | tr "\n" " " | sed "s/ \$//")" "modes"
'

test_expect_success 'no file is left behind but the outputs and their .old' '
	expect_empty "$(ls -A | grep "^\." )" "hidden temporary files"
'

test_expect_success '-o /dev/null: the sampler and every export run, the device stays' '
	"$SAMPLER" -f 1000 -o /dev/null -- "$EXAMPLES/busy" 0.05 &&
	"$EXPORT" -o /dev/null p.prof &&
	"$EXPORT" --format csv -o /dev/null p.prof &&
	expect_eq "character special file" "$(stat -c %F /dev/null)" "/dev/null" &&
	expect_eq no "$([ -e /dev/null.old ] && echo yes || echo no)" "/dev/null.old"
'

test_expect_success 'a directory as output: one error, and the command never runs' '
	mkdir outdir &&
	run_status "$SAMPLER" -o outdir -- sh -c "touch ran" 2>err &&
	expect_eq 125 "$rc" "status" &&
	expect_eq 1 "$(wc -l <err)" "error lines" &&
	expect_grep "^sampler: error: cannot write outdir: it is a directory (give a file name)" err &&
	expect_eq no "$([ -e ran ] && echo yes || echo no)" "the command ran" &&
	run_status "$EXPORT" -o outdir/ p.prof 2>err &&
	expect_eq 1 "$rc" "export status" &&
	expect_grep "cannot write outdir/: it names a directory" err
'

test_expect_success 'a directory that does not exist: one error naming it, and the command never runs' '
	run_status "$SAMPLER" -o nodir/p.prof -- sh -c "touch ran" 2>err &&
	expect_eq 125 "$rc" "status" &&
	expect_eq 1 "$(wc -l <err)" "error lines" &&
	expect_grep "cannot create nodir/p.prof: No such file or directory (check that the directory nodir exists)" err &&
	expect_eq no "$([ -e ran ] && echo yes || echo no)" "the command ran"
'

test_done
