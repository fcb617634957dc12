#!/bin/bash
# An export ended by a signal (Ctrl-C, a job's SIGTERM, a closed terminal's
# SIGHUP) leaves no hidden temporary (".out.csv.XXXXXX", as large as the
# output) and no partial output under the target name; a previous output
# stays as it was.
. "$(dirname "$0")/lib.sh"
GEN=$BUILD/bench/genprofile

# temporaries DIR: the hidden outputs left in DIR
temporaries() {
	find "$1" -maxdepth 1 -name ".out.*" | wc -l
}

test_expect_success 'setup: a profile whose CSV export takes a while' '
	"$GEN" big.prof 1000000 4 >/dev/null &&
	mkdir out
'

# interrupt SIG FORMAT: start the export, send SIG once its temporary is
# there, and check what is left.  env --default-signal: a background job
# of a script starts with SIGINT ignored, which the export keeps (nohup).
interrupt() {
	env --default-signal=INT "$EXPORT" --format $2 -o out/out.$2 big.prof 2>$1.err &
	pid=$!
	for i in $(seq 300); do
		[ "$(temporaries out)" -gt 0 ] && break
		sleep 0.05
	done &&
	expect_eq 1 "$(temporaries out)" "temporaries while the export of $2 runs" &&
	kill -$1 $pid &&
	run_status wait $pid &&
	expect_eq $3 "$rc" "status after SIG$1" &&
	expect_eq 0 "$(temporaries out)" "temporaries after SIG$1"
}

test_expect_success 'SIGINT, SIGTERM, SIGHUP: no temporary left, the previous output kept' '
	echo previous >out/out.csv &&
	interrupt INT csv 130 &&
	interrupt TERM csv 143 &&
	interrupt HUP csv 129 &&
	expect_eq previous "$(cat out/out.csv)" "the previous output"
'

test_expect_success 'SIGTERM during a perf.data export: no temporary, no output' '
	interrupt TERM perf 143 &&
	test ! -e out/out.perf
'

test_done
