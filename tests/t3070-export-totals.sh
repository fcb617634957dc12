#!/bin/bash
# One set of totals (issue 10 §1): on a workload whose threads come and go
# (most of them exit before their first sample), --info, the CSV and perf
# report (file and pipe mode) give per event the totals of the profile's
# stats record: CPU time, energy and every counter.  Exit records' final
# values are where the difference lies.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/export-lib.sh"

# field FILE KEY: KEY=... of the first line of FILE.
field() {
	awk -v k="$2=" '{ for (i = 1; i <= NF; i++) if (index($i, k) == 1) { print substr($i, length(k) + 1); exit } }' "$1"
}

# The profile's CPU time: every thread-sample's and every exit's delta.
profile_cpu() {
	awk '/^ts / || /^exit / { for (i = 2; i <= NF; i++) if (index($i, "dcpu=") == 1) s += substr($i, 6) }
		END { printf "%d\n", s }' "$1"
}

# perf report's event count of EVENT.
event_count() {	# report event
	awk -v ev="$2" '/^# Samples:/ { split($0, q, "\047"); cur = q[2] }
		cur == ev && /^# Event count/ { print $NF; exit }' "$1"
}

test_expect_success 'record churn with a fake RAPL package (10 W for 0.4 s: 4 J) and two counters' '
	record_fake_rapl 10 0.4 -f 20 -p rapl:package-0 \
		-p perf:perf::TASK-CLOCK,perf::PAGE-FAULTS -o ch.prof -- "$EXAMPLES/churn" 0.6 >churn.out &&
	fake_energy_holds ch.prof 10 0.4 &&
	"$BUILD/sampler-profile" dump ch.prof >ch.txt &&
	grep "^stats " ch.txt >stats.txt &&
	field stats.txt totals | tr , "\n" >want &&
	profile_cpu ch.txt >want.cpu &&
	cat want want.cpu &&
	expect_eq 3 "$(wc -l <want)" "channel totals" &&
	expect_ge 1 "$(sed -n 2p want)" "task-clock" &&
	never=$(grep "^exit .* last_pc=0x0 " ch.txt | grep -vc " dcpu=0 ") &&
	echo "# threads that ran and exited before their first sample: $never" &&
	expect_ge 5 "$never" "threads that exited unsampled (at 20 Hz most of churn'"'"'s)"
'

test_expect_success '--info: CPU time and each channel'"'"'s total are the profile'"'"'s' '
	"$EXPORT" --info ch.prof >info.txt &&
	cat info.txt &&
	expect_grep "^samples: .* $(awk "{ printf \"%.6f\", \$1 / 1e9 }" want.cpu) s CPU time" info.txt &&
	expect_near "$(sed -n 1p want)" "$(sed -n "s/^channel: *package-0 .*: total \([^ ]*\) uJ.*/\1/p" info.txt)" 0.001 "energy (uJ)" &&
	expect_eq "$(sed -n 2p want)" "$(sed -n "s/^channel: *perf::TASK-CLOCK .*: total \([0-9]*\) events/\1/p" info.txt)" "task-clock" &&
	expect_eq "$(sed -n 3p want)" "$(sed -n "s/^channel: *perf::PAGE-FAULTS .*: total \([0-9]*\) events/\1/p" info.txt)" "page faults"
'

test_expect_success 'CSV: sample and exit rows add up to the profile'"'"'s totals' '
	"$EXPORT" --format csv -o ch.csv ch.prof &&
	grep -v "^#" ch.csv | tail -n +2 >rows &&
	expect_eq "$(grep -c "^ts " ch.txt)" "$(awk -F, "\$4 == \"sample\"" rows | wc -l)" "sample rows" &&
	expect_eq "$(grep -c "^exit .* cpu=" ch.txt)" "$(awk -F, "\$4 == \"exit\"" rows | wc -l)" "exit rows" &&
	expect_eq "$(cat want.cpu)" "$(awk -F, "{ s += \$6 } END { printf \"%d\", s }" rows)" "cpu_delta_ns" &&
	expect_near "$(sed -n 1p want)" "$(awk -F, "{ s += \$8 } END { printf \"%.3f\", s }" rows)" 0.01 "energy (uJ)" &&
	expect_eq "$(sed -n 2p want)" "$(awk -F, "{ s += \$9 } END { printf \"%d\", s }" rows)" "task-clock" &&
	expect_eq "$(sed -n 3p want)" "$(awk -F, "{ s += \$10 } END { printf \"%d\", s }" rows)" "page faults"
'

for mode in file pipe; do
	test_expect_success PERF "perf report ($mode mode): each event's count is the profile's total" '
		if [ '$mode' = file ]; then
			"$EXPORT" -o ch.data ch.prof &&
			perf report -i ch.data --stdio --sort comm >rep.txt 2>rep.err
		else
			"$EXPORT" -o - ch.prof | perf report -i - --stdio --sort comm >rep.txt 2>rep.err
		fi &&
		expect_empty "$(cat rep.err)" "perf report stderr" &&
		expect_eq "$(cat want.cpu)" "$(event_count rep.txt cpu-time)" "cpu-time (ns)" &&
		expect_near "$(sed -n 1p want)" "$(event_count rep.txt energy-package-0-uJ)" 1 "energy (uJ, whole)" &&
		expect_eq "$(sed -n 2p want)" "$(event_count rep.txt perf::TASK-CLOCK)" "task-clock" &&
		expect_eq "$(sed -n 3p want)" "$(event_count rep.txt perf::PAGE-FAULTS)" "page faults"
	'
done

test_done
