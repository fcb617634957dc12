#!/bin/bash
# Thread names (issue 9): each thread's /proc/PID/task/TID/comm is recorded
# at its first stop, when the recorder sees it renamed (it looks at one
# thread every 8 samples) and at its exit
# (name records, native version 2); the exporter gives perf a COMM per
# thread, so perf report --sort comm and perf script show the names a
# program set with pthread_setname_np.  Version 1 profiles still read.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/recorder-lib.sh"

PROFILE=$BUILD/sampler-profile

test_expect_success 'record a program whose threads name themselves' '
	"$SAMPLER" -f 500 -o n.prof -- "$EXAMPLES/named-threads" 1.5 >out &&
	expect_eq "named-threads: done" "$(cat out)" &&
	"$PROFILE" dump n.prof >n.dump &&
	expect_ge "$(min_samples 1.5)" "$(grep -c "^sample " n.dump)" "samples"
'

# tid of the thread a name record gave NAME.
tid_named() {
	sed -n "s/^name tid=\([0-9]*\) .* comm=$1\$/\1/p" n.dump | head -1
}

test_expect_success 'dump: every thread named at its first stop, then its own names, renames in order' '
	pid=$(sed -n "s/^process pid=\([0-9]*\) ppid=0 .*/\1/p" n.dump) &&
	expect_eq 3 "$(grep -c "^thread " n.dump)" "threads" &&
	grep -A1 "^thread " n.dump | grep "^name " >first &&
	expect_eq 3 "$(grep -c "comm=named-threads\$" first)" "threads named as their creator at their first stop" &&
	energy=$(tid_named worker-energy) && one=$(tid_named phase-one) && two=$(tid_named phase-two) &&
	test -n "$energy" && test -n "$one" &&
	expect_eq "$one" "$two" "tid of phase-one and phase-two" &&
	expect_eq "named-threads worker-energy" "$(sed -n "s/^name tid=$energy .* comm=//p" n.dump | tr "\n" " " | sed "s/ \$//")" \
		"names of $energy" &&
	expect_eq "named-threads phase-one phase-two" "$(sed -n "s/^name tid=$one .* comm=//p" n.dump | tr "\n" " " | sed "s/ \$//")" \
		"names of $one" &&
	expect_eq "named-threads" "$(sed -n "s/^name tid=$pid .* comm=//p" n.dump)" "name of the main thread" &&
	awk -v t=$one "/^name tid=/ && \$2 == \"tid=\" t { last = NR } /^exit / && \$2 == \"tid=\" t { exit !(last && last < NR) }" n.dump
'

test_expect_success 'build from the dump gives back the name records' '
	"$PROFILE" build n2.prof <n.dump &&
	"$PROFILE" dump n2.prof | cmp - n.dump
'

test_expect_success 'the CSV export names each renamed thread by its last name' '
	pid=$(sed -n "s/^process pid=\([0-9]*\) ppid=0 .*/\1/p" n.dump) &&
	energy=$(tid_named worker-energy) && one=$(tid_named phase-one) &&
	"$EXPORT" --format csv -o n.csv n.prof &&
	grep "^# thread " n.csv >threads.csv &&
	expect_eq 2 "$(wc -l <threads.csv)" "thread lines (the main thread keeps its process name)" &&
	expect_grep "^# thread pid=$pid tid=$energy comm=worker-energy\$" threads.csv &&
	expect_grep "^# thread pid=$pid tid=$one comm=phase-two\$" threads.csv
'

test_expect_success PERF 'perf report --sort comm: the threads under their names' '
"$EXPORT" -o n.data n.prof &&
perf report -i n.data --stdio --sort comm >comm.txt 2>comm.err &&
expect_empty "$(cat comm.err)" "perf report stderr" &&
awk "/^# Samples:/ { n++ } n == 1 && /%/ { sub(/%/, \"\", \$1); print \$2, \$1 }" comm.txt >cpu-shares &&
cat cpu-shares &&
expect_ge 25 "$(awk "\$1 == \"worker-energy\" { print \$2 }" cpu-shares)" "cpu-time share of worker-energy" &&
expect_ge 5 "$(awk "\$1 == \"phase-one\" { print \$2 }" cpu-shares)" "cpu-time share of phase-one" &&
expect_grep "^phase-two " cpu-shares
'

test_expect_success PERF 'perf script: each name on its own thread, phase-two after phase-one' '
energy=$(tid_named worker-energy) && one=$(tid_named phase-one) &&
perf script -i n.data -F comm,tid,time,event >script.txt 2>script.err &&
expect_empty "$(cat script.err)" "perf script stderr" &&
expect_eq "$energy" "$(awk "\$1 == \"worker-energy\" { print \$2 }" script.txt | sort -u)" "tids of worker-energy samples" &&
expect_eq "$one" "$(awk "\$1 ~ /^phase-/ { print \$2 }" script.txt | sort -u)" "tids of phase samples" &&
awk "\$1 == \"phase-two\" && !two { two = \$3 } \$1 == \"phase-one\" { one = \$3 } END { exit !(two && one && one < two) }" script.txt &&
perf script -i n.data --show-task-events -F comm,tid >tasks.txt 2>&1 &&
expect_grep "PERF_RECORD_COMM: worker-energy:[0-9]*/$energy" tasks.txt &&
expect_grep "PERF_RECORD_COMM: phase-two:[0-9]*/$one" tasks.txt
'

test_expect_success 'a version 1 profile (no name records) still reads; a name record in one is corrupt' '
	grep -v "^name " n.dump | sed "s/ build_id=[0-9a-f]*//; s/ file_[a-z]*=[0-9]*//g; s/^\(process .*\) start=[0-9]*/\1/; s/ runs=1//; s/ run=[0-9,]*//; s/ n\{0,1\}clock[a-z_]*=[^ ]*//g" | "$PROFILE" build v1.prof &&
	printf "\001" | dd of=v1.prof bs=1 seek=8 conv=notrunc 2>/dev/null &&
	"$PROFILE" dump v1.prof >v1.dump &&
	expect_eq "$(grep -vc "^name " n.dump)" "$(wc -l <v1.dump)" "records of the version 1 profile" &&
	sed "s/ build_id=[0-9a-f]*//; s/ file_[a-z]*=[0-9]*//g; s/^\(process .*\) start=[0-9]*/\1/; s/ runs=1//; s/ run=[0-9,]*//; s/ n\{0,1\}clock[a-z_]*=[^ ]*//g" n.dump | "$PROFILE" build n1.prof &&
	printf "\001" | dd of=n1.prof bs=1 seek=8 conv=notrunc 2>/dev/null &&
	run_status "$PROFILE" dump n1.prof >/dev/null 2>n1.err &&
	expect_eq 1 "$rc" "status" &&
	expect_grep "unknown record type 9" n1.err &&
	cp n.prof n5.prof && printf "\010" | dd of=n5.prof bs=1 seek=8 conv=notrunc 2>/dev/null &&
	run_status "$PROFILE" dump n5.prof >/dev/null 2>n5.err &&
	expect_grep "profile format version 8, this reader knows versions 1-7" n5.err
'

test_done
