#!/bin/sh
# Adversarial plug-in scenarios (issue 11; docs/RELIABILITY.md): more
# channels than a profile holds, a channel given twice, and SCPI meters that
# stream unasked, answer garbage mid-run or report negative power.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/pmu/pmu-lib.sh"

start_meter stream.port --tcp stream.port --stream-after 20 --log stream.log
start_meter endless.port --tcp endless.port --endless-after 20 --log endless.log
start_meter eager.port --tcp eager.port --stream-after 1
start_meter garbage.port --tcp garbage.port --garbage-after 5
start_meter garbage2.port --tcp garbage2.port --garbage-after 5
start_meter negative.port --tcp negative.port --value -2.5
meter() { echo "tcp://127.0.0.1:$(cat "$1.port")"; }

# A fixed amount of work.
WORKLOAD=$EXAMPLES/work

# ---- channels ---------------------------------------------------------------

test_expect_success '200 perf events: refused before the target starts, one line naming the limit' '
	events=$(for i in $(seq 200); do printf "perf::PAGE-FAULTS,"; done) &&
	run_status "$SAMPLER" -o prof -p "perf:${events%,}" -- touch started 2>err &&
	expect_eq 125 $rc "exit status (139 was a stack overflow)" &&
	one_error err "^sampler: error: perf: 200 channels are more than the 64 a run can record (record fewer" &&
	test ! -e started && test ! -e prof
'

test_expect_success 'at most 64 channels over all -p options: 64 recorded, 65 refused' '
	$PY $FAKES/fake-powercap.py make many --packages 21 &&
	SAMPLER_SYSFS_ROOT=$TRASH/many "$SAMPLER" -f 100 -o p64 -p rapl:all -p perf:perf::PAGE-FAULTS -- true &&
	$PROFILE dump p64 >p64.txt &&
	expect_eq 64 "$(grep -c "^channel " p64.txt)" "channels in the profile" &&
	expect_grep "^channel name=perf::PAGE-FAULTS source=perf " p64.txt &&
	SAMPLER_SYSFS_ROOT=$TRASH/many run_status "$SAMPLER" -o p65 \
		-p rapl:all -p perf:perf::PAGE-FAULTS,perf::MINOR-FAULTS -- touch started 2>err &&
	expect_eq 125 $rc "exit status" &&
	one_error err "^sampler: error: perf: 2 channels, with the 63 of the -p options before it, are more than the 64 a run can record" &&
	test ! -e started
'

test_expect_success 'an event given twice in one -p is refused like two -p options' '
	run_status "$SAMPLER" -o prof -p perf:perf::PAGE-FAULTS,perf::TASK-CLOCK,perf::PAGE-FAULTS -- touch started 2>err &&
	expect_eq 125 $rc "exit status" &&
	one_error err "^sampler: error: perf: channel .perf::PAGE-FAULTS. is given twice (name each channel once)$" &&
	test ! -e started &&
	run_status $PROBE -p perf:perf::TASK-CLOCK,perf::TASK-CLOCK 2>err &&
	expect_eq 125 $rc "exit status of the probe" &&
	one_error err "perf: channel .perf::TASK-CLOCK. is given twice"
'

# ---- a meter that talks out of turn ----------------------------------------

