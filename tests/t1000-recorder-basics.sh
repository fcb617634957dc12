#!/bin/bash
# The recorder on one thread: sample count and content, output options,
# exit statuses and error lines.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/recorder-lib.sh"

# Every schedule slot is either sampled or counted as missed, whatever the
# load on the machine: samples + missed = wall x f exactly (give or take the
# slot in progress at the end); expect_schedule (recorder-lib.sh) checks it.
test_expect_success 'one thread: samples + missed slots = f x wall, each of the target thread' '
	"$SAMPLER" -f 500 -o one -- "$EXAMPLES/busy" 0.4 &&
	dump one &&
	pid=$(field_values one.txt process pid) &&
	expect_eq 1 "$(echo "$pid" | wc -l)" "process records" &&
	expect_schedule one.txt &&
	samples=$(records one.txt sample) &&
	expect_eq "$samples" "$(records one.txt ts)" "ts lines (one per sample)" &&
	expect_eq "$pid" "$(field_values one.txt ts tid | sort -u)" "tids in samples" &&
	expect_eq 1 "$(field_values one.txt sample nthreads | sort -u)" "nthreads"
'

# busy spins for 0.4 s of wall time, and gets only a share of it as CPU
# time when other programs compete: 1 ms at least, on any machine.
test_expect_success 'one thread: CPU time grows, and stays below the wall time' '
	last=$(field_values one.txt ts cpu | tail -1) &&
	expect_le "$(stat_of one.txt wall)" "$last" "last CPU time (ns)" &&
	expect_ge 1000000 "$last" "last CPU time (ns)" &&
	field_values one.txt ts cpu | sort -n -c
'

test_expect_success 'one thread: PCs fall in the maps of the executable or its libraries' '
	expect_grep "^map .*prot=r-x path=.*/busy\$" one.txt &&
	expect_grep "^exec .*comm=busy argv=.*/busy%200.4\$" one.txt &&
	expect_grep "^host .*target_hz=500" one.txt
'

test_expect_success 'host facts: name, system, CPUs, memory, command line, clock anchor' '
	host=$(grep "^host " one.txt) &&
	expect_eq "$(uname -n)" "$(field_values one.txt host hostname)" "hostname" &&
	expect_eq "$(uname -r)" "$(field_values one.txt host os_release)" "os_release" &&
	expect_eq "$(uname -m)" "$(field_values one.txt host arch)" "arch" &&
	expect_eq "$(nproc)" "$(field_values one.txt host nr_cpus_online)" "CPUs online" &&
	expect_eq "$(awk "/^MemTotal:/ { print \$2 }" /proc/meminfo)" "$(field_values one.txt host total_mem_kb)" "MemTotal" &&
	if grep -q "^vendor_id" /proc/cpuinfo; then
		want=$(awk -F": " "/^vendor_id/ { v = \$2 } /^cpu family/ { f = \$2 } /^model\t/ { m = \$2 } /^stepping/ { s = \$2; exit } END { printf \"%s%%2C%s%%2C%s%%2C%s\", v, f, m, s }" /proc/cpuinfo)
		expect_eq "$want" "$(field_values one.txt host cpu_id)" "cpu_id" || return 1
	fi &&
	expect_grep "^host .*cmdline=$SAMPLER%20-f%20500%20-o%20one%20--%20" one.txt &&
	rt=$(field_values one.txt host realtime_ns) &&
	expect_near "$(date +%s)" "$((rt / 1000000000))" 120 "realtime anchor (s)" &&
	expect_ge "$(field_values one.txt host start_ns)" "$(field_values one.txt sample time | head -1)" "first sample time (after start_ns)"
'

test_expect_success 'without -o nothing is written' '
	mkdir empty && cd empty &&
	"$SAMPLER" -f 200 -- "$EXAMPLES/busy" 0.1 &&
	expect_empty "$(ls -A)" "files created"
'

test_expect_success 'a .bz2 output is compressed and reads back' '
	"$SAMPLER" -f 1000 -o one.bz2 -- "$EXAMPLES/busy" 0.2 &&
	expect_eq "BZh" "$(head -c 3 one.bz2)" "file magic" &&
	dump one.bz2 &&
	expect_grep "^format name=native compressed=1" one.bz2.txt &&
	expect_schedule one.bz2.txt
'

test_expect_success '--format pperf writes the original layout' '
	"$SAMPLER" --format pperf -f 500 -o one.pperf -- "$EXAMPLES/busy" 0.2 &&
	dump one.pperf &&
	expect_grep "^format name=pperf" one.pperf.txt &&
	expect_eq "$(stat_of one.pperf.txt samples)" "$(records one.pperf.txt sample)" "stats samples vs sample records" &&
	expect_ge "$(min_samples 0.2)" "$(records one.pperf.txt sample)" "samples"
