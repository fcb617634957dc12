#!/bin/bash
# A stripped binary whose symbols are in a separate debug file named by
# its .gnu_debuglink (issue 44 #12): the exporter follows the link where
# gdb and perf do (beside the file, in .debug/ there, under /usr/lib/debug
# with the file's directory) and takes the debug file only when its CRC-32
# is the one the link gives.  Before, every frame of the binary was [dl]
# (perf report: main).
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/recorder-lib.sh"

. "$ROOT/tests/rebuild-lib.sh"

# (folded names a frame without a symbol by its file, as perf does: [dl])
test_expect_success CC 'setup: dl stripped, its symbols in dl.debug, linked; recorded with -g' '
	write_app dl.c &&
	cc -O1 -g -fno-omit-frame-pointer -o dl dl.c &&
	objcopy --only-keep-debug dl dl.debug &&
	objcopy --strip-all dl &&
	objcopy --add-gnu-debuglink=dl.debug dl &&
	expect_empty "$(nm dl 2>/dev/null)" "symbols left in dl" &&
	expect_grep "dl.debug" "$(readelf -p .gnu_debuglink dl >link.txt; echo link.txt)" &&
	"$SAMPLER" -g -f 500 -o p -- ./dl 2>err
'

test_expect_success CC 'the debug file beside dl names main and work' '
	"$EXPORT" --format folded p >beside.folded 2>beside.err &&
	expect_grep "main;work" beside.folded &&
	expect_no_grep "\[dl\]" beside.folded &&
	expect_empty "$(cat beside.err)" "stderr"
'

test_expect_success CC 'in .debug/ beside dl, and (root) under /usr/lib/debug with dl'"'"'s directory' '
	mkdir .debug && mv dl.debug .debug/ &&
	"$EXPORT" --format folded p >dotdebug.folded &&
	expect_grep "main;work" dotdebug.folded &&
	if [ "$(id -u)" = 0 ]; then
		mkdir -p "/usr/lib/debug$PWD" &&
		test_when_finished "rm -rf \"/usr/lib/debug$TRASH\"" &&
		mv .debug/dl.debug "/usr/lib/debug$PWD/" &&
		"$EXPORT" --format folded p >global.folded &&
		expect_grep "main;work" global.folded &&
		mv "/usr/lib/debug$PWD/dl.debug" .
	else
		mv .debug/dl.debug .
	fi
'

test_expect_success CC 'a debug file of another build (its CRC not the link'"'"'s) is not used' '
	cp dl.debug good.debug &&
	cc -O1 -g -fno-omit-frame-pointer "-DPAD=$pad" -o other dl.c &&
	objcopy --only-keep-debug other dl.debug &&
	"$EXPORT" --format folded p >other.folded &&
	expect_no_grep "pad_fn" other.folded &&
	expect_no_grep "main;work" other.folded &&
	expect_grep "\[dl\]" other.folded &&
	mv good.debug dl.debug
'

test_expect_success CC 'the symbol cache made before the debug file came is not used after' '
	mv dl.debug away.debug &&
	"$EXPORT" --format folded p >nodebug.folded &&
	expect_grep "\[dl\]" nodebug.folded &&
	mv away.debug dl.debug &&
	"$EXPORT" --format folded p >cached.folded &&
	expect_grep "main;work" cached.folded
'

test_expect_success CC,PERF 'perf report of the export names main and work too (the oracle)' '
	"$EXPORT" -o p.data p 2>/dev/null &&
	perf report -i p.data --stdio --sort sym 2>/dev/null >report &&
	expect_grep "\] work" report
'

test_done
