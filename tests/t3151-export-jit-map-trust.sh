#!/bin/bash
# Which /tmp/perf-PID.map names a process's JIT frames (issue 44 #11): one
# of ours or root's, as perf rules, and one written since the process
# started (the profile records its start, format version 7); else the
# file is ignored with one warning saying why.  Before, a file of another
# user was ignored silently and one left by an earlier process with the
# same pid named the frames.  The file's type is checked before it is
# opened, and a symlink is not followed.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/recorder-lib.sh"

NAME='LazyCompile:*hot_loop /srv/app.js:12'

test_lazy_prereq X86_64 '
	test "$(uname -m)" = x86_64 || { echo "examples/jitmap generates x86-64 code"; exit 1; }
'
test_have_prereq X86_64 || { skip_all="missing $test_missing_"; test_done; }

test_atexit 'rm -f "$(cat "$TRASH/mapfile" 2>/dev/null)"'	# a JIT leaves it

# named FOLDED: the samples whose stack ends in the JIT function.
named() {
	grep -F ";$NAME " "$1" | awk '{ s += $NF } END { print s + 0 }'
}

test_expect_success 'setup: the JIT example recorded; its map names most samples' '
	"$SAMPLER" -g -o p.prof -- "$EXAMPLES/jitmap" 0.4 >out 2>/dev/null &&
	map=$(sed -n "s/^pid=[0-9]* map=//p" out) &&
	echo "$map" >mapfile && cp "$map" good.map &&
	dump p.prof &&
	start=$(sed -n "s/^process .* start=\([0-9]*\).*/\1/p" p.prof.txt) &&
	time=$(sed -n "s/^process .* time=\([0-9]*\).*/\1/p" p.prof.txt) &&
	expect_le "$time" "$start" "recorded start (ns, not after the process record)" &&
	expect_ge $((time - 1000000000)) "$start" "recorded start (within 1 s of the record)" &&
	"$EXPORT" --format folded p.prof >good.folded 2>good.err &&
	total=$(awk "{ s += \$NF } END { print s + 0 }" good.folded) &&
	expect_ge $((total / 2)) "$(named good.folded)" "samples named $NAME (of $total)" &&
	expect_empty "$(cat good.err)" "stderr"
'

test_expect_success 'a map last written before the process started: ignored, one warning' '
	map=$(cat mapfile) &&
	test_when_finished "touch \"$map\"" &&
	touch -d "@$(( $(date +%s) - 3600 ))" "$map" &&
	"$EXPORT" --format folded p.prof >stale.folded 2>stale.err &&
	expect_eq 0 "$(named stale.folded)" "samples named from the stale map" &&
	expect_eq 1 "$(grep -c "^sampler-export: warning: $map: last written 3[56][0-9][0-9]\.[0-9]* s before process [0-9]* started: left by an earlier process" stale.err)" "warnings" &&
	expect_eq 1 "$(wc -l <stale.err)" "lines on stderr"
'

test_expect_success ROOT 'a map of another user: ignored with perf'"'"'s warning' '
	map=$(cat mapfile) &&
	chown 65534 "$map" &&
	"$EXPORT" --format folded p.prof >other.folded 2>other.err &&
	chown 0 "$map" &&
	expect_eq 0 "$(named other.folded)" "samples named from the map of uid 65534" &&
	expect_eq 1 "$(grep -c "$map: owned by uid 65534, not by you (uid 0) or root: ignored" other.err)" "warnings" &&
	expect_eq 1 "$(wc -l <other.err)" "lines on stderr"
'

nobody() {
	setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
}

test_expect_success ROOT 'unprivileged: root'"'"'s map is used, another user'"'"'s is not' '
	map=$(cat mapfile) &&
	chmod 644 p.prof "$map" &&
	nobody "$EXPORT" --format folded p.prof >root.folded 2>root.err &&
	expect_ge $((total = $(awk "{ s += \$NF } END { print s + 0 }" root.folded), total / 2)) \
		"$(named root.folded)" "samples named from root'"'"'s map" &&
	chown 1234 "$map" &&
	nobody "$EXPORT" --format folded p.prof >nobody.folded 2>nobody.err &&
	chown 0 "$map" &&
	expect_eq 0 "$(named nobody.folded)" "samples named from the map of uid 1234" &&
	expect_eq 1 "$(grep -c "owned by uid 1234, not by you (uid 65534) or root" nobody.err)" "warnings"
'

test_expect_success 'a symlink at the map'"'"'s path is not followed' '
	map=$(cat mapfile) &&
	rm "$map" && ln -s "$TRASH/good.map" "$map" &&
	"$EXPORT" --format folded p.prof >link.folded 2>link.err &&
	rm "$map" && cp good.map "$map" &&
	expect_eq 0 "$(named link.folded)" "samples named through the symlink"
'

# A writer opening a FIFO blocks until a reader opens it: the export must
# not be that reader (nor block, nor read from it).
test_expect_success 'a FIFO at the map'"'"'s path is not opened' '
	map=$(cat mapfile) &&
	rm "$map" && mkfifo "$map" &&
	test_when_finished "rm -f \"$map\"; cp \"$TRASH/good.map\" \"$map\"" &&
	timeout -s KILL 10 sh -c "exec 3>\"$map\"; echo opened >writer.out" 2>/dev/null & writer=$! &&
	timeout 60 "$EXPORT" --format folded p.prof >fifo.folded 2>fifo.err &&
	{ wait $writer || :; } &&
	expect_empty "$(cat writer.out 2>/dev/null)" "the writer, unblocked by an open" &&
	expect_eq 0 "$(named fifo.folded)" "samples named from the FIFO"
'

test_expect_success 'a symbol cache entry that is a symlink is not read (it is rewritten)' '
	"$EXPORT" --format folded p.prof >/dev/null 2>&1 &&
	entry=$(ls "$SAMPLER_CACHE_DIR"/*.sym | head -n 1) &&
	mv "$entry" saved.sym && ln -s "$TRASH/saved.sym" "$entry" &&
	"$EXPORT" --format folded p.prof >cache.folded 2>&1 &&
	test ! -L "$entry" && test -f "$entry"
'

test_done
