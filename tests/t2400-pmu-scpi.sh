#!/bin/sh
# scpi plug-in against a fake meter on loopback TCP and on a pseudo-terminal:
# known values, a meter that stops answering, garbage, refused connections.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/pmu/pmu-lib.sh"
. "$ROOT/tests/recorder-lib.sh"

start_meter tcp.port --tcp tcp.port --value 12.5
start_meter q.port --tcp q.port --log q.log
start_meter pty.path --pty pty.path --value 3.25
start_meter mute.port --tcp mute.port --value 7 --silent-after 11 --log mute.log
start_meter junk.port --tcp junk.port --garbage
start_meter slow.port --tcp slow.port --value 9 --delay-ms 100
# meters that answer within the default timeout_ms=100, but slowly
start_meter s80.port --tcp s80.port --value 10 --delay-ms 80
start_meter s20.port --tcp s20.port --value 10 --delay-ms 20
start_meter s1.port --tcp s1.port --value 10 --delay-ms 1
start_meter mute2.port --tcp mute2.port --value 7 --silent-after 5
start_meter mute3.port --tcp mute3.port --value 7 --silent-after 5
start_meter count.port --tcp count.port --counting --extra
start_meter drop.port --tcp drop.port --value 2 --drop-after 20 --log drop.log
# integrating meters (unit=J): the first answer (the handshake's) is the
# baseline; 9.91E37 is SCPI's NaN; 103 -> 1 is a reset
start_meter joule.port --tcp joule.port --query MEAS:ENER? --log joule.log \
	--values 100,100.5,101.5,9.91E37,103,1,1.25
start_meter joule0.port --tcp joule0.port --query MEAS:ENER? --values 9.91E37,5,6.5
start_meter jcount.port --tcp jcount.port --query MEAS:ENER? --counting --log jcount.log
# a power meter updating every 2 ms (4 W, 6 W, ...: 5 W on average) that
# stops answering after 150 answers, for poll_hz=
start_meter alt.port --tcp alt.port --alternate 4,6 --period-ms 2 --silent-after 150 --log alt.log
# for -p help=: a meter changing every 10 ms between 4 and 6 W, one whose
# answers only grow, one always at 0 W, one that answers the handshake
# only, one that never answers
start_meter wave.port --tcp wave.port --alternate 4,6 --period-ms 10
start_meter grow.port --tcp grow.port --counting
start_meter zero.port --tcp zero.port --value 0
start_meter quiet1.port --tcp quiet1.port --silent-after 1
start_meter quiet0.port --tcp quiet0.port --silent-after 0
TCP=tcp://127.0.0.1:$(cat tcp.port)
PTY=$(cat pty.path)
MUTE=tcp://127.0.0.1:$(cat mute.port)

test_expect_success 'TCP meter: one power channel named scpi, every reading 12.5 W' '
	$PROBE -n 50 -i 2 -p scpi:$TCP,timeout_ms=2000 >out &&
	expect_grep "^channel name=scpi source=scpi unit=W scale=1 kind=power scope=sample$" out &&
	expect_eq 12.5 "$(sed -n "s/^read .* values=\([^ ]*\) .*/\1/p" out | sort -u)" "distinct readings" &&
	expect_eq 50 "$(grep -c ^read out)" "reads" &&
	expect_eq 0 "$(field out "total name=scpi " missing)" "missing readings"
'

# The plug-in's thread asks the meter, as fast as it answers (at most
# 1000 times a second); a read takes what came last and never waits.
test_expect_success 'the meter is asked by a thread of its own, not at each read' '
	$PROBE -q -n 20 -i 20 -p scpi:tcp://127.0.0.1:$(cat q.port),timeout_ms=2000 >out &&
	queries=$(sed -n "s/^queries=\([0-9]*\).*/\1/p" q.log) &&
	expect_ge 60 "$queries" "queries in 0.4 s of 20 reads (1000 a second asked)" &&
	expect_le 500 "$queries" "queries (at most 1000 a second)"
'

# slow_reads PORT FILE: 200 reads 2 ms apart from the meter at PORT
slow_reads() {
	$PROBE -n 200 -i 2 -p "scpi:tcp://127.0.0.1:$(cat $1)" >$2 2>$2.err
}

