#!/bin/sh
# t4630-scripts-fulldisk.sh - the scripts on a full disk (19.12): the error
# names the file that could not be written and why, and no temporary file
# stays behind (the output's .NAME.XXXXXXXX, the cache's .json.tmpPID).
# The full disk is a 64 KB tmpfs filled up, mounted in a private mount
# namespace (unshare -m: root only); stdout on /dev/full needs neither.
. "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
REPORT="$PY $ROOT/scripts/sampler-report"
COMPARE="$PY $ROOT/scripts/sampler-compare"
DEEP="$PY $ROOT/tests/scripts/deepstacks.py"
export SAMPLER_BIN_DIR=$BUILD
export XDG_CACHE_HOME="$TRASH/cache"
if ! $PY -c 'import numpy' 2>/dev/null; then
	test_skip 'scripts on a full disk' 'python3-numpy is not installed'
	test_done
	exit
fi
if ! command -v gcc >/dev/null || ! command -v nm >/dev/null; then
	test_skip 'scripts on a full disk' 'gcc and nm are needed to build the test program'
	test_done
	exit
fi
test_lazy_prereq FULLDISK 'unshare -m sh -c "mkdir -p probe && mount -t tmpfs -o size=64k tmpfs probe"'
test_lazy_prereq DEVFULL 'test -c /dev/full'

# on_full_disk COMMAND...: run COMMAND (a shell command line) with "full"
# a full file system; its status goes to status, the files full holds
# (but the filler) to left.
on_full_disk() {
	mkdir -p full &&
	unshare -m sh -c '
		mount -t tmpfs -o size=64k tmpfs full || exit 99
		dd if=/dev/zero of=full/filler bs=4096 count=64 2>/dev/null
		mkdir -p full/cache 2>/dev/null
		eval "$1"
		echo $? >status
		find full -type f ! -path full/filler >left
		true' sh "$*"
}

test_expect_success 'setup: a profile with stacks' '
	$DEEP --bin "$BUILD" p.prof 5 20
'

test_expect_success FULLDISK 'report -o on a full disk: the file named, no temporary left' '
	on_full_disk "$REPORT -o full/r.txt p.prof 2>err" &&
	expect_eq 1 "$(cat status)" "exit status" &&
	expect_grep "^sampler-report: error: cannot write full/r.txt: No space left on device (free space" err &&
	expect_empty "$(cat left)" "files left in full/" &&
	on_full_disk "$REPORT --tree --json -o full/t.json p.prof 2>err" &&
	expect_eq 1 "$(cat status)" "exit status of --tree" &&
	expect_grep "cannot write full/t.json: No space left on device" err &&
	expect_empty "$(cat left)" "files left in full/ by --tree" &&
	on_full_disk "$REPORT -o full/r.txt.bz2 p.prof 2>err" &&
	expect_grep "cannot write full/r.txt.bz2: No space left on device" err &&
	expect_empty "$(cat left)" "files left in full/ by a .bz2 output"
'

test_expect_success FULLDISK 'compare -o on a full disk: the file named, no temporary left' '
	on_full_disk "$COMPARE -o full/c.txt p.prof p.prof 2>err" &&
	expect_eq 1 "$(cat status)" "exit status" &&
	expect_grep "^sampler-compare: error: cannot write full/c.txt: No space left on device" err &&
	expect_empty "$(cat left)" "files left in full/"
'

test_expect_success FULLDISK 'a cache on a full disk: the report still comes, no half entry left' '
	on_full_disk "XDG_CACHE_HOME=full/cache $REPORT p.prof >out 2>err" &&
	expect_eq 0 "$(cat status)" "exit status" &&
	expect_grep "leaf" out &&
	expect_empty "$(cat left)" "files left in full/ and its cache"
'

test_expect_success DEVFULL 'stdout on /dev/full: one line naming the standard output' '
	run_status $REPORT --no-cache p.prof >/dev/full 2>err &&
	expect_eq 1 "$rc" "exit status" &&
	expect_eq "sampler-report: error: cannot write the standard output: No space left on device (free space on its file system or write elsewhere)" "$(cat err)" "the error"
'

test_expect_success 'report -o and plot -o a character device: written to, never replaced by a file' '
	mknod -m 666 nul c 1 3 &&
	$REPORT -o nul p.prof &&
	$REPORT --tree -o nul p.prof &&
	mknod -m 666 nul.svg c 1 3 &&
	$PY "$ROOT/scripts/sampler-plot" --kind flame -o nul.svg p.prof &&
	test -c nul && test -c nul.svg &&
	expect_empty "$(ls -A | grep "^\.nul")" "temporaries beside nul"
'

test_done
