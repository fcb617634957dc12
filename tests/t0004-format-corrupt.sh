#!/bin/bash
# Corrupt and hostile profiles: a clear one-line error naming the byte
# offset (or truncation), never a crash, a hang or a huge allocation.
. "$(dirname "$0")/lib.sh"

PROFILE=$BUILD/sampler-profile
SYNTH=$BUILD/tests/profile-synth
FIXTURES=$ROOT/tests/fixtures
FUZZ="/usr/bin/python3 $ROOT/tests/format/fuzz-dump.py $PROFILE"
# Hostile input must not make the reader allocate: everything runs in 64 MB
# of address space - except under AddressSanitizer, which reserves terabytes
# of shadow memory (then only its own checks apply).
LIMIT_KB=65536
if grep -q __asan_init "$PROFILE"; then
	LIMIT_KB=unlimited
	echo "# sanitizer build: no ulimit -v"
fi

value_of() {	# key line
	printf '%s\n' "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"
}

test_expect_success 'setup: small profiles in every format' '
	"$SYNTH" write synth.prof 3 300 >/dev/null &&
	"$PROFILE" build rt.prof <"$ROOT/tests/fixtures/roundtrip.txt" &&
	"$PROFILE" build rt.prof.bz2 <"$ROOT/tests/fixtures/roundtrip.txt" &&
	cp "$FIXTURES/seed-rapl.pperf" seed.pperf
'

test_expect_success '250 bit flips in native profiles: every one detected, no crash' '
	(ulimit -v $LIMIT_KB; $FUZZ synth.prof 150 1; $FUZZ rt.prof 100 2) >out &&
	cat out &&
	for line in "$(sed -n 1p out)" "$(sed -n 2p out)"; do
		expect_eq 0 "$(value_of other "$line")" "crashes, hangs, odd statuses" &&
		expect_eq 0 "$(value_of rc0 "$line")" "corruptions read as good" &&
		expect_eq 0 "$(value_of bad_messages "$line")" "errors not on one sampler-profile line" &&
		expect_ge "$(( $(value_of rc1 "$line") * 9 / 10 ))" "$(value_of offset_named "$line")" "errors naming the offset" || exit 1
	done
'

test_expect_success '100 bit flips in bzip2 and 100 in pperf profiles: no crash' '
	(ulimit -v $LIMIT_KB; $FUZZ rt.prof.bz2 100 3; $FUZZ seed.pperf 100 4) >out &&
	cat out &&
	for line in "$(sed -n 1p out)" "$(sed -n 2p out)"; do
		expect_eq 0 "$(value_of other "$line")" "crashes, hangs, odd statuses" &&
		expect_eq 0 "$(value_of bad_messages "$line")" "errors not on one line" || exit 1
	done &&
	expect_ge 80 "$(value_of rc1 "$(sed -n 1p out)")" "bzip2 corruptions detected"
'

test_expect_success 'setup: hostile profiles (valid framing, absurd counts)' '
	/usr/bin/python3 "$ROOT/tests/format/make-hostile.py" .
'

# dump a hostile file in $LIMIT_KB; status in rc, stderr in err
dump_hostile() {
	set +e
	(ulimit -v $LIMIT_KB; exec "$PROFILE" dump "$1") >out 2>err
	rc=$?
	set -e
	cat err
}

test_expect_success 'huge thread counts are refused at their offset' '
	dump_hostile nthreads.prof &&
	expect_eq 1 "$rc" "exit status" &&
	expect_grep "byte offset 58: sample of 4294967295 threads (at most 65536)" err &&
	dump_hostile nofit.prof &&
	expect_eq 1 "$rc" "exit status" &&
	expect_grep "byte offset 58: sample of 60000 threads does not fit in the 4 bytes left" err &&
	dump_hostile pthreads.pperf &&
	expect_eq 1 "$rc" "exit status" &&
	expect_grep "byte offset 52: sample of 4294967295 threads" err
'

test_expect_success 'a huge string length is refused' '
	dump_hostile string.prof &&
	expect_eq 1 "$rc" "exit status" &&
	expect_grep "byte offset 66: bad map path string" err
'

test_expect_success 'chunk lengths beyond the data: truncated, not allocated' '
	dump_hostile chunklen.prof &&
	expect_eq 2 "$rc" "exit status" &&
	expect_eq "truncated good_bytes=48" "$(tail -1 out)" &&
	dump_hostile chunklen.prof.bz2 &&
	expect_eq 2 "$rc" "exit status (60 MiB claimed, 2 MiB there, 64 MB allowed)" &&
	expect_eq "truncated good_bytes=48" "$(tail -1 out)" &&
	dump_hostile chunkmax.prof &&
	expect_eq 1 "$rc" "exit status" &&
	expect_grep "byte offset 48: chunk length 4294967280 exceeds the limit" err
'

test_expect_success 'more than 65536 live threads are refused' '
	dump_hostile threads.prof &&
	expect_eq 1 "$rc" "exit status" &&
	expect_grep "more than 65536 live threads" err &&
	expect_eq 65536 "$(grep -c "^thread " out)" "threads before the limit"
'

test_expect_success 'pperf counts beyond the data: what is there, then truncated' '
	dump_hostile counts.pperf &&
	expect_eq 2 "$rc" "exit status" &&
	expect_eq 1 "$(grep -c "^sample " out)" "samples" &&
	dump_hostile maps.pperf.bz2 &&
	expect_eq 2 "$rc" "exit status" &&
	expect_eq 5000 "$(grep -c "^map " out)" "maps actually present"
'

test_done