# Before the thread a read waited for the answer to its query: 200 reads
# took 15.7 s with the 80 ms meter.
test_expect_success 'a meter answering in 80 ms or 20 ms: reads never wait for it, readings kept' '
	for m in s80 s20; do
		slow_reads $m.port $m.out &&
		cat $m.out.err &&
		expect_le 1000 "$(field $m.out latency total_ms)" "ms spent in 200 reads ($m)" &&
		expect_le 10 "$(field $m.out "total name=scpi " missing)" "missing readings ($m)" &&
		expect_eq 10 "$(sed -n "s/^read .* values=\([^ n]*\) .*/\1/p" $m.out | sort -u)" "readings ($m)" || return 1
	done &&
	one_error s80.out.err "^pmu-probe: warning: scpi: meter at tcp://127.0.0.1:[0-9]* takes [0-9.]* ms to answer .MEAS:POW?.: its reading is renewed every [0-9.]* ms at best, samples come every [0-9.]* ms; each sample records the meter.s latest reading, the target is not held" &&
	expect_near 80 "$(sed -n "s/.* takes \([0-9.]*\) ms to answer.*/\1/p" s80.out.err)" 40 "answer time said (ms)"
'

# blocked_run NAME I SPEC: examples/blocked (one thread, 40 M work units)
# under -p SPEC, its own runtime appended to NAME.runtimes; median3 FILE
blocked_run() {
	$SAMPLER -o $1.$2.prof -p "$3" -- $EXAMPLES/blocked 1 0 40 >$1.$2.out &&
	sed -n "s/^runtime_s=//p" $1.$2.out >>$1.runtimes
}
median3() {
	sort -g $1 | sed -n 2p
}

# Before the thread the 80 ms meter stretched the run from 0.19 s to
# 19.3 s (the target held stopped 99% of the time), the 20 ms one to
# 4.7 s (here 13.5 times the run with the 1 ms meter).  Now any stretch
# is the machine's load; the margin is for it.
test_expect_success 'sampler: a slow meter does not stretch the target (its own clock, 3 runs each)' '
	for i in 1 2 3; do
		for m in s1 s20 s80; do
			blocked_run $m $i "scpi:tcp://127.0.0.1:$(cat $m.port)" || return 1
		done
	done &&
	cat s1.runtimes s20.runtimes s80.runtimes &&
	for m in s20 s80; do
		expect_le 3 "$(awk -v a=$(median3 $m.runtimes) -v b=$(median3 s1.runtimes) "BEGIN { print a / b }")" \
			"runtime with the $m meter over the 1 ms meter" || return 1
	done &&
	$PROFILE dump s80.1.prof >s80.dump &&
	expect_le 10 "$(field s80.dump stats missing)" "missing readings (80 ms answers within timeout_ms=100)"
'

test_expect_success 'pseudo-terminal meter at 115200 baud, unit=A and a channel name' '
	$PROBE -q -n 40 -i 2 -p "scpi:$PTY@115200,unit=A,name=amps,timeout_ms=2000" >out &&
	expect_grep "^channel name=amps source=scpi unit=A scale=1 kind=current scope=sample$" out &&
	expect_eq 3.25 "$(field out "total name=amps " mean)" "mean current" &&
	expect_eq 0 "$(field out "total name=amps " missing)" "missing readings"
'

# The thread gets its 10 answers in about 10 ms; its next query goes
# unanswered, and 50 ms later the reading is missing, at every read after.
test_expect_success 'a meter that stops answering: readings missing, counted, and the run is never held' '
	$PROBE -q -n 100 -i 5 -p "scpi:$MUTE,timeout_ms=50" >out &&
	cat out &&
	sed -n "s/^read i=\([0-9]*\) values=\([^ ]*\) .*/\1 \2/p" out >reads &&
	good=$(awk -v t=$(field out "total name=scpi " value) "BEGIN { print t / 7 }") &&
	missing=$(field out "total name=scpi " missing) &&
	expect_ge 1 "$good" "readings of 7 W (before the silence)" &&
	expect_ge 70 "$missing" "missing readings (from 50 ms after the silence)" &&
	expect_eq 100 $((good + missing)) "readings + missing" &&
	expect_eq 0 "$(awk "\$2 != \"nan\" && seen { n++ } \$2 == \"nan\" { seen = 1 } END { print n + 0 }" reads)" "readings after the first missing one" &&
	expect_le 1000 "$(field out latency total_ms)" "ms spent in 100 reads"
