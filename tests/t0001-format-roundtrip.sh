#!/bin/bash
# The native profile format round-trips every field through the writer and
# the reader, plain and bzip2, across many chunks; derived fields are right.
. "$(dirname "$0")/lib.sh"

PROFILE=$BUILD/sampler-profile
FIXTURES=$ROOT/tests/fixtures

# The text without what dump derives (ts pid, dcpu, dcounters; exit last_pc)
# and the format line.
strip_derived() {
	sed -e '/^format /d' -e '/^ts /s/ pid=[0-9]*//' -e 's/ dcpu=[0-9]*//' -e 's/ dcounters=[0-9,]*//' \
		-e 's/ last_pc=0x[0-9a-f]*//' "$@"
}

# One field of the Nth line (1-based) starting with a word.
field_of() {	# word n key file
	awk -v w="$1" -v n="$2" -v k="$3" '$1 == w && ++c == n {
		for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] == k) { print substr($i, length(k) + 2); exit } } }' "$4"
}

test_expect_success 'dump of build gives back every record and field' '
	"$PROFILE" build rt.prof <"$FIXTURES/roundtrip.txt" &&
	"$PROFILE" dump rt.prof >rt.dump &&
	strip_derived rt.dump >rt.text &&
	diff -u "$FIXTURES/roundtrip.txt" rt.text &&
	expect_eq "format name=native compressed=0" "$(head -1 rt.dump)" &&
	expect_eq 9 "$(grep -c "^sample " rt.dump)" "samples" &&
	expect_eq 16 "$(grep -c "^ts " rt.dump)" "thread-samples"
'

test_expect_success 'reader derives pid, CPU and counter deltas per thread' '
	"$PROFILE" dump rt.prof >rt.dump 2>err &&
	expect_eq "pid=500 pc=0x555555555140 cpu=1000123 dcpu=1000123 counters=1000000,3 dcounters=1000000,3" \
		"$(grep "^ts " rt.dump | sed -n 1p | cut -d" " -f3-)" "first sample of 500" &&
	expect_eq "999877" "$(field_of ts 2 dcpu rt.dump)" "dcpu of 500 in sample 2" &&
	expect_eq "1000000,0" "$(field_of ts 2 dcounters rt.dump)" "dcounters of 500 in sample 2" &&
	expect_eq "500" "$(field_of ts 3 pid rt.dump)" "pid of thread 501" &&
	expect_eq "502" "$(field_of ts 6 pid rt.dump)" "pid of the forked process thread 502" &&
	expect_eq "900000" "$(field_of ts 9 dcpu rt.dump)" "dcpu of 502 in sample 4" &&
	expect_eq "777" "$(field_of ts 11 pid rt.dump)" "pid of a never announced tid" &&
	expect_eq "18446744073709551615" "$(field_of ts 11 cpu rt.dump)" "cumulative CPU as written" &&
	expect_eq "0" "$(field_of ts 11 dcpu rt.dump)" "first CPU delta of 2^64-1 repaired (t0008)" &&
	expect_eq "0,0" "$(field_of ts 11 dcounters rt.dump)" "first counter delta of 2^64-1 repaired" &&
	expect_eq 2 "$(grep -c "values the recorder never writes" err)" "repair warnings" &&
	expect_eq "100" "$(field_of ts 12 dcpu rt.dump)" "a tid reused after its exit starts afresh" &&
	expect_eq "7,7" "$(field_of ts 12 dcounters rt.dump)" "counters of the reused tid"
'

test_expect_success 'exit records: final values as deltas since the last sample, at its PC' '
	expect_eq "whole=1 cpu=1750000 dcpu=50000 last_pc=0x400104 counters=1400500,41 dcounters=500,0" \
		"$(grep "^exit tid=502 " rt.dump | cut -d" " -f5-)" "exit of 502 (last sampled at 0x400104)" &&
	expect_eq "whole=0" "$(grep "^exit tid=501 " rt.dump | cut -d" " -f5-)" "exit of 501, gone unread" &&
	expect_eq "whole=1 cpu=5000000 dcpu=997 last_pc=0xffff800000001000 counters=5000000,4 dcounters=1,1" \
		"$(grep "^exit tid=500 " rt.dump | cut -d" " -f5-)" "exit of 500"
'

# The hold (the time from a sample's instant to the threads' resume) came
# after the stats record's other fields: a profile without it, written
# before or in text, reads back its latency, the best guess it has.
test_expect_success 'stats without a hold read back the latency as the hold' '
	expect_eq "hold=98765" "$(grep "^stats " rt.dump | tr " " "\n" | grep "^hold=")" "the hold written" &&
	grep -v "^stats " "$FIXTURES/roundtrip.txt" >nohold.txt &&
	echo "stats wall=4243000 latency=123456 samples=6 thread_samples=13 missed=2 missing=1 signals=3 threads=4 processes=2 exit=139 totals=52345.75,2.5,11407006,88" >>nohold.txt &&
	"$PROFILE" build nohold.prof <nohold.txt &&
	expect_eq "latency=123456 hold=123456" \
		"$("$PROFILE" dump nohold.prof | grep "^stats " | tr " " "\n" | grep "^latency=\|^hold=" | paste -sd" ")" \
		"a text profile without a hold" &&
	expect_eq "latency=4927906 hold=4927906" \
		"$("$PROFILE" dump "$ROOT/fuzz/corpus/recorded-forkexec" | grep "^stats " | tr " " "\n" | grep "^latency=\|^hold=" | paste -sd" ")" \
		"a profile recorded before the hold was written"
