#!/bin/bash
# A profile cut anywhere (SIGKILL, full disk) reads back up to its last
# complete chunk; the reader says it is truncated and where (dump exits 2).
. "$(dirname "$0")/lib.sh"

PROFILE=$BUILD/sampler-profile
SYNTH=$BUILD/tests/profile-synth

# Chunk boundaries (offsets where a chunk ends) of a native profile.
boundaries() {
	/usr/bin/python3 - "$1" <<-\PY
	import struct, sys
	data = open(sys.argv[1], "rb").read()
	off = 16
	while off < len(data):
	    off += 8 + struct.unpack_from("<I", data, off)[0]
	    print(off)
	PY
}

# dump of a cut copy: exit status in $rc, records (without the truncated line) in cut.dump
dump_cut() {	# bytes
	head -c "$1" full.prof >cut.prof
	run_status "$PROFILE" dump cut.prof >cut.out 2>cut.err
	grep -v "^truncated " cut.out >cut.dump || true
}

# the records of cut.dump are the first ones of the full dump
expect_prefix() {
	head -n "$(wc -l <cut.dump)" full.dump | cmp - cut.dump
}

test_expect_success 'setup: a 5 s run of 4 threads in several chunks' '
	"$SYNTH" write full.prof 4 5000 >/dev/null &&
	"$PROFILE" dump full.prof >full.dump &&
	expect_eq 5000 "$(grep -c "^sample " full.dump)" "samples" &&
	boundaries full.prof >bounds &&
	expect_ge 6 "$(wc -l <bounds)" "chunks" &&
	expect_eq "$(stat -c %s full.prof)" "$(tail -1 bounds)" "last chunk ends the file"
'

test_expect_success 'cut inside a chunk: records of the complete chunks, truncated, exit 2' '
	b2=$(sed -n 2p bounds) b3=$(sed -n 3p bounds) &&
	dump_cut $(( (b2 + b3) / 2 )) &&
	expect_eq 2 "$rc" "exit status" &&
	expect_eq "truncated good_bytes=$b2" "$(tail -1 cut.out)" &&
	expect_prefix &&
	n=$(grep -c "^sample " cut.dump) &&
	expect_ge 900 "$n" "samples of the first second" &&
	expect_le 1100 "$n" "samples of the first second"
'

test_expect_success 'cut in a chunk header, at a boundary, one byte short' '
	b1=$(sed -n 1p bounds) b3=$(sed -n 3p bounds) size=$(stat -c %s full.prof) &&
	last=$(tail -2 bounds | head -1) &&
	for cut in $b1 $((b3 + 3)) $b3 $((size - 1)); do
		dump_cut $cut &&
		expect_eq 2 "$rc" "exit status at $cut" &&
		expect_prefix || exit 1
	done &&
	expect_eq "truncated good_bytes=$last" "$(tail -1 cut.out)" &&
	expect_eq 0 "$(grep -c "^stats " cut.dump)" "stats" &&
	dump_cut $b1 &&
	expect_eq 0 "$(grep -c "^sample " cut.dump)" "samples in the info chunk"
'

test_expect_success 'cut before the host information: an error naming it' '
	for cut in 0 10 20; do
		dump_cut $cut &&
		expect_eq 1 "$rc" "exit status at $cut" &&
		expect_eq 1 "$(wc -l <cut.err)" "error lines" || exit 1
	done &&
	expect_grep "cut short before its host information" cut.err
'

test_expect_success 'a profile without statistics is truncated at its end' '
	printf "host start_ns=0 target_hz=1000\nsample time=1000000 nthreads=1 values=\nts tid=9 pc=0x10 cpu=5\n" >nostats.txt &&
	"$PROFILE" build nostats.prof <nostats.txt &&
	run_status "$PROFILE" dump nostats.prof >out &&
	expect_eq 2 "$rc" "exit status" &&
	expect_eq "truncated good_bytes=$(stat -c %s nostats.prof)" "$(tail -1 out)" &&
	expect_eq 1 "$(grep -c "^ts tid=9 " out)" "thread-samples"
'

test_expect_success 'a cut bzip2 profile gives back its complete blocks' '
	"$PROFILE" build full.prof.bz2 <full.dump &&
	size=$(stat -c %s full.prof.bz2) &&
	head -c $((size * 6 / 10)) full.prof.bz2 >cut.prof.bz2 &&
	run_status "$PROFILE" dump cut.prof.bz2 >cut.out 2>cut.err &&
	expect_eq 2 "$rc" "exit status" &&
	grep -v "^truncated " cut.out | sed 1d >cut.dump &&
	sed 1d full.dump | head -n "$(wc -l <cut.dump)" | cmp - cut.dump &&
	n=$(grep -c "^sample " cut.dump) &&
	expect_ge 1000 "$n" "samples recovered from 60% of the file" &&
	expect_grep "^truncated good_bytes=" cut.out
'

# Start a writer that hangs after $2 samples with records still buffered,
# wait for it to say so, SIGKILL it.
write_and_kill() {	# out hang_after
	"$SYNTH" write "$1" 2 100000 7 "$2" >ready &
	pid=$!
	for i in $(seq 100); do
		grep -q hanging ready && break
		sleep 0.1
	done
	kill -9 $pid
	wait $pid 2>/dev/null || true
	grep -q hanging ready
}

for out in killed.prof killed.prof.bz2; do
	test_expect_success "SIGKILL while writing $out: all but the last second is read" '
		write_and_kill '$out' 2500 &&
		run_status "$PROFILE" dump '$out' >killed.out 2>killed.err &&
		expect_eq 2 "$rc" "exit status" &&
		expect_grep "^truncated good_bytes=" killed.out &&
		n=$(grep -c "^sample " killed.out) &&
		expect_ge 1900 "$n" "samples flushed (one chunk per second of sample time)" &&
		expect_le 2500 "$n" "samples written" &&
		"$SYNTH" write whole.prof 2 100000 7 >/dev/null &&
		grep -v "^truncated " killed.out | sed 1d >killed.records &&
		"$PROFILE" dump whole.prof | sed 1d | head -n "$(wc -l <killed.records)" | cmp - killed.records
	'
done

test_done