'

# Its answers come 100 ms after each query, after the thread stopped
# waiting for them (5 ms): each is stale and dropped.  The handshake's
# answer (it waits up to 2 s) stands until the thread's first query went
# unanswered: the first read or two have it, none after.
test_expect_success 'a meter slower than timeout_ms: readings missing, none late' '
	$PROBE -n 60 -i 5 -p "scpi:tcp://127.0.0.1:$(cat slow.port),timeout_ms=5" >out &&
	sed -n "s/^read .* values=\([^ ]*\) .*/\1/p" out >got &&
	expect_ge 57 "$(grep -c "^nan$" got)" "missing readings" &&
	expect_eq 60 "$(($(field out "total name=scpi " missing) + $(grep -c "^9$" got)))" "missing + readings of 9 W" &&
	expect_eq 0 "$(awk "\$1 != \"nan\" && seen { n++ } \$1 == \"nan\" { seen = 1 } END { print n + 0 }" got)" "readings after the first missing one"
'

# The meter answers 1, 2, 3, ... and an unrequested line after each: the
# readings are its answers in order, none the extra line.
test_expect_success 'each reading is an answer to a query, even with unrequested extra lines' '
	$PROBE -n 30 -i 2 -p "scpi:tcp://127.0.0.1:$(cat count.port),timeout_ms=2000" >out 2>err &&
	sed -n "s/^read .* values=\([^ ]*\) .*/\1/p" out >got &&
	expect_eq 30 "$(grep -c "^[0-9][0-9]*$" got)" "readings that are answer numbers" &&
	sort -n got | cmp - got &&
	expect_ge 10 "$(tail -1 got)" "the last answer read (the thread asks about 60 times in 60 ms)" &&
	test ! -s err
'

test_expect_success 'a dropped connection: readings missing for a second, then re-connected and resumed' '
	$PROBE -n 150 -i 10 -p "scpi:tcp://127.0.0.1:$(cat drop.port),timeout_ms=2000" >out &&
	tail -3 out && cat drop.log &&
	good=$(awk -v t=$(field out "total name=scpi " value) "BEGIN { print t / 2 }") &&
	missing=$(field out "total name=scpi " missing) &&
	expect_eq 150 $((good + missing)) "readings + missing" &&
	answers=$(sed -n "s/.*answers=//p" drop.log) &&
	expect_ge 40 "$answers" "answers (20 per connection: it re-connected)" &&
	expect_ge 50 "$missing" "missing readings while disconnected (a second of 1.5)" &&
	last=$(sed -n "s/^read i=\([0-9]*\) values=2 .*/\1/p" out | tail -1) &&
	expect_ge 90 "$last" "the last read with a reading (after the re-connection, 1 s on)"
'

test_expect_success 'unit=J: an energy channel, the energy since the previous good count' '
	$PROBE -n 9 -i 30 -p "scpi:tcp://127.0.0.1:$(cat joule.port),unit=J,timeout_ms=2000" >out 2>err &&
	cat out err &&
	expect_grep "^channel name=scpi source=scpi unit=J scale=1 kind=energy scope=sample$" out &&
	# 100 -> 100.5 -> 101.5, NaN (missing; the baseline kept), 103 (the
	# 1.5 J since 101.5), 1 (back: refused, missing), 1.25 (on from 1: the
	# counter was reset, the 0.25 J since), 1.25...
	# The thread counts them as they come, the reads take the sums: the
	# energy is all there; the read after each gap is missing (two, or
	# one when both fell between two reads).
	expect_eq 3.25 "$(field out "total name=scpi " value)" "energy: 103 - 100 + 1.25 - 1" &&
	missing=$(field out "total name=scpi " missing) &&
	expect_ge 1 "$missing" "missing readings" &&
	expect_le 2 "$missing" "missing readings" &&
	expect_eq 2 "$(field out "total name=scpi " refused)" "refused answers" &&
	expect_eq 1 "$(grep -c "^pmu-probe: warning: scpi: meter at tcp://127.0.0.1:[0-9]*: its energy counter was reset or jumped, and went on from 1 J: the update in between is recorded as missing" err)" "reset warnings" &&
	expect_eq 1 "$(grep -c "^pmu-probe: warning: scpi: channel .scpi.: 2 readings refused (1 overload, 1 backwards)" err)" "the refusals at the end" &&
	expect_eq 2 "$(grep -c . err)" "lines on stderr"
