#!/bin/bash
# Exports of real recordings (build/sampler): perf report shows the hot
# functions of the examples with the profile's own shares, for CPU time and
# for energy from a fake RAPL tree; fork+exec and many threads come through.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/export-lib.sh"

# The profile's own attribution per symbol, from the CSV (CSV v2: cpu
# column 6, energy column 8, symbol last; sample and exit rows alike):
# "symbol cpu% energy%".
csv_shares() {	# csv
	grep -v "^#" "$1" | tail -n +2 | awk -F, '
		{ c[$NF] += $6; e[$NF] += $8; tc += $6; te += $8 }
		END { for (s in c) printf "%s %.4f %.4f\n", s, tc ? 100 * c[s] / tc : 0, te ? 100 * e[s] / te : 0 }'
}

test_expect_success 'record attrib with a fake RAPL tree that spends 10 W: the profile holds its 6 J' '
	record_fake_rapl 10 0.6 -f 1000 -p rapl:package-0 -o rec.prof -- "$EXAMPLES/attrib" 1 >attrib.out &&
	fake_energy_holds rec.prof 10 0.6 &&
	"$EXPORT" --info rec.prof >info.txt &&
	expect_grep "^channel: *package-0 (rapl, energy, per sample): total [1-9]" info.txt
'

test_expect_success PERF 'export it; perf report prints no warning' '
	"$EXPORT" -o perf.data rec.prof 2>export.err &&
	expect_empty "$(cat export.err)" "export stderr" &&
	perf report -i perf.data --stdio --sort symbol >report.txt 2>report.err &&
	expect_empty "$(cat report.err)" "perf report stderr" &&
	"$EXPORT" --format csv --symbols -o rec.csv rec.prof &&
	csv_shares rec.csv >expected &&
	cat expected
'

test_expect_success PERF 'f20, f30, f50 have the profile'"'"'s CPU-time and energy shares in perf report' '
	for f in f20 f30 f50; do
		expect_ge 5 "$(awk -v f=$f "\$1 == f { print \$2 }" expected)" "profile cpu share of $f" &&
		expect_near "$(awk -v f=$f "\$1 == f { print \$2 }" expected)" "$(share report.txt cpu-time $f)" 0.5 "cpu-time share of $f" &&
		expect_near "$(awk -v f=$f "\$1 == f { print \$3 }" expected)" "$(share report.txt energy-package-0-uJ $f)" 0.5 "energy share of $f" || exit 1
	done
'

test_expect_success PERF 'perf script prints one line per exported sample' '
	rows=$(grep -v "^#" rec.csv | grep -c ",sample,") &&
	ran=$(grep -v "^#" rec.csv | tail -n +2 | awk -F, "\$6 > 0" | wc -l) &&
	"$BUILD/sampler-profile" dump rec.prof >rec.txt &&
	tails=$(awk "/^exit / && / dcpu=/ && !/ dcpu=0 /" rec.txt | wc -l) &&
	expect_eq "$tails" "$(grep -v "^#" rec.csv | awk -F, "\$4 == \"exit\" && \$6 > 0" | wc -l)" "CSV exit rows that ran" &&
	perf script -i perf.data -F event >script.txt 2>script.err &&
	expect_empty "$(cat script.err)" "stderr" &&
	expect_eq "$rows" "$(grep -c "wall-time:" script.txt)" "wall-time lines (thread-samples)" &&
	expect_eq "$ran" "$(grep -c "cpu-time:" script.txt)" \
		"cpu-time lines (CSV rows that ran: thread-samples, and threads that ran after their last sample)"
'

test_expect_success PERF 'a fork+exec recording: both programs, no warning, pipe = file' '
	"$SAMPLER" -f 500 -o fe.prof -- "$EXAMPLES/forkexec" 0.3 >/dev/null &&
	"$EXPORT" -o fe.data fe.prof &&
	perf report -i fe.data --stdio --sort comm >comm.txt 2>comm.err &&
	expect_empty "$(cat comm.err)" "perf report stderr" &&
	expect_grep "% *forkexec" comm.txt &&
	expect_grep "% *busy" comm.txt &&
	"$EXPORT" -o - fe.prof | perf report -i - --stdio --sort comm >pipe.txt 2>pipe.err &&
	expect_empty "$(cat pipe.err)" "perf report stderr (pipe)" &&
	diff <(without_tip comm.txt) <(without_tip pipe.txt)
'

test_expect_success PERF 'a 16-thread recording: every thread of the profile in perf report' '
	"$SAMPLER" -f 200 -o th.prof -- "$EXAMPLES/threads" 16 0.3 >/dev/null &&
	"$EXPORT" -o th.data th.prof &&
	perf report -i th.data --stdio --sort pid 2>th.err >tids.txt &&
	awk "/^# Samples:/ { split(\$0, q, \"\\047\"); cur = q[2] } cur == \"wall-time\" && /% *[0-9]*:threads/" tids.txt | wc -l >n &&
	expect_empty "$(cat th.err)" "perf report stderr" &&
	"$BUILD/sampler-profile" dump th.prof | awk "/^ts / { print \$2 }" | sort -u | wc -l >want &&
	expect_ge 16 "$(cat want)" "threads in the profile" &&
	expect_eq "$(cat want)" "$(cat n)" "threads in the wall-time view"
