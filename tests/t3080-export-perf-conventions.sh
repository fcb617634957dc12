#!/bin/bash
# sampler-export keeps perf's conventions (issue 10 §2): the same event names
# in pipe and file mode, no CPU field it cannot fill, the recording's time
# as the file's, one event per file for perf's sample-counting scripts, and
# a word when an option or a format leaves something out.
. "$(dirname "$0")/lib.sh"

GEN=$BUILD/bench/genprofile
PROFILE=$BUILD/sampler-profile

test_expect_success 'a profile recorded at a known time (2017-07-14 02:40 UTC)' '
	"$GEN" p.prof 400 4 >gen.out &&
	"$PROFILE" dump p.prof >p.txt &&
	sed "s/ realtime_ns=[0-9]* monotonic_ns=\([0-9]*\) / realtime_ns=1500000000000000000 monotonic_ns=\1 /" p.txt >old.txt &&
	"$PROFILE" build old.prof <old.txt &&
	expect_grep " realtime_ns=1500000000000000000 " old.txt
'

test_expect_success 'sampler-export -V names the program and version' '
	expect_eq "sampler-export $("$SAMPLER" -V | cut -d" " -f2)" "$("$EXPORT" -V)" "version line" &&
	expect_eq "$("$EXPORT" -V)" "$("$EXPORT" --version)" "--version"
'

test_expect_success 'CSV to FILE.bz2 is bzip2-compressed and holds the same text' '
	"$EXPORT" --format csv -o p.csv p.prof &&
	"$EXPORT" --format csv -o p.csv.bz2 p.prof &&
	expect_eq BZh "$(head -c 3 p.csv.bz2)" "magic" &&
	bzcat p.csv.bz2 | cmp - p.csv
'

test_expect_success '--symbols with --format perf: one warning line, and the export' '
	"$EXPORT" --symbols -o s.data p.prof 2>warn.txt &&
	expect_eq 1 "$(wc -l <warn.txt)" "stderr lines" &&
	expect_grep "^sampler-export: warning: --symbols applies to --format csv only; perf ignores it" warn.txt &&
	expect_eq PERFILE2 "$(head -c 8 s.data)" magic
'

test_expect_success 'the pperf export names the channels it drops' '
	"$EXPORT" --format pperf -o p.pperf p.prof 2>warn.txt &&
	expect_eq 1 "$(wc -l <warn.txt)" "stderr lines" &&
	expect_grep "^sampler-export: warning: pperf keeps .*: 1 channel dropped: instructions (use --format perf or csv" warn.txt &&
	"$EXPORT" --info p.pperf >pp.info &&
	expect_grep "^channel: *power (pperf, power, per sample)" pp.info &&
	expect_grep "^host: *not recorded (the pperf layout keeps no host facts)$" pp.info
'

test_expect_success PERF 'pipe mode names the events as file mode does (cpu-time, not task-clock:u)' '
	"$EXPORT" -o file.data p.prof &&
	perf script -i file.data >file.script 2>/dev/null &&
	"$EXPORT" -o - p.prof | perf script -i - >pipe.script 2>/dev/null &&
	expect_eq "$(grep "^ts " p.txt | grep -vc " dcpu=0 ")" "$(grep -c " cpu-time: " pipe.script)" \
		"cpu-time lines in pipe mode (thread-samples that ran)" &&
	expect_no_grep "task-clock\|cpu-clock" pipe.script &&
	diff file.script pipe.script
'

test_expect_success PERF 'no PERF_SAMPLE_CPU: the profile does not know the CPU, so no event claims one' '
	perf evlist -v -i file.data >evlist.txt 2>&1 &&
	expect_eq 4 "$(grep -c "sample_type: IP|TID|TIME|PERIOD|IDENTIFIER," evlist.txt)" "events with the fields filled" &&
	expect_no_grep "sample_type: [A-Z|]*CPU" evlist.txt
'

test_expect_success PERF 'perf report --header-only: captured on = the recording'"'"'s end, not the export'"'"'s' '
	"$EXPORT" -o old.data old.prof &&
	last=$(awk "{ for (i = 2; i <= NF; i++) if (index(\$i, \"time=\") == 1) t = substr(\$i, 6) } END { print t }" old.txt) &&
	mono=$(sed -n "s/.* monotonic_ns=\([0-9]*\) .*/\1/p" old.txt) &&
	want=$(( (1500000000000000000 + last - mono) / 1000000000 )) &&
	expect_eq "$want" "$(stat -c %Y old.data)" "mtime (s)" &&
	perf report -i old.data --header-only 2>/dev/null | grep "captured on" >captured.txt &&
	expect_grep "captured on *: .* 2017$" captured.txt
'

test_expect_success PERF '--event: one event per file; stackcollapse counts that event'"'"'s samples only' '
	"$EXPORT" -e cpu-time -o cpu.data p.prof &&
	perf evlist -i cpu.data >one.txt 2>&1 &&
	expect_eq cpu-time "$(cat one.txt)" "events" &&
	perf script -i file.data -F event 2>/dev/null | grep -c " cpu-time:" >want &&
	perf script report stackcollapse -i file.data -- --include-pid >all.folded 2>/dev/null &&
	perf script report stackcollapse -i cpu.data -- --include-pid >cpu.folded 2>/dev/null &&
	cat cpu.folded &&
	expect_eq "$(cat want)" "$(awk "{ s += \$NF } END { print s }" cpu.folded)" "stackcollapse count of the cpu-time export" &&
	expect_grep "^genprofile-[0-9]* " cpu.folded &&
	expect_ge "$(($(cat want) + 1))" "$(awk "{ s += \$NF } END { print s }" all.folded)" "count over all events (mixed)"
'

test_expect_success PERF '--event takes several names; an unknown one is refused with the list' '
	"$EXPORT" -e instructions,energy-package-0-uJ -o two.data p.prof &&
	expect_eq "energy-package-0-uJ instructions" "$(perf evlist -i two.data 2>/dev/null | tr "\n" " " | sed "s/ $//")" "events" &&
	run_status "$EXPORT" -e cycles -o x.data p.prof 2>err &&
	expect_eq 1 "$rc" "status" &&
	expect_eq 1 "$(wc -l <err)" "error lines" &&
	expect_grep "no event .cycles. in p.prof (its events: cpu-time, wall-time, energy-package-0-uJ, instructions)" err &&
	run_status "$EXPORT" -e cpu-time --format csv p.prof >/dev/null 2>err &&
	expect_eq 1 "$rc" "status with csv" &&
	expect_grep "^sampler-export: error: --event selects perf.data events" err
'

test_done