'

# 9.91E37, 5, 6.5, 6.5, ...: reads are missing until 5 (the baseline)
# came, the first one here; then 1.5 J in all.
test_expect_success 'unit=J: no count at the handshake (9.91E37): the first good count is the baseline' '
	$PROBE -n 5 -i 30 -p "scpi:tcp://127.0.0.1:$(cat joule0.port),unit=J,timeout_ms=2000" >out 2>err &&
	cat out &&
	expect_eq 1 "$(field out "total name=scpi " missing)" "missing readings" &&
	expect_eq 1.5 "$(field out "total name=scpi " value)" "energy: 6.5 - 5" &&
	test ! -s err
'

# poll_hz=: the plug-in's thread polls at 500 Hz, each read takes the
# energy counted since the one before (5 W x 10 ms = 0.05 J), missing
# after the meter went silent (150 answers: 0.3 s, of the 1 s of reads).
test_expect_success 'poll_hz: a power meter counted as energy between reads, by a thread of its own' '
	$PROBE -n 100 -i 10 -p "scpi:tcp://127.0.0.1:$(cat alt.port),timeout_ms=100,poll_hz=500" >out 2>err &&
	cat out err alt.log &&
	expect_grep "^channel name=scpi source=scpi unit=J scale=1 kind=energy scope=sample$" out &&
	sed -n "s/^read .* values=\([^ ]*\) .*/\1/p" out >got &&
	expect_eq 0 "$(head -1 got)" "the first read (counting starts)" &&
	good=$(grep -vc -e nan -e "^0$" got) &&
	expect_ge 20 "$good" "reads with energy (about 30 of the 0.3 s the meter answered)" &&
	grep -v -e nan -e "^0$" got | sort -g | awk "{ v[NR] = \$1 } END { print v[int((NR + 1) / 2)] }" >median &&
	expect_near 0.05 "$(cat median)" 0.01 "median energy of a read (J: 5 W for 10 ms)" &&
	expect_ge 10 "$(tail -15 got | grep -c nan)" "missing reads of the last 15, the meter silent" &&
	expect_eq "$(grep -c nan got)" "$(field out "total name=scpi " missing)" "missing readings" &&
	expect_ge 100 "$(sed -n "s/.*answers=//p" alt.log)" "answers to 100 reads, the first 30 before the silence (polled, not asked per read)"
'

test_expect_success 'poll_hz: needs a power reading; 1 to 10000' '
	run_status $PROBE -p "scpi:$TCP,unit=J,poll_hz=100" 2>err &&
	expect_eq 125 $rc "exit status" &&
	one_error err "scpi: poll_hz= integrates power readings: it needs unit=W (a meter that counts energy itself: unit=J, without poll_hz)$" &&
	run_status $PROBE -p "scpi:$TCP,poll_hz=0" 2>err &&
	expect_eq 125 $rc "exit status (poll_hz=0)" &&
	one_error err "poll_hz" &&
	cat err
'

test_expect_success 'update_ms=, delay_ms=: milliseconds, decimals allowed; bad ones named with the fix' '
	for bad in delay_ms=-1 delay_ms=abc update_ms= update_ms=nan delay_ms=0x10 delay_ms=70000; do
		run_status $PROBE -p "scpi:$TCP,$bad" 2>err &&
		expect_eq 125 $rc "exit status ($bad)" &&
		one_error err "scpi: bad value .${bad#*=}. for ${bad%%=*} (use milliseconds from 0 to 60000, e.g. ${bad%%=*}=20 or ${bad%%=*}=0.5)$" || return 1
	done
'

