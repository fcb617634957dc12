#!/bin/bash
# sampler-export to perf.data: the real perf reads it, without a warning, and
# shows what the profile says (hot functions, shares, totals, header, events).
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/export-lib.sh"

GEN=$BUILD/bench/genprofile

expected() {	# function kind: the generator's own attribution
	sed -n "s/^expect $1 .*$2=\([0-9.]*\).*/\1/p" gen.out
}

# genprofile's expected energy shares are the end rule's, exact arithmetic
# (the trapezoid rule is held to the truth in t2110, and perf.data to the
# CSV in t3050): these exports ask for it.
test_expect_success 'a 1000-sample profile of 4 threads exports to perf.data' '
	"$GEN" p.prof 4000 4 >gen.out &&
	"$EXPORT" --energy-rule end -o perf.data p.prof 2>export.err &&
	expect_empty "$(cat export.err)" "export stderr" &&
	expect_eq PERFILE2 "$(head -c 8 perf.data)" magic
'

test_expect_success PERF 'perf report shows the hot functions with the profile'"'"'s CPU-time shares' '
	perf report -i perf.data --stdio --sort symbol >report.txt 2>report.err &&
	for f in hot_a hot_b hot_c; do
		expect_near "$(expected $f cpu)" "$(share report.txt cpu-time $f)" 0.5 "cpu-time share of $f" || exit 1
	done
'

test_expect_success PERF 'energy and wall-time shares match the profile'"'"'s attribution' '
	for f in hot_a hot_b hot_c; do
		expect_near "$(expected $f energy)" "$(share report.txt energy-package-0-uJ $f)" 0.5 "energy share of $f" &&
		expect_near "$(expected $f wall)" "$(share report.txt wall-time $f)" 0.5 "wall share of $f" || exit 1
	done
'

test_expect_success PERF 'event totals are kept: energy in uJ, CPU time in ns, counter deltas' '
	total() { awk -v ev="$1" "/^# Samples:/ { split(\$0, q, \"\\047\"); cur = q[2] } cur == ev && /^# Event count/ { print \$NF; exit }" report.txt; } &&
	expect_eq 1007979 "$(total energy-package-0-uJ)" "energy total (uJ)" &&
	expect_eq 2880000000 "$(total cpu-time)" "cpu-time total (ns: 800 busy samples x 4 threads x 0.9 ms)" &&
	expect_eq 4000000000 "$(total wall-time)" "wall-time total (1000 x 4 threads x 1 ms)" &&
	expect_eq 3200000 "$(total instructions)" "instructions total"
'

test_expect_success PERF 'perf report prints no warning about the file' '
	expect_empty "$(cat report.err)" "perf report stderr"
'

test_expect_success PERF 'perf script prints one line per exported sample' '
	perf script -i perf.data -F comm,tid,event,ip,sym >script.txt 2>script.err &&
	expect_empty "$(cat script.err)" "perf script stderr" &&
	expect_eq 3200 "$(grep -c " cpu-time:" script.txt)" "cpu-time samples (threads that ran)" &&
	expect_eq 4000 "$(grep -c " wall-time:" script.txt)" "wall-time samples (every thread-sample)" &&
	expect_eq 4000 "$(grep -c " energy-package-0-uJ:" script.txt)" "energy samples" &&
	expect_eq 3200 "$(grep -c " instructions:" script.txt)" "counter samples" &&
	expect_eq 14400 "$(wc -l <script.txt)" "all lines" &&
	expect_eq 14400 "$(grep -c "^ *genprofile " script.txt)" "lines with the COMM name"
'

test_expect_success PERF 'perf script shows wall-clock time from CLOCK_DATA' '
	perf script -i perf.data -F tod,event 2>tod.err | head -1 >tod.txt &&
	expect_empty "$(cat tod.err)" "stderr" &&
	expect_grep "^ *$(date +%Y)-[0-9][0-9]-[0-9][0-9] [0-9:.]* *cpu-time" tod.txt
'

test_expect_success PERF 'perf report --header-only shows host, command and event names' '
	perf report -i perf.data --header-only >header.txt 2>header.err &&
	expect_empty "$(cat header.err)" "stderr" &&
	expect_grep "^# hostname : genhost$" header.txt &&
	expect_grep "^# os release : 6.1.0-gen$" header.txt &&
	expect_grep "^# arch : x86_64$" header.txt &&
	expect_grep "^# perf version : sampler 0.1.0$" header.txt &&
	expect_grep "^# cpudesc : Synthetic CPU @ 1.00GHz$" header.txt &&
	expect_grep "^# cpuid : GenuineIntel,6,85,4$" header.txt &&
	expect_grep "^# nrcpus online : 2$" header.txt &&
	expect_grep "^# total memory : 4000000 kB$" header.txt &&
	expect_grep "^# cmdline : sampler -f 1000 -p rapl -o out -- ./genprofile" header.txt &&
	expect_grep "^# clockid: monotonic" header.txt &&
	for e in cpu-time wall-time energy-package-0-uJ instructions; do
		expect_grep "^# event : name = $e," header.txt || exit 1
	done