'

test_expect_success 'bzip2 output is compressed and reads back the same' '
	"$PROFILE" build rt.prof.bz2 <"$FIXTURES/roundtrip.txt" &&
	expect_eq BZh "$(head -c 3 rt.prof.bz2)" "magic" &&
	"$PROFILE" dump rt.prof.bz2 >bz.dump &&
	expect_eq "format name=native compressed=1" "$(head -1 bz.dump)" &&
	strip_derived bz.dump >bz.text &&
	diff -u "$FIXTURES/roundtrip.txt" bz.text &&
	cp rt.prof.bz2 renamed.prof &&
	"$PROFILE" dump renamed.prof >renamed.dump &&
	cmp bz.dump renamed.dump
'

# A long run: 3000 samples of 1-3 threads whose set changes, 1 ms apart.
long_text() {
	awk -v n="$1" "BEGIN {
		print \"host hostname=h start_ns=1000 target_hz=1000\"
		print \"channel name=p source=x unit=W scale=1 kind=power scope=sample\"
		print \"channel name=c source=x unit= scale=1 kind=counter scope=thread\"
		for (s = 1; s <= n; s++) {
			k = (s % 50 < 10) ? 1 : 3
			printf \"sample time=%d nthreads=%d values=%d.5\n\", 1000 + s * 1000000 + (s * 7919) % 40000, k, s
			for (t = 0; t < k; t++)
				printf \"ts tid=%d pc=0x%x cpu=%d counters=%d\n\", 100 + t, 4198400 + (s * 31 + t * 17) % 256, s * 990000 + t, s * 3 + t
		}
		printf \"stats wall=%d latency=0 samples=%d thread_samples=0 missed=0 missing=0 signals=0 threads=3 processes=1 exit=0 totals=1 hold=0\n\", n * 1000000, n
	}"
}

test_expect_success 'a long run round-trips across many chunks, plain and bzip2' '
	long_text 3000 >long.txt &&
	"$PROFILE" build long.prof <long.txt &&
	"$PROFILE" build long.prof.bz2 <long.txt &&
	"$PROFILE" dump long.prof >long.dump &&
	strip_derived long.dump | grep -v "^host " >long.text &&
	grep -v "^host " long.txt | diff -u - long.text &&
	expect_eq 3000 "$(grep -c "^sample " long.dump)" "samples" &&
	"$PROFILE" dump long.prof.bz2 | sed 1d >long-bz.dump &&
	sed 1d long.dump | cmp - long-bz.dump
'

# Walk the chunk framing independently (python zlib CRC-32).
chunks() {
	/usr/bin/python3 - "$1" <<-\PY
	import struct, sys, zlib
	data = open(sys.argv[1], "rb").read()
	assert data[:8] == b"SMPLPROF", "magic"
	off, sizes = 16, []
	while off < len(data):
	    n, crc = struct.unpack_from("<II", data, off)
	    assert zlib.crc32(data[off:off + 4] + data[off + 8:off + 8 + n]) == crc, "crc at %d" % off
	    sizes.append(n)
	    off += 8 + n
	assert off == len(data), "framing ends at %d of %d" % (off, len(data))
	print(len(sizes), max(sizes))
	PY
}

test_expect_success 'chunks carry a CRC-32 and are flushed every second of sample time' '
	chunks long.prof >framing &&
	read count largest <framing &&
	expect_ge 4 "$count" "chunks for 3 s of samples (info, timed at 1 s and 2 s, the rest)" &&
	expect_le 65536 "$largest" "largest chunk"
'

test_expect_success 'chunks are cut at 64 KiB within a second' '
	awk "BEGIN { print \"host start_ns=0 target_hz=100000\"
		for (s = 1; s <= 20000; s++) {
			printf \"sample time=%d nthreads=1 values=\n\", s * 10000
			printf \"ts tid=1 pc=0x%x cpu=%d counters=\n\", (s * 7777) % 1048576 * 4096, s * 9000 }
		print \"stats wall=1\" }" >dense.txt &&
	"$PROFILE" build dense.prof <dense.txt &&
	chunks dense.prof >framing &&
	read count largest <framing &&
	expect_ge 4 "$count" "chunks" &&
	expect_ge 60000 "$largest" "largest chunk" &&
	expect_le 65600 "$largest" "largest chunk"
'

test_expect_success 'build rejects malformed text with the line number' '
	printf "host start_ns=1\nsample time=5 nthreads=1 values=\nts tid=1 pc=0x1 cpu=1 bogus=3\n" >bad.txt &&
	run_status "$PROFILE" build bad.prof <bad.txt 2>err &&
	expect_eq 1 "$rc" "exit status" &&
	expect_grep "line 3: unknown field \"bogus\"" err &&
	printf "sample time=5 nthreads=2 values=\nts tid=1 pc=1 cpu=1\n" >short.txt &&
	run_status "$PROFILE" build short.prof <short.txt 2>err &&
	expect_eq 1 "$rc" "exit status" &&
	expect_grep "1 ts lines short" err
'

test_expect_success 'dump of a missing file fails with one error line' '
	run_status "$PROFILE" dump nosuch.prof >out 2>err &&
	expect_eq 1 "$rc" "exit status" &&
	expect_eq 1 "$(wc -l <err)" "error lines" &&
	expect_grep "^sampler-profile: error: cannot open nosuch.prof: No such file" err
'

test_done
