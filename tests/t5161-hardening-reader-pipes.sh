#!/bin/bash
# Readers take "-" as stdin, and a pipe or FIFO given by name (issue 9 "-o -",
# issue 11 #12): what they read that way is what they read from the file
# (before: "Illegal seek").  /dev/zero is no pperf profile.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/recorder-lib.sh"

PROFILE=$BUILD/sampler-profile

test_expect_success 'setup: native and pperf profiles, plain and bzip2, and their dumps' '
	"$SAMPLER" -f 500 -o n.prof -- "$EXAMPLES/threads" 3 1 >/dev/null &&
	"$PROFILE" dump n.prof >n.prof.dump &&
	"$PROFILE" dump n.prof | "$PROFILE" build n.prof.bz2 &&
	"$PROFILE" dump n.prof | "$PROFILE" build --format pperf p.pperf &&
	"$PROFILE" dump n.prof | "$PROFILE" build --format pperf p.pperf.bz2 &&
	for f in n.prof.bz2 p.pperf p.pperf.bz2; do "$PROFILE" dump $f >$f.dump || return 1; done &&
	expect_ge "$(min_samples 1)" "$(grep -c "^sample " n.prof.dump)" "samples"
'

# Every way of handing a file over that is not the file itself.
same_dump() {	# file
	cat "$1" | "$PROFILE" dump - >stdin-pipe.dump &&
	"$PROFILE" dump - <"$1" >stdin-file.dump &&
	"$PROFILE" dump <(cat "$1") >devfd.dump &&
	rm -f fifo && mkfifo fifo && { cat "$1" >fifo & } &&
	"$PROFILE" dump fifo >fifo.dump && wait &&
	for d in stdin-pipe stdin-file devfd fifo; do
		expect_eq "$(sed 1d "$1.dump" | md5sum)" "$(sed 1d $d.dump | md5sum)" "dump of $1 through $d" ||
			return 1
	done
}

test_expect_success 'sampler-profile dump: stdin, /dev/fd/N and a FIFO give the dump of the file' '
	for f in n.prof n.prof.bz2 p.pperf p.pperf.bz2; do same_dump $f || return 1; done
'

test_expect_success 'sampler-export of a pipe: the same perf.data, CSV (read twice) and summary' '
	"$EXPORT" -o file.perf n.prof &&
	cat n.prof | "$EXPORT" -o pipe.perf - &&
	cmp file.perf pipe.perf &&
	"$EXPORT" --format csv --symbols n.prof.bz2 >file.csv &&
	cat n.prof.bz2 | "$EXPORT" --format csv --symbols - >pipe.csv &&
	"$EXPORT" --format csv --symbols - <n.prof.bz2 >redirect.csv &&
	"$EXPORT" --format csv --symbols <(cat n.prof.bz2) >devfd.csv &&
	expect_ge "$(grep -c "^sample " n.prof.dump)" "$(grep -vc "^#" file.csv)" "CSV rows (one per thread-sample at least)" &&
	cmp file.csv pipe.csv && cmp file.csv redirect.csv && cmp file.csv devfd.csv &&
	cat p.pperf | "$EXPORT" --format csv - >pperf-pipe.csv &&
	"$EXPORT" --format csv p.pperf | cmp - pperf-pipe.csv &&
	"$EXPORT" --info n.prof | sed 1d >file.info &&
	cat n.prof.bz2 | "$EXPORT" --info - | sed 1d >pipe.info &&
	cmp file.info pipe.info
'

test_expect_success PERF 'a profile streams through sampler-export into perf report' '
cat n.prof | "$EXPORT" -o - - | perf report -i - --stdio --sort comm >pipe.txt 2>pipe.err &&
perf report -i file.perf --stdio --sort comm >file.txt 2>/dev/null &&
expect_grep "threads" pipe.txt &&
diff <(without_tip file.txt | grep "%") <(without_tip pipe.txt | grep "%")
'

test_expect_success 'the reader of stdin names it, and errors name their cause' '
	run_status "$PROFILE" dump - </dev/null 2>empty.err &&
	expect_eq 1 "$rc" "status of an empty stdin" &&
	expect_grep "^sampler-profile: error: stdin: empty file, not a profile" empty.err &&
	head -c $(( $(stat -c %s n.prof) / 2 )) n.prof | "$PROFILE" dump - >cut.dump 2>cut.err || rc=$? &&
	expect_eq 2 "$rc" "status of a cut profile from a pipe" &&
	expect_grep "^truncated good_bytes=" cut.dump
'

test_expect_success '/dev/zero is no profile, pperf or other: one error at once' '
	for how in "$PROFILE dump" "$EXPORT --info" "$EXPORT --format csv"; do
		run_status timeout 60 $how /dev/zero >/dev/null 2>zero.err &&
		expect_eq 1 "$rc" "status of $how /dev/zero" &&
		expect_grep "/dev/zero: starts with 36 zero bytes: not a profile" zero.err || return 1
	done &&
	head -c 100000 /dev/zero >zeros &&
	run_status "$PROFILE" dump zeros 2>zeros.err &&
	expect_grep "zeros: starts with 36 zero bytes: not a profile" zeros.err
'

test_expect_success 'without room for a temporary copy, a pperf pipe is one clear error; native still streams' '
	cat p.pperf | TMPDIR=$TRASH/none "$PROFILE" dump - >/dev/null 2>spool.err || rc=$? &&
	expect_eq 1 "$rc" "status" &&
	expect_grep "cannot read stdin a second time: no temporary copy of it (No such file or directory; set TMPDIR" spool.err &&
	cat n.prof | TMPDIR=$TRASH/none "$PROFILE" dump - >nospool.dump &&
	expect_eq "$(sed 1d n.prof.dump | md5sum)" "$(sed 1d nospool.dump | md5sum)" "native dump without TMPDIR"
'

test_done
