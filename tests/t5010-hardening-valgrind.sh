#!/bin/bash
# The sampler and the exporter under valgrind memcheck: no error, nothing
# definitely lost, on a representative set of runs (the targets themselves
# run natively: valgrind does not follow the traced children).
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/recorder-lib.sh"
. "$ROOT/tests/hardening/hardening-lib.sh"

if ! test_have_prereq VALGRIND; then
	skip_all="missing $test_missing_"
	test_done
elif test_have_prereq SANITIZED; then
	skip_all="$SAMPLER is a sanitizer build (valgrind cannot run it)"
	test_done
fi

# memcheck NAME PROGRAM ARGS...: run under memcheck, log in NAME.vg; the
# program's own status in $rc (99: memcheck found errors).
memcheck() {
	local name=$1
	shift
	run_status valgrind --error-exitcode=99 --leak-check=full \
		--errors-for-leak-kinds=definite --log-file="$name.vg" "$@"
}

test_expect_success 'sampler, one thread: no memcheck error, nothing lost' '
	memcheck one "$SAMPLER" -f 500 -o one -- "$EXAMPLES/busy" 0.3 &&
	expect_eq 0 "$rc" "status" &&
	valgrind_clean one.vg &&
	# sampling went on under memcheck: 150 samples idle, 33 on a starved machine
	dump one && expect_ge 10 "$(stat_of one.txt samples)" "samples"
'

test_expect_success 'sampler, 8 threads: no memcheck error, nothing lost' '
	memcheck threads "$SAMPLER" -f 500 -o threads -- "$EXAMPLES/threads" 8 0.3 >/dev/null &&
	expect_eq 0 "$rc" "status" &&
	valgrind_clean threads.vg &&
	dump threads && expect_eq 8 "$(field_values threads.txt ts tid | sort -u | wc -l)" "threads sampled"
'

test_expect_success 'sampler, fork then exec, bzip2 output: clean' '
	memcheck fe "$SAMPLER" -f 500 -o fe.bz2 -- "$EXAMPLES/forkexec" 0.3 >/dev/null &&
	expect_eq 0 "$rc" "status" &&
	valgrind_clean fe.vg &&
	dump fe.bz2 && expect_eq 2 "$(records fe.bz2.txt process)" "processes"
'

test_expect_success 'sampler, pperf output and a dying target: clean' '
	memcheck segv "$SAMPLER" -f 500 --format pperf -o segv.pperf -- "$HW/hw-die" segv 0.2 >/dev/null &&
	expect_eq 139 "$rc" "status" &&
	valgrind_clean segv.vg
'

test_expect_success PERF_COUNTERS 'sampler -p perf: clean' '
	memcheck perf "$SAMPLER" -f 500 -p perf:perf::TASK-CLOCK,perf::PAGE-FAULTS -o perf -- \
		"$EXAMPLES/threads" 4 0.3 >/dev/null &&
	expect_eq 0 "$rc" "status" &&
	valgrind_clean perf.vg &&
	dump perf && expect_eq 2 "$(records perf.txt channel)" "channels"
'

test_expect_success 'sampler -p rapl on a fake powercap tree: clean' '
	/usr/bin/python3 "$ROOT/tests/fakes/fake-powercap.py" make rapl-root &&
	SAMPLER_SYSFS_ROOT=$TRASH/rapl-root memcheck rapl "$SAMPLER" -f 500 -p rapl:all -o rapl -- "$EXAMPLES/busy" 0.3 &&
	expect_eq 0 "$rc" "status" &&
	valgrind_clean rapl.vg &&
	dump rapl && expect_eq 3 "$(records rapl.txt channel)" "channels"
'

test_expect_success 'sampler: bad option and missing command fail cleanly' '
	memcheck badopt "$SAMPLER" -f 0 -- true 2>/dev/null &&
	expect_eq 125 "$rc" "status of -f 0" &&
	valgrind_clean badopt.vg &&
	memcheck nocmd "$SAMPLER" -o nocmd -- ./no-such-command 2>/dev/null &&
	expect_eq 127 "$rc" "status of a missing command" &&
	valgrind_clean nocmd.vg
'

# NAME:OUTPUT:OPTIONS
for fmt in "perf:out.perf:-o out.perf" "pipe:pipe.out:-o -" "csv:out.csv:--format csv --symbols -o out.csv" \
	   "pperf:out.pperf:--format pperf -o out.pperf" "info:info.out:--info"; do
	name=${fmt%%:*} rest=${fmt#*:}
	output=${rest%%:*} opts=${rest#*:}
	test_expect_success "sampler-export $name: clean" '
		memcheck export-$name "$EXPORT" $opts perf >$name.out &&
		expect_eq 0 "$rc" "status" &&
		valgrind_clean export-$name.vg &&
		expect_ge 300 "$(wc -c <$output)" "bytes written to $output"
	'
done

test_expect_success 'sampler-export of a truncated profile: partial, clean' '
	head -c $(( $(stat -c %s fe.bz2) / 2 )) fe.bz2 >cut.bz2 &&
	memcheck cut "$EXPORT" --format csv -o cut.csv cut.bz2 2>/dev/null &&
	expect_eq 2 "$rc" "status (2: partial)" &&
	valgrind_clean cut.vg
'

test_done