'

test_expect_success PERF 'perf evlist -v lists every event with its attr' '
	perf evlist -v -i perf.data >evlist.txt 2>evlist.err &&
	expect_empty "$(cat evlist.err)" "stderr" &&
	expect_eq "cpu-time wall-time energy-package-0-uJ instructions" \
		"$(cut -d: -f1 evlist.txt | tr "\n" " " | sed "s/ $//")" "events" &&
	expect_eq 4 "$(grep -c "sample_type: IP|TID|TIME|PERIOD|IDENTIFIER" evlist.txt)" "sample types"
'

# The profile's times are CLOCK_MONOTONIC (host_now_ns); perf's own
# recording of that clock (perf record -k monotonic) is the oracle for
# how an attr says so.
test_expect_success PERF 'every event'"'"'s attr names the clock as perf record -k monotonic does' '
	perf record -k monotonic -e cpu-clock:u -o mono.data -- true 2>mono.err &&
	clock_of() { perf evlist -v -i "$1" 2>/dev/null |
		sed -n "s/.*use_clockid: \([0-9]*\).* clockid: \([0-9]*\).*/use_clockid=\1 clockid=\2/p"; } &&
	want=$(clock_of mono.data) &&
	expect_eq "use_clockid=1 clockid=1" "$want" "perf record -k monotonic attr" &&
	clock_of perf.data >clocks.txt &&
	expect_eq 4 "$(grep -c . clocks.txt)" "events with a clock" &&
	expect_eq "$want" "$(sort -u clocks.txt)" "the clock of every event"
'

# HEADER_SAMPLE_TIME: perf prints the first and last sample times (s, to
# the microsecond, truncated) from it; the profile's own sample records
# give them.
test_expect_success PERF 'perf report --header-only: time of the first and last sample, the profile'"'"'s' '
	"$BUILD/sampler-profile" dump p.prof >p.txt &&
	sec() { awk -v t="$1" "BEGIN { s = int(t / 1e9); printf \"%d.%06d\n\", s, int((t - s * 1e9) / 1000) }"; } &&
	first=$(sed -n "s/^sample time=\([0-9]*\) .*/\1/p" p.txt | head -1) &&
	last=$(sed -n "s/^sample time=\([0-9]*\) .*/\1/p" p.txt | tail -1) &&
	expect_eq "$(sec "$first")" "$(sed -n "s/^# time of first sample : //p" header.txt)" "time of first sample" &&
	expect_eq "$(sec "$last")" "$(sed -n "s/^# time of last sample : //p" header.txt)" "time of last sample"
'

test_expect_success PERF 'perf annotate works on a hot function' '
	perf annotate -i perf.data --stdio hot_a >annotate.txt 2>annotate.err &&
	expect_empty "$(cat annotate.err)" "perf annotate stderr" &&
	expect_grep "<hot_a>:" annotate.txt &&
	expect_grep "^ *100.00 :" annotate.txt
'

test_expect_success PERF 'pipe mode gives the same report as file mode' '
	"$EXPORT" --energy-rule end -o - p.prof >pipe.data &&
	expect_eq PERFILE2 "$(head -c 8 pipe.data)" magic &&
	perf report -i - --stdio --sort symbol <pipe.data >pipe-report.txt 2>pipe.err &&
	expect_empty "$(cat pipe.err)" "perf report stderr (pipe)" &&
	diff <(without_tip report.txt) <(without_tip pipe-report.txt) &&
	"$EXPORT" --energy-rule end -o - p.prof | perf script -i - -F event 2>/dev/null | wc -l >pipe-count.txt &&
	expect_eq 14400 "$(cat pipe-count.txt)" "perf script lines (pipe)"
'

test_expect_success PERF 'pipe mode carries the header features as records' '
	perf report -i pipe.data --header-only >pipe-header.txt 2>&1 &&
	expect_grep "^# hostname : genhost$" pipe-header.txt &&
	expect_grep "^# event : name = energy-package-0-uJ," pipe-header.txt
'

test_expect_success PERF 'a single-thread profile with bzip2 input exports the same way' '
	"$GEN" one.prof.bz2 500 1 >gen1.out &&
	"$EXPORT" -o one.data one.prof.bz2 &&
	perf report -i one.data --stdio --sort symbol >one.txt 2>one.err &&
	expect_empty "$(cat one.err)" "stderr" &&
	sed -n "s/^expect hot_a .*cpu=\([0-9.]*\).*/\1/p" gen1.out >exp1 &&
	expect_near "$(cat exp1)" "$(share one.txt cpu-time hot_a)" 0.5 "cpu-time share of hot_a"
'

test_done
