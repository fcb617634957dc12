#!/bin/bash
# The original tool's layout (pperf): written byte for byte as an
# independent description (tests/fixtures/make-pperf-seed.py) says, and read
# back with maps first, a synthesised channel, process and statistics.
. "$(dirname "$0")/lib.sh"

PROFILE=$BUILD/sampler-profile
FIXTURES=$ROOT/tests/fixtures

field_of() {	# word n key file
	awk -v w="$1" -v n="$2" -v k="$3" '$1 == w && ++c == n {
		for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] == k) { print substr($i, length(k) + 2); exit } } }' "$4"
}

test_expect_success 'the committed fixtures are what their description generates' '
	/usr/bin/python3 "$FIXTURES/make-pperf-seed.py" . &&
	for n in seed-rapl seed-none; do
		cmp "$FIXTURES/$n.pperf" $n.pperf && cmp "$FIXTURES/$n.txt" $n.txt || exit 1
	done
'

test_expect_success 'build --format pperf writes the fixtures byte for byte' '
	for n in seed-rapl seed-none; do
		"$PROFILE" build --format pperf $n.out <"$FIXTURES/$n.txt" &&
		cmp "$FIXTURES/$n.pperf" $n.out || exit 1
	done &&
	expect_eq 1072 "$(stat -c %s seed-rapl.out)" "size: 36 + 4 samples (7 threads) + 3 maps"
'

test_expect_success 'pperf .bz2 output decompresses to the same bytes' '
	"$PROFILE" build --format pperf seed.pperf.bz2 <"$FIXTURES/seed-rapl.txt" &&
	expect_eq BZh "$(head -c 3 seed.pperf.bz2)" "magic" &&
	bzip2 -dc seed.pperf.bz2 | cmp - "$FIXTURES/seed-rapl.pperf"
'

test_expect_success 'dump of the fixture: channel, process, maps first, samples, stats' '
	"$PROFILE" dump "$FIXTURES/seed-rapl.pperf" >d &&
	expect_eq "format name=pperf compressed=0" "$(sed -n 1p d)" &&
	expect_eq "channel name=power source=pperf unit=W scale=1 kind=power scope=sample" "$(sed -n 3p d)" &&
	expect_eq "process pid=4242 ppid=0 time=0" "$(sed -n 4p d)" &&
	expect_eq "thread tid=4242 pid=4242 time=0" "$(sed -n 5p d)" &&
	expect_eq "map pid=4242 time=0 start=0x555555554000 len=0x2000 pgoff=0x0 dev=00:00 inode=0 prot=r-x path=/usr/bin/app" "$(sed -n 6p d)" &&
	expect_eq "path=[vdso]" "$(sed -n 8p d | grep -o "path=.*")" &&
	expect_eq 3 "$(grep -c "^map " d)" "maps (a re-sent set is written once)" &&
	expect_eq 4 "$(grep -c "^sample " d)" "samples" &&
	expect_eq 7 "$(grep -c "^ts " d)" "thread-samples" &&
	expect_eq 1000000 "$(field_of sample 1 time d)" "first time (us since start, in ns)" &&
	expect_eq 2001000 "$(field_of sample 2 time d)" "second time" &&
	expect_near 14.9925 "$(field_of sample 1 values d)" 0.0001 "mean power 15 mJ / 1.0005 ms" &&
	expect_near 13.9832 "$(field_of sample 2 values d)" 0.0001 "mean power 14 mJ / 1.0012 ms" &&
	expect_eq "thread tid=4243 pid=4242 time=2001000" "$(grep "^thread tid=4243" d)" &&
	expect_eq "tid=4243 pid=4242 pc=0x7ffff7a00010 cpu=300000 dcpu=300000" \
		"$(grep "^ts " d | sed -n 3p | cut -d" " -f2-6)" &&
	expect_eq 950000 "$(field_of ts 4 dcpu d)" "dcpu of 4242 in sample 3" &&
	expect_eq "wall=4001000 latency=187000 samples=4 thread_samples=7" \
		"$(grep "^stats " d | cut -d" " -f2-5)" &&
	expect_eq "threads=2 processes=1" "$(grep "^stats " d | cut -d" " -f9-10)" &&
	expect_eq stats "$(tail -1 d | cut -d" " -f1)" "last line"
'

test_expect_success 'without a PMU: magic 0, no channel, 0 W written' '
	expect_eq "00000000" "$(od -An -tx4 -N4 "$FIXTURES/seed-none.pperf" | tr -d " ")" "magic" &&
	"$PROFILE" dump "$FIXTURES/seed-none.pperf" >d &&
	expect_eq 0 "$(grep -c "^channel " d)" "channels" &&
	expect_eq "sample time=999000 nthreads=1 values=" "$(grep -m1 "^sample " d)"
'

test_expect_success 'a compressed pperf file reads like the plain one' '
	bzip2 -c "$FIXTURES/seed-rapl.pperf" >s.pperf.bz2 &&
	"$PROFILE" dump s.pperf.bz2 | sed 1d >bz &&
	"$PROFILE" dump "$FIXTURES/seed-rapl.pperf" | sed 1d | cmp - bz
'

test_expect_success 'pperf cut short: good samples, then truncated (exit 2)' '
	head -c 200 "$FIXTURES/seed-rapl.pperf" >cut.pperf &&
	run_status "$PROFILE" dump cut.pperf >d 2>err &&
	expect_eq 2 "$rc" "exit status" &&
	expect_eq 3 "$(grep -c "^sample " d)" "complete samples before byte 200" &&
	expect_eq 0 "$(grep -c "^map " d)" "maps (they were cut off)" &&
	expect_eq "truncated good_bytes=196" "$(tail -1 d)" "end of the third sample: 36 + 40 + 60 + 60"
'

test_expect_success 'pperf with data beyond its counts is an error naming the offset' '
	{ cat "$FIXTURES/seed-rapl.pperf"; printf "junk"; } >extra.pperf &&
	run_status "$PROFILE" dump extra.pperf >d 2>err &&
	expect_eq 1 "$rc" "exit status" &&
	expect_grep "byte offset 1072: unexpected data" err
'

test_done