# The meter's timing from its manual, declared where the meter is named:
# the profile keeps it, and the energy estimate takes it instead of
# fitting the delay and measuring the update (an option still overrides).
# The channel says its reading is the meter thread's latest at the sample
# (reading=latest, docs/FORMAT.md): the estimate places it there.
test_expect_success 'sampler -p scpi,update_ms=,delay_ms=: the profile keeps them, the estimate takes them' '
	$SAMPLER -f 200 -p "scpi:$TCP,timeout_ms=2000,update_ms=2.5,delay_ms=20" -o profd -- $EXAMPLES/busy 0.2 &&
	$PROFILE dump profd >dumpd &&
	expect_grep "^channel name=scpi source=scpi unit=W scale=1 kind=power scope=sample update_ms=2.5 delay_ms=20 reading=latest$" dumpd &&
	$PROFILE build profd2 <dumpd && $PROFILE dump profd2 | cmp - dumpd &&
	sed "s/reading=latest/reading=early/" dumpd >badr.txt &&
	run_status $PROFILE build badr.prof <badr.txt 2>err &&
	expect_eq 1 $rc "exit status (reading=early)" &&
	one_error err "line 3: reading=early is not latest (leave it out for a reading asked for after the previous sample)$" &&
	sed "s/update_ms=2.5/update_ms=-1/" dumpd >bad.txt &&
	run_status $PROFILE build bad.prof <bad.txt 2>err &&
	expect_eq 1 $rc "exit status (update_ms=-1)" &&
	one_error err "line 3: update_ms= and delay_ms= are milliseconds from 0 to 60000$" &&
	$EXPORT --info profd >info &&
	expect_grep "^channel: .*scpi (scpi, power, per sample): mean 12.5 W .*; updates every 2.5 ms; 20 ms late (declared)$" info &&
	$EXPORT --format csv -o d.csv profd &&
	expect_grep "^# meter index=0 rule=trapezoid update_ms=2.5 measured=0 delay_ms=20 delay_measured=0 " d.csv &&
	$EXPORT --meter-delay scpi=3 --format csv -o d3.csv profd &&
	expect_grep "^# meter index=0 rule=trapezoid update_ms=2.5 measured=0 delay_ms=3 delay_measured=0 " d3.csv &&
	for bad in scpi=60001 scpi=-1 scpi= scpi=abc; do
		run_status $EXPORT --meter-delay $bad --format csv -o bad.csv profd 2>err &&
		expect_eq 1 $rc "exit status (--meter-delay $bad)" &&
		one_error err "bad --meter-delay .$bad. (expected \[CHANNEL=\]MS, 0 to 60000, e.g. package-0=1)$" || return 1
	done &&
	$SAMPLER -f 200 -p "scpi:$TCP,timeout_ms=2000" -o profn -- $EXAMPLES/busy 0.2 &&
	$EXPORT --format csv -o n.csv profn &&
	expect_grep "^# meter index=0 rule=trapezoid update_ms=0 measured=0 delay_ms=[0-9.]* delay_measured=1 " n.csv
'

test_expect_success NUMPY 'sampler-report --accuracy: a declared update and delay are named so' '
	$PY "$ROOT/scripts/sampler-report" --accuracy --no-cache profd >acc &&
	cat acc &&
	expect_grep "^scpi  *2.500  *declared  *20.000  *declared " acc &&
	$PY "$ROOT/scripts/sampler-report" --accuracy --no-cache --meter-delay scpi=3 profd >acc3 &&
	expect_grep "^scpi  *2.500  *declared  *3.000  *given/0 " acc3
'

test_expect_success 'a bad unit names the four' '
	run_status $PROBE -p "scpi:tcp://127.0.0.1:$(cat joule0.port),unit=Wh" 2>err &&
	expect_eq 125 $rc "exit status" &&
	one_error err "scpi: bad unit .Wh. (use unit=W, unit=A, unit=V, or unit=J for a meter that counts energy)$"
'

test_expect_success 'a meter answering garbage is refused at init, quoting the answer' '
	run_status $PROBE -p scpi:tcp://127.0.0.1:$(cat junk.port) 2>err &&
	expect_eq 125 $rc "exit status" &&
	one_error err "scpi: meter at tcp://127.0.0.1:[0-9]* answered .garbage. to .MEAS:POW?., not a number (give a query that returns one reading"
'

