#!/bin/bash
# The recorder follows fork and exec: each process has its own record,
# command name, arguments and maps.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/recorder-lib.sh"

# The first and second process of the fork-exec profile.
parent_pid() { field_values fe.txt process pid | head -1; }
child_pid() { field_values fe.txt process pid | sed -n 2p; }

test_expect_success 'fork then exec: two processes, parent and child' '
	"$SAMPLER" -f 1000 -o fe -- "$EXAMPLES/forkexec" 0.3 >out &&
	expect_grep "exited 0" out &&
	dump fe &&
	expect_eq 2 "$(records fe.txt process)" "process records" &&
	expect_eq 2 "$(stat_of fe.txt processes)" "stats processes" &&
	parent=$(parent_pid) && child=$(child_pid) &&
	expect_grep "^process pid=$child ppid=$parent " fe.txt &&
	expect_eq "$parent $child" "$(field_values fe.txt ts pid | sort -u -n | tr "\n" " " | sed "s/ \$//")" "pids sampled"
'

test_expect_success 'fork then exec: the child exec record has the new name and arguments' '
	parent=$(parent_pid) && child=$(child_pid) &&
	expect_grep "^exec pid=$child .*comm=busy argv=busy%200.3\$" fe.txt &&
	expect_grep "^exec pid=$parent .*comm=forkexec " fe.txt
'

test_expect_success 'fork then exec: the child has the maps of the new image' '
	parent=$(parent_pid) && child=$(child_pid) &&
	expect_grep "^map pid=$child .*prot=r-x path=.*/examples/busy\$" fe.txt &&
	expect_no_grep "^map pid=$parent .*path=.*/examples/busy\$" fe.txt &&
	exec_line=$(grep -n "^exec pid=$child .*comm=busy" fe.txt | cut -d: -f1) &&
	busy_map=$(grep -n "^map pid=$child .*r-x path=.*/examples/busy\$" fe.txt | head -1 | cut -d: -f1) &&
	expect_ge "$exec_line" "$busy_map" "line of the first busy map (after the exec)"
'

test_expect_success 'fork then exec: each process ends with a whole-process exit' '
	parent=$(parent_pid) && child=$(child_pid) &&
	expect_grep "^exit tid=$child pid=$child .*whole=1" fe.txt &&
	expect_grep "^exit tid=$parent pid=$parent .*whole=1" fe.txt &&
	check_snapshots fe.txt
'

test_expect_success 'a shell pipeline: every process is followed' '
	"$SAMPLER" -f 1000 -o sh -- sh -c "\"$EXAMPLES/busy\" 0.1 | cat; \"$EXAMPLES/exit3\" 0.05" ||
	expect_eq 3 "$?" "exit status" &&
	dump sh &&
	expect_eq 4 "$(records sh.txt process)" "processes (sh, busy, cat, exit3)" &&
	expect_grep "^exec .*comm=busy " sh.txt &&
	expect_grep "^exec .*comm=cat " sh.txt &&
	expect_grep "^exec .*comm=exit3 " sh.txt
'

test_expect_success 'exec from a second thread: the other threads end, the leader pid goes on' '
	"$SAMPLER" -f 2000 -o te -- "$EXAMPLES/thread-exec" 0.1 &&
	dump te &&
	pid=$(field_values te.txt process pid) &&
	expect_eq 1 "$(records te.txt process)" "process records" &&
	expect_grep "^exec pid=$pid .*comm=busy argv=busy%200.2\$" te.txt &&
	expect_eq 3 "$(grep -c "^exit .* whole=0" te.txt)" "threads ended by the exec" &&
	expect_eq "$pid" "$(sed -n "/comm=busy/,\$ p" te.txt | field_values /dev/stdin ts tid | sort -u)" "tid sampled after the exec" &&
	expect_grep "^map pid=$pid .*r-x path=.*/examples/busy\$" te.txt &&
	check_snapshots te.txt
'

test_expect_success 'vfork and posix_spawn children are followed; the waiting parent stays in every sample' '
	"$SAMPLER" -f 2000 -o spawn -- "$EXAMPLES/spawn" 10 >out &&
	expect_eq "ok=20" "$(cat out)" "children that ran" &&
	dump spawn &&
	expect_eq 21 "$(records spawn.txt process)" "process records" &&
	expect_eq 20 "$(grep -c "^exec .*comm=true argv=true\$" spawn.txt)" "exec records of /bin/true" &&
	check_snapshots spawn.txt
'

test_done