# out_of_turn NAME: the workload under the sampler with meter NAME, which
# streams after 20 answers; the target must not be held for the meter.  The
# sampler measures the time it spent reading the meter (-d): a held target
# spent most of its run stopped for it (ran 10 times as long as alone); a
# bounded read holds it 1% of the run, 12% when the meter itself is slowed
# by a loaded machine.  Run times alone and under the sampler are no
# measure there (1.9 s and 7.4 s under the sanitizer build, nothing held).
out_of_turn() {
	timeout 120 "$SAMPLER" -d -f 200 -p "scpi:$(meter $1)" -o prof.$1 -- "$WORKLOAD" 1 300 >under.$1 2>err.$1 &&
	cat under.$1 err.$1 $1.log &&
	held=$(awk "/^sampler: wall time: / { wall = \$4 }
		/^sampler: samples: / { n = \$3 }
		/^sampler: stop latency: / { sub(/.*\(mean, /, \"\"); read = \$1 }
		END { if (wall > 0 && n != \"\" && read != \"\") printf \"%.2f\", 100 * n * read / 1e6 / wall }" err.$1) &&
	expect_le 50 "$held" "percent of the run the target was held stopped for the meter (held: most of it)" &&
	expect_eq 1 "$(grep -c "^sampler: warning: scpi: meter at $(meter $1) sent more than 4096 bytes between two samples without being asked; such readings are recorded as missing" err.$1)" "warnings about the chatter" &&
	expect_ge 1 "$(field $1.log queries streams)" "streams the meter began" &&
	$PROFILE dump prof.$1 >dump.$1 &&
	expect_ge 1 "$(sample_nan dump.$1 1)" "missing readings"
}

test_expect_success 'a meter streaming readings unasked: the target runs on, one warning' '
	out_of_turn stream
'

test_expect_success 'a meter sending one endless line: the target runs on, one warning' '
	out_of_turn endless
'

test_expect_success 'a meter that streams from its first answer is refused before the target starts' '
	run_status "$SAMPLER" -o prof -p "scpi:$(meter eager)" -- touch started 2>err &&
	expect_eq 125 $rc "exit status" &&
	one_error err "^sampler: error: scpi: meter at $(meter eager) sends more than 4096 bytes without being asked (set it to answer queries only" &&
	test ! -e started
'

# ---- answers that are no reading -------------------------------------------

# 12.5 W five times (the handshake and 4 answers of the plug-in's thread,
# in a few ms), then garbage: the reads before it have 12.5 W, none after.
test_expect_success 'garbage mid-run: readings missing, one warning quoting it escaped and cut' '
	$PROBE -n 30 -i 2 -p "scpi:$(meter garbage),timeout_ms=2000" >out 2>err &&
	cat out err &&
	good=$(field out "total name=scpi " value | awk "{ print \$1 / 12.5 }") &&
	expect_ge 1 "$good" "readings before the garbage" &&
	expect_eq 30 "$((good + $(field out "total name=scpi " missing)))" "readings + missing" &&
	sed -n "s/^read .* values=\([^ ]*\) .*/\1/p" out |
		awk "\$1 != \"nan\" && seen { n++ } \$1 == \"nan\" { seen = 1 } END { print n + 0 }" >late &&
	expect_eq 0 "$(cat late)" "readings after the first missing one" &&
	refused=$(field out "total name=scpi " refused) &&
	expect_ge 1 "$refused" "refused answers (each garbage answer the thread got)" &&
	expect_eq 2 "$(wc -l <err)" "stderr lines: the answer quoted, the refusals at the end" &&
	expect_grep "^pmu-probe: warning: scpi: channel .scpi.: $refused readings refused ($refused not decimal)" err &&
	expect_grep "^pmu-probe: warning: scpi: meter at $(meter garbage) answered .-113,\"Undefined header\"\\\\x01\\\\xff\\\\'"'"'\\\\\\\\xxxxx*\.\.\.. to .MEAS:POW?., not a number; such readings are recorded as missing" err
'

test_expect_success 'garbage mid-run under the sampler: the end says no usable reading, not that it stopped answering' '
	"$SAMPLER" -f 200 -p "scpi:$(meter garbage2),timeout_ms=2000" -o prof -- "$EXAMPLES/busy" 0.3 2>err &&
	cat err &&
	expect_eq 1 "$(grep -c "not a number; such readings are recorded as missing" err)" "warnings about the answers" &&
	expect_grep "readings missing (the device did not answer in time, sent no usable reading or went away" err &&
	expect_no_grep "stopped answering" err
'

test_expect_success 'negative power: readings missing, one warning, no negative energy' '
	"$SAMPLER" -f 200 -p "scpi:$(meter negative),timeout_ms=2000" -o prof -- "$EXAMPLES/busy" 0.3 2>err &&
	cat err &&
	expect_eq 1 "$(grep -c "^sampler: warning: scpi: meter at $(meter negative) answered .-2.5. to .MEAS:POW?., a negative power; such readings are recorded as missing" err)" "warnings" &&
	$PROFILE dump prof >dump &&
	samples=$(field dump stats samples) &&
	expect_ge 10 "$samples" "samples" &&
	expect_eq "$samples" "$(sample_nan dump 1)" "NaN readings" &&
	expect_no_grep "^sample .* values=-" dump
'

test_expect_success 'a negative current or voltage is a reading (unit=A, unit=V)' '
	$PROBE -q -n 10 -i 2 -p "scpi:$(meter negative),unit=A,timeout_ms=2000" >out 2>err &&
	expect_eq -2.5 "$(field out "total name=scpi " mean)" "mean current" &&
	expect_eq 0 "$(field out "total name=scpi " missing)" "missing readings" &&
	test ! -s err
'

test_done
