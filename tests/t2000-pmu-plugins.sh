#!/bin/sh
# PMU plug-in registry: -p help, unknown plug-ins, bad arguments, duplicates.
# Driven through pmu-probe (struct pmu_set alone) and, when built, sampler.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/pmu/pmu-lib.sh"

test_expect_success '-p help lists every plug-in with its syntax and whether it is usable' '
	$PROBE -p help >help &&
	for syntax in "none$" "rapl\[:DOMAIN,...\]" "rapl-perf\[:DOMAIN|EVENT,...\]" "perf:EVENT\[,EVENT...\]" \
		      "sensors\[:CHIP/FEATURE|CHIP,...\]" "scpi:ADDRESS\[,query=Q\]"; do
		expect_grep "^  $syntax" help || exit 1
	done &&
	expect_eq 6 "$(grep -c -e "usable on this machine" -e "not usable here: " help)" "usable/why lines" &&
	SAMPLER_SYSFS_ROOT=$TRASH/nowhere $PROBE -p help >help2 &&
	expect_grep "not usable here: rapl: no $TRASH/nowhere/class/powercap on this machine" help2 &&
	expect_grep "^      usable on this machine; events that work here include:.*perf::PAGE-FAULTS" help2
'

test_expect_success 'an unknown plug-in is one error line naming it' '
	run_status $PROBE -p nosuch 2>err &&
	expect_eq 125 $rc "exit status" &&
	one_error err "^pmu-probe: error: unknown PMU plug-in .nosuch. (sampler -p help lists them)$"
'

test_expect_success 'bad arguments of each plug-in are one error line each, naming plug-in and fix' '
	check() {	# spec pattern
		run_status $PROBE -p "$1" 2>err
		expect_eq 125 $rc "exit status of -p $1" && one_error err "$2"
	} &&
	check none:x "none: takes no argument, got .x. (use -p none)" &&
	check "rapl:a,,b" "rapl: empty item in argument .a,,b. (separate items" &&
	check "perf:" "perf: no event given (use -p perf:EVENT" &&
	check "perf:nosuch-event" "perf: unknown event .nosuch-event.: libpfm4 knows no such event" &&
	check "scpi:" "scpi: no meter address (use -p scpi:tcp://HOST:PORT" &&
	check "scpi:ftp://x" "scpi: bad address .ftp://x. (use tcp://HOST:PORT or a serial device" &&
	check "scpi:tcp://nohost" "scpi: bad address .tcp://nohost. (use tcp://HOST:PORT" &&
	check "scpi:tcp://127.0.0.1:9,unit=K" "scpi: bad unit .K. (use unit=W, unit=A, unit=V, or unit=J for a meter that counts energy)" &&
	check "scpi:tcp://127.0.0.1:9,timeout_ms=0" "scpi: bad value .0. for timeout_ms (use a whole number from 1 to 60000)" &&
	check "scpi:tcp://127.0.0.1:9,color=red" "scpi: unknown option .color=red. (options: query=" &&
	check "scpi:/dev/null@123" "scpi: unsupported baud rate 123 in ./dev/null@123." &&
	check "scpi:/dev/null@9600" "scpi: /dev/null is not a serial device: .* (give a tty" &&
	check ":x" "bad PMU argument .:x. (use -p NAME\[:ARGS\]"
'

test_expect_success 'a channel recorded twice is refused, and nothing stays open' '
	run_status $PROBE -p perf:perf::PAGE-FAULTS -p perf:perf::PAGE-FAULTS 2>err &&
	expect_eq 125 $rc "exit status" &&
	one_error err "perf: channel .perf::PAGE-FAULTS. is already recorded by -p perf"
'

test_expect_success 'several plug-ins in one set give their channels in order' '
	$PROBE -n 2 -p none -p perf:perf::PAGE-FAULTS,perf::TASK-CLOCK >out &&
	grep ^channel out | sed "s/ source.*//" >names &&
	printf "channel name=perf::PAGE-FAULTS\nchannel name=perf::TASK-CLOCK\n" >expect &&
	diff expect names &&
	expect_grep "^read i=2 values= counters=[0-9]*,[1-9][0-9]*$" out
'

test_expect_success 'sampler: -p help lists the plug-ins' '
	$SAMPLER -p help >help 2>&1 &&
	expect_grep "^  rapl\[:DOMAIN,...\]" help &&
	expect_grep "^  scpi:ADDRESS" help
'
test_expect_success 'sampler: unknown plug-in and bad arguments exit 125 and never start the target' '
	for spec in nosuch none:x perf: "scpi:ftp://x" perf:nosuch-event; do
		run_status $SAMPLER -p "$spec" -o out -- touch started 2>err
		expect_eq 125 $rc "exit status of -p $spec" &&
		expect_eq 1 "$(wc -l <err)" "error lines for -p $spec" &&
		expect_grep "^sampler: error: " err &&
		test ! -e started || { echo "target started for -p $spec"; exit 1; }
	done
'

test_done