test_expect_success 'connection refused: one error line with the address and the fix' '
	port=$($PY -c "import socket; s = socket.socket(); s.bind((\"127.0.0.1\", 0)); print(s.getsockname()[1])") &&
	run_status $PROBE -p scpi:tcp://127.0.0.1:$port 2>err &&
	expect_eq 125 $rc "exit status" &&
	one_error err "^pmu-probe: error: scpi: cannot connect to tcp://127.0.0.1:$port: Connection refused (is the meter on and listening there? check the address and port)$"
'

test_expect_success 'a serial device that does not exist, and one that is not a tty' '
	run_status $PROBE -p scpi:/dev/ttyNOSUCH@9600 2>err &&
	one_error err "scpi: cannot open /dev/ttyNOSUCH: No such file or directory (check the device path" &&
	run_status $PROBE -p scpi:$TRASH/q.log@9600 2>err &&
	one_error err "scpi: $TRASH/q.log is not a serial device: "
'

test_expect_success 'sampler -p scpi: every sample 12.5 W, none missing' '
	$SAMPLER -f 200 -p scpi:$TCP,timeout_ms=2000 -o prof -- sleep 0.2 &&
	$PROFILE dump prof >dump &&
	expect_grep "^channel name=scpi source=scpi unit=W scale=1 kind=power scope=sample" dump &&
	expect_eq 12.5 "$(sed -n "s/^sample .* values=\([^ ]*\).*/\1/p" dump | sort -u)" "distinct sample values" &&
	expect_eq 0 "$(field dump stats missing)" "stats missing"
'
# The meter counts 1 J per answer: the samples hold every answer the
# thread got but the handshake (the baseline), less the few it got after
# the last sample.
test_expect_success 'sampler -p scpi,unit=J: an energy channel, the counts of a counting meter add up' '
	$SAMPLER -f 200 -p "scpi:tcp://127.0.0.1:$(cat jcount.port),unit=J,timeout_ms=2000" -o profj -- sleep 0.2 &&
	$PROFILE dump profj >dumpj &&
	expect_grep "^channel name=scpi source=scpi unit=J scale=1 kind=energy scope=sample" dumpj &&
	expect_ge 1 "$(field dumpj stats samples)" "samples" &&
	expect_eq 0 "$(field dumpj stats missing)" "stats missing" &&
	answers=$(sed -n "s/.*answers=//p" jcount.log) &&
	sum=$(sample_sum dumpj 1) &&
	expect_le $((answers - 1)) "$sum" "J counted (answers after the handshake)" &&
	expect_ge $((answers - 11)) "$sum" "J counted (all but the answers after the last sample)"
'
# A reading that never changes (no update seen, no period known) counts
# from each poll to the next: 12.5 W for the time between the first
# sample (the baseline) and the last.
test_expect_success 'sampler -p scpi,poll_hz: an energy channel; a constant 12.5 W counted all along' '
	$SAMPLER -f 200 -p "scpi:$TCP,timeout_ms=2000,poll_hz=1000" -o profp -- sleep 0.3 2>err &&
	$PROFILE dump profp >dumpp &&
	expect_grep "^channel name=scpi source=scpi unit=J scale=1 kind=energy scope=sample" dumpp &&
	expect_eq 0 "$(sample_nan dumpp 1)" "missing readings" &&
	expect_no_grep "warning" err &&
	span=$(sed -n "s/^sample time=\([0-9]*\) .*/\1/p" dumpp | sed -n "1p;\$p" | paste -sd" " | awk "{ print (\$2 - \$1) * 1e-9 }") &&
	expect_near 1 "$(awk -v e=$(sample_sum dumpp 1) -v s=$span "BEGIN { print e / (12.5 * s) }")" 0.03 \
		"energy / (12.5 W x the time from the first sample to the last)"
'
# The poller waits for an answer in slices of 100 ms: the end of the run
# does not wait for timeout_ms (30 s here) of a meter gone silent.
test_expect_success 'sampler -p scpi,poll_hz with a silent meter and timeout_ms=30000: the run ends with its command' '
	run_status timeout 20 $SAMPLER -f 100 -p "scpi:tcp://127.0.0.1:$(cat mute3.port),timeout_ms=30000,poll_hz=100" \
		-o profs -- sleep 0.5 2>err &&
	cat err &&
	expect_eq 0 $rc "exit status (124: still waiting for the meter after 20 s)" &&
	$PROFILE dump profs >dumps &&
	expect_ge 1 "$(field dumps stats samples)" "samples"
