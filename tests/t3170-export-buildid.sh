#!/bin/bash
# Symbols come from the file that was recorded (issue 19 #3): the profile
# keeps each mapped file's build ID, and the exporter reads a file only
# when its build ID is the recorded one (else perf's build-id cache, else
# [unknown] with one warning naming the file).  Before, a rebuild with one
# more function placed first made the folded export show pad_fn where
# main was, and perf.data carried the new file's build ID.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/recorder-lib.sh"

. "$ROOT/tests/rebuild-lib.sh"

test_expect_success CC 'setup: app recorded with -g, then rebuilt with pad_fn first' '
	write_app app.c &&
	cc -O1 -g -fno-omit-frame-pointer -o app app.c &&
	"$SAMPLER" -g -f 500 -o p -- ./app 2>err &&
	dump p &&
	recorded=$(awk "\$1 == \"map\" && / path=.*\\/app$/ && / prot=r-x / { for (i = 2; i <= NF; i++) if (\$i ~ /^build_id=/) print substr(\$i, 10) }" p.txt | sort -u) &&
	expect_eq 40 "${#recorded}" "length of the recorded build ID (hex)" &&
	"$EXPORT" --format folded p >before.folded &&
	expect_grep "main;work" before.folded &&
	rm app && cc -O1 -g -fno-omit-frame-pointer "-DPAD=$pad" -o app app.c &&
	nm app | grep -q " T pad_fn" &&
	echo "$recorded" >recorded.id
'

# (folded names a frame without a symbol by its file, as perf does: [app])
test_expect_success CC 'folded after the rebuild: unknown in app, not pad_fn, and one warning naming the file' '
	HOME=$PWD/home "$EXPORT" --format folded p >after.folded 2>after.err &&
	expect_no_grep "pad_fn" after.folded &&
	expect_no_grep "main;work" after.folded &&
	expect_grep "__libc_start_call_main;\[app\];\[app\] " after.folded &&
	expect_eq 1 "$(grep -c "app: not the file that was recorded (build ID $(cat recorded.id))" after.err)" \
		"warnings naming app" &&
	expect_eq 1 "$(wc -l <after.err)" "lines on stderr"
'

test_expect_success CC 'the build-id cache (~/.debug) gives the recorded file its names back' '
	mkdir -p home && cp app app.new && rm app &&
	cc -O1 -g -fno-omit-frame-pointer -o app app.c &&
	id=$(cat recorded.id) &&
	mkdir -p "home/.debug/.build-id/${id%"${id#??}"}/${id#??}" &&
	cp app "home/.debug/.build-id/${id%"${id#??}"}/${id#??}/elf" &&
	cp app.new app &&
	HOME=$PWD/home "$EXPORT" --format folded p >cached.folded 2>cached.err &&
	expect_eq "$(functions before.folded)" "$(functions cached.folded)" "functions" &&
	expect_empty "$(cat cached.err)" "stderr"
'

test_expect_success CC 'perf.data carries the recorded build ID, not the new file'"'"'s' '
	HOME=$PWD/nohome "$EXPORT" -o p.data p 2>/dev/null &&
	od -An -tx1 -v p.data | tr -d " \n" >p.hex &&
	new=$(readelf -n app | awk "/Build ID/ { print \$3 }") &&
	expect_eq 40 "${#new}" "length of the new build ID (hex)" &&
	expect_eq 1 "$(grep -c "$(cat recorded.id)" p.hex)" "perf.data holding the recorded build ID" &&
	expect_eq 0 "$(grep -c "$new" p.hex)" "perf.data holding the new file'"'"'s build ID"
'

test_expect_success CC,PERF 'perf buildid-list names app with the recorded build ID' '
	perf buildid-list -i p.data >ids 2>/dev/null &&
	expect_grep "^$(cat recorded.id) .*/app$" ids
'

# The binary swapped with mv while it runs: the map records hold the build
# ID of the file that was mapped (read through /proc/PID/map_files, which
# root may open), not of the one at the path.
test_expect_success CC,ROOT 'a binary replaced with mv during the run: its recorded build ID is the running one' '
	cc -O1 -g -fno-omit-frame-pointer -o run app.c &&
	cc -O1 -g -fno-omit-frame-pointer "-DPAD=$pad" -o other app.c &&
	want=$(readelf -n run | awk "/Build ID/ { print \$3 }") &&
	"$SAMPLER" -g -f 500 -o m -- sh -c "./run started & while [ ! -e started ]; do sleep 0.01; done; mv other run; wait" 2>/dev/null &&
	dump m &&
	expect_eq "$want" "$(awk "\$1 == \"map\" && / path=.*\\/run$/ { for (i = 2; i <= NF; i++) if (\$i ~ /^build_id=/) print substr(\$i, 10) }" m.txt | sort -u)" \
		"build IDs recorded for run" &&
	HOME=$PWD/nohome "$EXPORT" --format folded m >m.folded 2>m.err &&
	expect_no_grep "pad_fn" m.folded &&
	expect_grep "run.*: not the file that was recorded" m.err
'

test_expect_success 'a profile without build IDs (format version 2) still reads and exports' '
	"$BUILD/sampler-profile" dump "$ROOT/fuzz/corpus/native-stacks" >old.txt &&
	expect_eq 0 "$(grep -c "build_id=" old.txt)" "build IDs in the old profile" &&
	"$EXPORT" --format folded "$ROOT/fuzz/corpus/native-stacks" >old.folded &&
	expect_ge 1 "$(wc -l <old.folded)" "folded lines"
'

test_done
