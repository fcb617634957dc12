#!/bin/bash
# Decompression bombs (issue 11, #8): every C reader refuses them with one
# clear error as soon as it can tell, in bounded memory.  Before, 10 GiB of
# valid empty chunks in a 1 MB file kept sampler-export --info busy for
# minutes, and 4 GiB of zeros after a pperf header for two.
. "$(dirname "$0")/lib.sh"

BOMBS="/usr/bin/python3 $ROOT/tests/hardening/make-bombs.py"

# Run a command: its status in $rc (124: it hung), stderr in NAME.err, its
# peak RSS (kB) in $rss.
measure() {	# name command...
	local name=$1
	shift
	run_status /usr/bin/time -f %M -o "$name.rss" timeout 300 "$@" >/dev/null 2>"$name.err"
	rss=$(tail -1 "$name.rss")
}

# Every reader answers FILE with status STATUS (export; dump: 1) and an
# error matching PATTERN, in at most 32 MB more than it needs for a small
# valid profile.  A sanitizer build keeps freed memory in quarantine (each
# bzip2 stream allocates and frees up to 3.6 MB): there only the answer is
# checked, the plain pass checks the memory.
RSS_SLACK=32768
nm "$EXPORT" 2>/dev/null | grep -q __asan_init && RSS_SLACK=100000000
refuses() {	# file status pattern
	local f=$1 status=$2 pattern=$3 how small
	for how in "$EXPORT --info" "$EXPORT -o out.perf" "$EXPORT --format csv -o out.csv" \
		   "$BUILD/sampler-profile dump"; do
		measure small $how small.prof && small=$rss &&
		measure bomb $how "$f" &&
		want=$status && case $how in *dump) want=1 ;; esac &&
		expect_eq "$want" "$rc" "status of $how" &&
		expect_grep "$pattern" bomb.err &&
		expect_le $(( small + RSS_SLACK )) "$rss" "peak RSS (kB) of $how" || return 1
	done
}

test_expect_success 'setup: the bombs, and a small valid profile to compare with' '
	$BOMBS empty-chunks 10240 empty-chunks.bz2 &&
	$BOMBS records 1024 records.bz2 &&
	$BOMBS zeros 4096 zeros.bz2 &&
	$BOMBS pperf-zeros 4096 pperf-zeros.bz2 &&
	expect_le 1500000 "$(stat -c %s empty-chunks.bz2)" "bytes holding 10 GiB" &&
	expect_le 20000 "$(stat -c %s zeros.bz2)" "bytes holding 4 GiB" &&
	"$SAMPLER" -f 200 -o small.prof -- "$EXAMPLES/busy" 0.1
'

test_expect_success '10 GiB of valid empty chunks: refused at the first' '
	refuses empty-chunks.bz2 2 "corrupt profile at byte offset 48 of the decompressed data: empty chunk"
'

test_expect_success '1 GiB of valid one-record chunks (12 bytes each): refused as a bomb' '
	refuses records.bz2 2 "the bzip2 data expands more than 1000-fold (64 MiB from [0-9]* kB): a decompression bomb"
'

test_expect_success '4 GiB of zeros in 12 kB: no profile, at once' '
	refuses zeros.bz2 1 "starts with 36 zero bytes inside the bzip2 data: not a profile"
'

test_expect_success 'a pperf header claiming 2^40 samples, then 4 GiB of zeros: refused as a bomb' '
	refuses pperf-zeros.bz2 2 "expands more than 1000-fold"
'

test_expect_success 'a recorded bzip2 profile is far below the limit' '
	"$SAMPLER" -f 1000 -o idle.bz2 -- sh -c "sleep 1 & sleep 1 & wait" &&
	"$BUILD/sampler-profile" dump idle.bz2 >idle.dump &&
	expect_le 20 "$(( $(bzip2 -dc idle.bz2 | wc -c) / $(stat -c %s idle.bz2) ))" "expansion of an idle run"
'

test_done