'

test_expect_success PERF 'CPU time and counts after each thread'"'"'s last sample are in the perf totals' '
	"$SAMPLER" -f 50 -p perf:perf::TASK-CLOCK -o tail.prof -- "$EXAMPLES/threads" 3 0.2 >/dev/null &&
	"$BUILD/sampler-profile" dump tail.prof >tail.txt &&
	"$EXPORT" -o tail.data tail.prof &&
	perf report -i tail.data --stdio --sort symbol >tail.rep 2>tail.err &&
	expect_empty "$(cat tail.err)" "perf report stderr" &&
	total() { awk -v ev="$1" "/^# Samples:/ { split(\$0, q, \"\\047\"); cur = q[2] } cur == ev && /^# Event count/ { print \$NF; exit }" tail.rep; } &&
	sum() {	# what the profile has: every ts and every exit
		awk -v k="$1" "/^ts / || /^exit / {
			for (i = 2; i <= NF; i++) if (index(\$i, k \"=\") == 1) s += substr(\$i, length(k) + 2)
		} END { printf \"%d\", s }" tail.txt
	} &&
	tails=$(awk "/^exit / && / dcpu=/ && !/ dcpu=0 /" tail.txt | wc -l) &&
	expect_ge 1 "$tails" "exits with CPU time after the last sample" &&
	expect_eq "$(sum dcpu)" "$(total cpu-time)" "cpu-time total (ns)" &&
	expect_eq "$(sum dcounters)" "$(total perf::TASK-CLOCK)" "task-clock total"
'

# How much of the loop lands in the vDSO depends on the clock source (with
# kvm-clock its clock_gettime may fall back to the system call): compare
# the two symbolisers sample by sample, whatever the share.
test_expect_success PERF 'samples in the vDSO: CSV --symbols and perf report name the same function' '
	cat >vd.c <<-EOF &&
	#include <time.h>
	int main(void) { struct timespec ts; long s = 0;
		for (long i = 0; i < 5000000; i++) { clock_gettime(CLOCK_MONOTONIC, &ts); s += ts.tv_nsec; }
		return s == 1; }
	EOF
	cc -O1 -o vd vd.c &&
	"$SAMPLER" -f 1000 -o vd.prof -- ./vd &&
	"$EXPORT" --format csv --symbols -o vd.csv vd.prof &&
	csv_shares vd.csv >vd.expected &&
	"$EXPORT" -o vd.data vd.prof &&
	perf report -i vd.data --stdio --sort symbol >vd.txt 2>vd.err &&
	expect_empty "$(cat vd.err)" "perf report stderr" &&
	# "pc function" of every thread-sample: CSV rows by their header names
	# (kind=sample only, where there is a kind column), perf wall-time
	# events; a symbol version (clock_gettime@GLIBC_2.2.5 and @@GLIBC_2.17
	# are one function) is left out
	grep -v "^#" vd.csv | awk -F, "NR == 1 { for (i = 1; i <= NF; i++) col[\$i] = i; next }
		!col[\"kind\"] || \$col[\"kind\"] == \"sample\" { print \$col[\"pc\"], \$col[\"symbol\"] }" |
		sed -e "s/^0x//" | sort >csv.raw &&
	sed "s/@.*//" csv.raw >csv.pcs &&
	perf script -i vd.data -F event,ip,sym 2>/dev/null |
		awk "\$1 == \"wall-time:\" { print \$2, \$3 }" | sort >perf.raw &&
	sed "s/@.*//" perf.raw >perf.pcs &&
	expect_ge 1 "$(grep -c " __vdso_clock_gettime\$" csv.pcs)" "thread-samples in __vdso_clock_gettime (CSV)" &&
	# Addresses neither names are left out: a static function of the vDSO
	# (the kvm-clock read: CSV 0x79d, perf [unknown]) and PLT stubs (CSV
	# name@plt), which perf 6.1 gives to the symbol before .plt (_init) or
	# names "@plt" with no name (libc calling __tunable_get_val@plt).  An
	# address only one of them names stays, and fails the comparison.
	LC_ALL=C join <(LC_ALL=C sort -u csv.raw) <(LC_ALL=C sort -u perf.raw) |
		awk "(\$2 ~ /^0x/ && \$3 == \"[unknown]\") ||
		     (\$2 ~ /@plt\$/ && (\$3 == \"_init\" || \$3 == \"@plt\")) { print \$1 }" >unnamed.pcs &&
	grep -v -w -F -f unnamed.pcs csv.pcs >csv.named || true &&
	grep -v -w -F -f unnamed.pcs perf.pcs >perf.named || true &&
	expect_ge 1 "$(grep -c " __vdso_clock_gettime\$" csv.named)" "named thread-samples in __vdso_clock_gettime (CSV)" &&
	diff -u csv.named perf.named &&
	want=$(awk "\$1 == \"__vdso_clock_gettime\" { print \$2 }" vd.expected) &&
	expect_near "$want" "$(share vd.txt cpu-time __vdso_clock_gettime)" 0.5 "perf cpu-time share of __vdso_clock_gettime"
'

test_done
