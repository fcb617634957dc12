#!/bin/bash
# Compactness: a steady run costs at most 8 bytes per thread-sample (the
# original layout spends 20).  Synthetic but realistic data: 1 kHz with
# 5-65 us of stop latency, a few hot PCs and now and then a cold one,
# CPU deltas of 0.94-1 ms (tests/format/profile-synth.c).
. "$(dirname "$0")/lib.sh"

SYNTH=$BUILD/tests/profile-synth
PROFILE=$BUILD/sampler-profile

value_of() {	# key line
	printf '%s\n' "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"
}

for threads in 1 4 16; do
	test_expect_success "$threads thread(s): <= 8 bytes per thread-sample" '
		line=$("$SYNTH" write steady.prof '$threads' 20000) &&
		echo "# $line" >&3 &&
		expect_le 8 "$(value_of bytes_per_thread_sample "$line")" "bytes per thread-sample" &&
		expect_eq $((20000 * '$threads')) "$(value_of thread_samples "$("$SYNTH" read steady.prof)")" "thread-samples read back"
	' 3>&1
done

test_expect_success 'bzip2 makes a steady run smaller still' '
	"$SYNTH" write steady.prof 4 20000 >/dev/null &&
	"$PROFILE" dump steady.prof >steady.txt &&
	"$PROFILE" build steady.prof.bz2 <steady.txt &&
	plain=$(stat -c %s steady.prof) packed=$(stat -c %s steady.prof.bz2) &&
	echo "# 4 threads: $plain bytes plain, $packed bytes bzip2" &&
	expect_le "$plain" "$packed" "bzip2 size"
'

test_expect_success STRACE 'the writer makes one write() per chunk, none per sample' '
	ASAN_OPTIONS=detect_leaks=0 strace -o trace -e trace=write,pwrite64,writev \
		"$SYNTH" write steady.prof 4 20000 >/dev/null &&
	writes=$(grep -c "^write([3-9]," trace) &&
	chunks=$(/usr/bin/python3 -c "
import struct, sys
d = open(\"steady.prof\", \"rb\").read(); off = 16; n = 0
while off < len(d):
    off += 8 + struct.unpack_from(\"<I\", d, off)[0]; n += 1
print(n)") &&
	echo "# 20000 samples: $chunks chunks, $writes writes" &&
	expect_ge 20 "$chunks" "chunks for 20 s of samples" &&
	expect_eq $((chunks + 1)) "$writes" "writes (the header, then one per chunk)" &&
	expect_eq 0 "$(grep -c -e "^pwrite64([3-9]," -e "^writev([3-9]," trace)" "other writes"
'

test_expect_success 'a full disk is reported, not ignored' '
	run_status "$PROFILE" build /dev/full <steady.txt 2>err &&
	expect_eq 1 "$rc" "exit status" &&
	expect_grep "cannot write /dev/full: No space left on device" err
'

test_done