'

test_expect_success 'the target exit status is the sampler exit status' '
	run_status "$SAMPLER" -o three -- "$EXAMPLES/exit3" 0.1 &&
	expect_eq 3 "$rc" "exit status" &&
	dump three &&
	expect_eq 3 "$(stat_of three.txt exit)" "stats exit"
'

test_expect_success 'a segfault gives 139 and a complete profile' '
	run_status "$SAMPLER" -o segv -- "$EXAMPLES/segv" 0.1 &&
	expect_eq 139 "$rc" "exit status" &&
	dump segv &&
	expect_eq 139 "$(stat_of segv.txt exit)" "stats exit" &&
	expect_schedule segv.txt
'

test_expect_success 'command not found: 127 and one error line' '
	run_status "$SAMPLER" -o nf -- ./no-such-command 2>err &&
	expect_eq 127 "$rc" "exit status" &&
	one_error_line err && expect_grep "not found" err
'

test_expect_success 'command not executable: 126 and one error line' '
	echo "not a program" >plain && chmod 644 plain &&
	run_status "$SAMPLER" -- ./plain 2>err &&
	expect_eq 126 "$rc" "exit status" &&
	one_error_line err && expect_grep "Permission denied" err
'

test_expect_success 'bad frequencies: 125 and one error line each' '
	for f in 0 -1 abc 100001 1e999 nan 10x ""; do
		run_status "$SAMPLER" -f "$f" -- "$EXAMPLES/busy" 0.01 2>err
		expect_eq 125 "$rc" "exit status for -f $f" || return 1
		one_error_line err || return 1
		expect_grep "bad frequency" err || return 1
	done
'

test_expect_success 'fractional frequencies are accepted' '
	"$SAMPLER" -f 0.5 -o half -- "$EXAMPLES/busy" 0.05 &&
	dump half && expect_grep "target_hz=0.5" half.txt &&
	expect_eq 0 "$(records half.txt sample)" "samples in 50 ms at 0.5 Hz"
'

test_expect_success 'unwritable output: 125, one error line, target never runs' '
	run_status "$SAMPLER" -o no/such/dir/p -- "$EXAMPLES/exit3" 0.01 2>err &&
	expect_eq 125 "$rc" "exit status" && one_error_line err
'

test_expect_success 'a full disk: 125 and one error line' '
	run_status "$SAMPLER" -o /dev/full -- "$EXAMPLES/signals" 10 >out 2>err &&
	expect_eq 125 "$rc" "exit status" &&
	one_error_line err && expect_grep "No space left on device" err
'

test_expect_success 'bad options: 125 and one error line' '
	for args in "-x" "-p" "--format nope" "-p nosuch" "--fifo 0" "--cpu x" "--nice x" "--nice 40"; do
		run_status "$SAMPLER" $args -- true 2>err
		expect_eq 125 "$rc" "exit status for $args" || return 1
		one_error_line err || return 1
	done &&
	run_status "$SAMPLER" 2>err &&
	expect_eq 125 "$rc" "exit status without a command" &&
	one_error_line err
'

test_expect_success '-h, -V and -p help print and exit 0' '
	"$SAMPLER" -h >out && expect_grep "^usage: sampler" out &&
	"$SAMPLER" -V >out && expect_grep "^sampler [0-9]" out &&
	"$SAMPLER" -p help >out && expect_grep "none" out
'

test_expect_success '-d prints the run statistics' '
	"$SAMPLER" -d -f 1000 -o dbg -- "$EXAMPLES/busy" 0.2 2>err &&
	dump dbg &&
	expect_grep "^sampler: samples: $(stat_of dbg.txt samples) actual" err &&
	expect_grep "^sampler: frequency: 1000.000 Hz target" err &&
	expect_grep "^sampler: stop latency: .* us per sample" err &&
	expect_grep "^sampler: threads: 1 seen" err &&
	expect_grep "^sampler: profile: $(wc -c <dbg) bytes" err
'

# The energy estimator places what the threads ran after each sample's hold
# (docs/ENERGY.md, step 3): the hold starts once every thread is stopped,
# so it is the latency less the time the stops took to land.
test_expect_success 'the stats hold: part of the latency, from each sample on' '
	hold=$(stat_of dbg.txt hold) && latency=$(stat_of dbg.txt latency) &&
	echo "hold $hold ns, latency $latency ns, $(stat_of dbg.txt samples) samples" &&
	expect_ge 1 "$hold" "hold (ns)" &&
	expect_le "$latency" "$hold" "hold (ns): at most the latency" &&
	expect_le "$((latency - 1))" "$hold" "hold (ns): less than the latency, which counts the stops"
'

test_done
