#!/bin/bash
# sampler-export inputs: the original tool's layout, --format pperf, --info,
# and profiles that are cut short, corrupt or not profiles at all.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/export-lib.sh"

GEN=$BUILD/bench/genprofile

samples_of() {	# report-file event: perf's sample count of the event
	perf report -i "$1" --stdio -n --sort pid 2>/dev/null |
		awk -v ev="$2" '/^# Samples:/ { split($0, q, "\047"); cur = q[2] } cur == ev && $3 ~ /:/ { s += $2 } END { print s + 0 }'
}

test_expect_success '--info summarises host, command, duration, samples, threads, channels' '
	"$GEN" p.prof 40000 4 >gen.out &&
	"$EXPORT" --info p.prof >info.txt &&
	expect_grep "^host: *genhost, 6.1.0-gen x86_64, Synthetic CPU @ 1.00GHz" info.txt &&
	expect_grep "^command: *./genprofile 40000 (genprofile)$" info.txt &&
	expect_grep "^duration: *9.999000 s" info.txt &&
	expect_grep "^samples: *10000, 40000 thread-samples, 28.800000 s CPU time$" info.txt &&
	expect_grep "^frequency: *1000.0 Hz achieved, 1000.0 Hz target$" info.txt &&
	expect_grep "^threads: *4 threads in 1 process, [0-9]* map records$" info.txt &&
	expect_grep "^channel: *package-0 (rapl, energy, per sample): total $(sed -n "s/.*energy \([0-9]*\) uJ/\1/p" gen.out) uJ" info.txt &&
	expect_grep "^channel: *instructions (perf, counter, per thread): total 32000000 events$" info.txt &&
	expect_grep "^truncated: *no$" info.txt
'

test_expect_success 'a profile in the original tool'"'"'s layout (pperf) exports' '
	"$GEN" pp.prof 4000 4 pperf >genpp.out &&
	"$EXPORT" --info pp.prof >ppinfo.txt &&
	expect_grep "^profile: *pperf" ppinfo.txt &&
	expect_grep "^samples: *1000, 4000 thread-samples" ppinfo.txt &&
	"$EXPORT" --format csv pp.prof | grep -v "^#" | tail -n +2 | wc -l >rows &&
	expect_eq 4000 "$(cat rows)" "CSV rows of the pperf profile"
'

test_expect_success PERF 'perf report of a pperf profile shows the functions and CPU-time shares' '
	"$EXPORT" -o pp.data pp.prof 2>pp.err &&
	expect_empty "$(cat pp.err)" "export stderr" &&
	perf report -i pp.data --stdio --sort symbol >pp.txt 2>pp-report.err &&
	expect_empty "$(cat pp-report.err)" "perf stderr" &&
	for f in hot_a hot_b hot_c; do
		want=$(sed -n "s/^expect $f cpu=\([0-9.]*\).*/\1/p" genpp.out)
		expect_near "$want" "$(share pp.txt cpu-time $f)" 0.5 "cpu-time share of $f" || exit 1
	done
'

test_expect_success '--format pperf writes the original layout through the profile writer' '
	"$EXPORT" --format pperf -o back.pperf p.prof &&
	"$EXPORT" --info back.pperf >back.txt &&
	expect_grep "^profile: *pperf" back.txt &&
	expect_grep "^samples: *10000, 40000 thread-samples, 28.800000 s CPU time$" back.txt &&
	"$EXPORT" --format csv --symbols back.pperf | grep -c ",hot_a\$" >hot_a.rows &&
	expect_eq 24000 "$(cat hot_a.rows)" "rows in hot_a after the round trip"
'

test_expect_success 'a truncated profile: partial export, one line saying what was dropped, status 2' '
	size=$(stat -c %s p.prof) &&
	head -c $((size * 6 / 10)) p.prof >cut.prof &&
	run_status "$EXPORT" -o cut.data cut.prof 2>cut.err &&
	expect_eq 2 "$rc" "exit status" &&
	expect_eq 1 "$(wc -l <cut.err)" "stderr lines" &&
	expect_grep "^sampler-export: warning: cut.prof: partial export: profile is cut short after byte [0-9]*" cut.err
'

test_expect_success PERF 'the partial perf.data is complete up to the cut and perf reads it cleanly' '
	perf report -i cut.data --stdio --sort symbol >cut.txt 2>cut-report.err &&
	expect_empty "$(cat cut-report.err)" "perf stderr" &&
	n=$(samples_of cut.data wall-time) &&
	expect_ge 4000 "$n" "wall-time samples kept" && expect_le 39999 "$n" "wall-time samples kept" &&
	expect_near 60 "$(share cut.txt wall-time hot_a)" 1 "wall-time share of hot_a"
'

test_expect_success 'a corrupt profile: records before the damage exported, status 2, one line' '
	/usr/bin/python3 -c "
import sys
d = bytearray(open(\"p.prof\", \"rb\").read())
for i in range(len(d) // 2, len(d) // 2 + 64): d[i] ^= 0x5a
open(\"bad.prof\", \"wb\").write(d)" &&
	run_status "$EXPORT" --format csv -o bad.csv bad.prof 2>bad.err &&
	expect_eq 2 "$rc" "exit status" &&
	expect_eq 1 "$(wc -l <bad.err)" "stderr lines" &&
	expect_grep "partial export: exported [0-9]* records, dropped the rest: .*corrupt" bad.err &&
	rows=$(grep -vc "^#" bad.csv) &&
	expect_ge 1000 "$rows" "rows before the damage" && expect_le 40000 "$rows" "rows before the damage"
'

test_expect_success 'not a profile, an empty file, a missing file: one clear error line, status 1' '
	head -c 4096 /dev/urandom >garbage &&
	: >empty &&
	for f in garbage empty missing; do
		run_status "$EXPORT" -o out.data $f 2>err.txt &&
		expect_eq 1 "$rc" "exit status for $f" &&
		expect_eq 1 "$(wc -l <err.txt)" "stderr lines for $f" &&
		expect_grep "^sampler-export: error: .*$f" err.txt || exit 1
	done
'

test_expect_success 'bad command lines are refused with a hint' '
	run_status "$EXPORT" --format xml p.prof 2>fmt.err &&
	expect_eq 1 "$rc" "status" &&
	expect_grep "unknown format .xml. (use perf, csv, pperf, columns, folded, speedscope or firefox)" fmt.err &&
	run_status "$EXPORT" --format pperf p.prof 2>pp.err &&
	expect_eq 1 "$rc" "status" &&
	expect_grep "needs an output file (add -o FILE)" pp.err &&
	run_status "$EXPORT" -o /nonexistent/dir/x.data p.prof 2>dir.err &&
	expect_eq 1 "$rc" "status" &&
	expect_grep "cannot create /nonexistent/dir/x.data: No such file or directory" dir.err
'

test_expect_success 'several profiles: - (stdin) at most once; the merge leaves no file behind' '
	run_status "$EXPORT" --format csv -o two.csv - - <p.prof 2>stdin2.err &&
	expect_eq 1 "$rc" "status" &&
	expect_eq 1 "$(wc -l <stdin2.err)" "error lines" &&
	expect_grep "(stdin) given 2 times" stdin2.err &&
	mkdir tmpd &&
	TMPDIR=$PWD/tmpd "$EXPORT" --format columns -o two.cols p.prof - <p.prof &&
	expect_empty "$(ls -A tmpd)" "files left in TMPDIR" &&
	expect_grep "^# sampler columns v4" <(head -n 1 two.cols)
'

test_done