'
test_expect_success 'sampler -p scpi with a silent meter: the run completes, missing readings counted' '
	$SAMPLER -f 200 -p "scpi:tcp://127.0.0.1:$(cat mute2.port),timeout_ms=20" -o prof2 -- sleep 1 &&
	$PROFILE dump prof2 >dump2 &&
	samples=$(field dump2 stats samples) &&
	nan=$(sample_nan dump2 1) &&
	expect_ge "$(min_samples 1)" "$samples" "samples" &&
	# readings until 20 ms after the 4 answers: about 5 samples 5 ms apart
	expect_ge $((samples - 12)) "$nan" "NaN samples (all but those of the first 25 ms or so)" &&
	sed -n "s/^sample .* values=\([^ ]*\).*/\1/p" dump2 |
		awk "\$1 != \"nan\" && seen { n++ } \$1 == \"nan\" { seen = 1 } END { print n + 0 }" >late &&
	expect_eq 0 "$(cat late)" "readings after the first missing one" &&
	expect_eq "$nan" "$(field dump2 stats missing)" "stats missing"
'
test_expect_success 'sampler -p help=scpi:...: a meter checked, its pace, delay, range and kind' '
	$SAMPLER -p help=scpi:tcp://127.0.0.1:$(cat wave.port),delay_ms=10 >out 2>err &&
	cat out err &&
	test ! -s err &&
	expect_grep "^scpi: meter at tcp://127.0.0.1:[0-9]*, query .MEAS:POW?., unit W$" out &&
	expect_near 10 "$(sed -n "s/^  updates: every \([0-9.]*\) ms .*/\1/p" out)" 3 "update interval (ms; the meter changes every 10)" &&
	expect_grep "^  delay: 10 ms (declared)$" out &&
	expect_grep "^  range: 4 to 6 W$" out &&
	expect_grep "^  looks like: a power meter (its readings go up and down)$" out &&
	$SAMPLER -p help=scpi:tcp://127.0.0.1:$(cat grow.port) >out2 &&
	cat out2 &&
	expect_grep "^  delay: not declared" out2 &&
	expect_grep "^  looks like: an energy meter (its readings only grow); record it with unit=J" out2
'

test_expect_success 'sampler -p help=scpi:...: always 0 W, or no answer: one line, exit 125, nothing run' '
	run_status $SAMPLER -p help=scpi:tcp://127.0.0.1:$(cat zero.port) -- touch started 2>err &&
	expect_eq 125 $rc "exit status (always 0 W)" &&
	one_error err "^sampler: error: scpi: meter at tcp://127.0.0.1:[0-9]* answered 0 to all [0-9]* queries .MEAS:POW?. in 1 s: it measures nothing (a run would record 0 W throughout" &&
	test ! -e started &&
	run_status $SAMPLER -p help=scpi:tcp://127.0.0.1:$(cat quiet1.port) 2>err &&
	expect_eq 125 $rc "exit status (silent after its first answer)" &&
	one_error err "^sampler: error: scpi: meter at tcp://127.0.0.1:[0-9]* gave no reading in 1 s: it answered the first .MEAS:POW?. and then nothing" &&
	run_status $SAMPLER -p help=scpi:tcp://127.0.0.1:$(cat quiet0.port) 2>err &&
	expect_eq 125 $rc "exit status (silent)" &&
	one_error err "^sampler: error: scpi: meter at tcp://127.0.0.1:[0-9]* did not answer .MEAS:POW?. within 2000 ms" &&
	run_status $SAMPLER -p help=none 2>err &&
	expect_eq 125 $rc "exit status (a plug-in without a check)" &&
	one_error err "^sampler: error: none: no check for this plug-in"
'

test_expect_success 'sampler -p scpi with the meter refusing: exit 125, target never started' '
	run_status $SAMPLER -p scpi:tcp://127.0.0.1:1 -o prof3 -- touch started 2>err &&
	expect_eq 125 $rc "exit status" &&
	one_error err "^sampler: error: scpi: cannot connect to tcp://127.0.0.1:1: Connection refused" &&
	test ! -e started
'

test_done
