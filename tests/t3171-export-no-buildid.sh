#!/bin/bash
# A file without a build ID (issue 44 #1): the map records keep the mapped
# file's size and mtime, and the exporter reads the file at the path only
# while it has them (else [unknown] with one warning naming the file), as
# it does with build IDs (t3170).  Before, a binary linked with
# -Wl,--build-id=none and rebuilt with pad_fn placed first showed pad_fn
# where work was, silently.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/recorder-lib.sh"

. "$ROOT/tests/rebuild-lib.sh"
build() {
	cc -O1 -g -fno-omit-frame-pointer -Wl,--build-id=none "$@" -o app app.c
}

test_expect_success CC 'setup: app without a build ID, recorded with -g' '
	write_app app.c && build &&
	expect_empty "$(readelf -n app | grep "Build ID")" "build ID notes in app" &&
	"$SAMPLER" -g -f 500 -o p -- ./app 2>err &&
	dump p &&
	awk "\$1 == \"map\" && / path=.*\\/app$/ && / prot=r-x /" p.txt >app.maps &&
	expect_ge 1 "$(wc -l <app.maps)" "executable maps of app" &&
	expect_no_grep "build_id=" app.maps
'

test_expect_success CC 'the map records hold the file'"'"'s size and mtime (stat)' '
	expect_eq "$(stat -c %s app)" "$(sed -n "s/.* file_size=\([0-9]*\) .*/\1/p" app.maps | sort -u)" "size" &&
	mtime=$(sed -n "s/.* file_mtime=\([0-9]*\) .*/\1/p" app.maps | sort -u) &&
	expect_eq "$(stat -c %Y app)" "${mtime%?????????}" "mtime (s)"
'

test_expect_success CC 'the same file: work is named, no warning' '
	"$EXPORT" --format folded p >before.folded 2>before.err &&
	expect_grep "main;work" before.folded &&
	expect_empty "$(cat before.err)" "stderr"
'

test_expect_success CC 'rebuilt with pad_fn first: unknown in app, not pad_fn, and one warning' '
	rm app && build "-DPAD=$pad" && nm app | grep -q " T pad_fn" &&
	"$EXPORT" --format folded p >after.folded 2>after.err &&
	expect_no_grep "pad_fn" after.folded &&
	expect_no_grep "main;work" after.folded &&
	expect_grep "\[app\];\[app\] " after.folded &&
	expect_eq 1 "$(grep -c "app: not the file that was recorded ([0-9]* bytes, modified .*; now $(stat -c %s app) bytes" after.err)" \
		"warnings naming app" &&
	expect_eq 1 "$(wc -l <after.err)" "lines on stderr"
'

test_expect_success CC 'the recorded build back (cp -p keeps the mtime): named again' '
	rm app && build && touch -d "@$(sed -n "s/.* file_mtime=\([0-9]*\)\([0-9]\{9\}\) .*/\1.\2/p" app.maps | sort -u)" app &&
	"$EXPORT" --format folded p >back.folded 2>back.err &&
	expect_grep "main;work" back.folded &&
	expect_empty "$(cat back.err)" "stderr"
'

test_expect_success 'a map line with file_size and file_mtime round-trips through build and dump' '
	"$BUILD/sampler-profile" dump "$ROOT/fuzz/corpus/native-stacks" >old.txt &&
	expect_eq 0 "$(grep -c "file_mtime=" old.txt)" "stamps in the old profile" &&
	expect_ge 1 "$(grep -c "^map " old.txt)" "map lines in the old profile" &&
	sed "/^map / s/ prot=/ file_size=1234 file_mtime=1700000000123456789 prot=/" old.txt >new.txt &&
	"$BUILD/sampler-profile" build new.prof <new.txt &&
	"$BUILD/sampler-profile" dump new.prof >again.txt &&
	expect_eq "$(grep -c "^map .* file_size=1234 file_mtime=1700000000123456789 prot=" new.txt)" \
		"$(grep -c "^map .* file_size=1234 file_mtime=1700000000123456789 prot=" again.txt)" "stamped map lines"
'

test_done
