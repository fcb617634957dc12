#!/bin/bash
# Hostile profiles: lengths and counts at and past their maxima, offsets past
# the end, a decompression bomb, references that loop.  Every exporter format
# and sampler-report answer with an error (or a partial result flagged as
# such), within 20 s of CPU time and 1 GiB of address space, never a crash.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/hardening/hardening-lib.sh"

PY=/usr/bin/python3
export XDG_CACHE_HOME=$TRASH/cache

# bounded CMD...: run with a CPU time and address-space limit; status in
# $rc, stderr in bounded.err.  CPU time, not wall time: on a loaded machine
# sampler-report took 14 s of wall time for 1.1 s of CPU on the bomb; a
# reader that waits for nothing is caught by the wall-clock limit, 300 s.
# A sanitizer build reserves terabytes of address space for its shadow
# memory: there only the time is bounded (the plain pass checks the memory
# bound).
VLIMIT=1048576
nm "$EXPORT" 2>/dev/null | grep -q __asan_init && VLIMIT=unlimited
bounded() {
	run_status bash -c 'ulimit -v '$VLIMIT' -t 20 && exec timeout 300 "$@"' bounded "$@" 2>bounded.err
}

# refuses FILE: every C reader answers FILE with status 1 (error) or 2
# (partial, truncated), sampler-report with 1 or with a truncation warning.
refuses() {
	local f=$1 how
	for how in "-o out.perf" "-o -" "--format csv --symbols -o out.csv" \
		   "--format pperf -o out.pperf" "--info"; do
		bounded "$EXPORT" $how "$f" >/dev/null &&
		check_answer "sampler-export $how" 1 2 || return 1
	done
	bounded "$BUILD/sampler-profile" dump "$f" >/dev/null &&
	check_answer "sampler-profile dump" 1 2 &&
	# the scripts use a truncated profile up to its cut, with one warning
	bounded $PY "$ROOT/scripts/sampler-report" "$f" >/dev/null &&
	check_answer "sampler-report" 0 1 &&
	if [ "$rc" = 0 ]; then
		expect_eq 1 "$(wc -l <bounded.err)" "sampler-report: stderr lines" &&
		expect_grep "^sampler-report: warning: .* is truncated" bounded.err
	fi
}

# check_answer WHAT STATUS...: $rc is one of the statuses, and an error or
# truncation message came (a status 2 may be silent but for its warning).
check_answer() {
	local what=$1 ok=
	shift
	for s; do [ "$rc" = "$s" ] && ok=1; done
	if [ -z "$ok" ]; then
		echo "$what: status $rc (want $*; 124 is a timeout, 152 the CPU limit, >128 a signal)"
		sed 's/^/  /' bounded.err | head -5
		return 1
	fi
	if grep -q "Traceback\|AddressSanitizer\|runtime error" bounded.err; then
		echo "$what: crashed:"; head -20 bounded.err; return 1
	fi
	[ "$rc" = 0 ] && return 0
	[ "$rc" = 2 ] && return 0
	expect_le 2 "$(wc -l <bounded.err)" "$what: stderr lines" &&
	expect_grep "corrupt\|error" bounded.err
}

test_expect_success 'setup: hostile profiles from a valid seed' '
	printf "%s\n" "host hostname=h arch=x86_64 start_ns=1000 target_hz=1000" \
		"process pid=10 ppid=0 time=1000" | "$BUILD/sampler-profile" build seed.prof &&
	mkdir hostile &&
	$PY "$ROOT/tests/hardening/hostile.py" seed.prof hostile &&
	expect_eq 14 "$(ls hostile | wc -l)" "hostile files"
'

for f in chunk-max chunk-over string-max varint-long channels-over nthreads-max nthreads-over \
	 live-threads comm-over zero-chunk-bomb.bz2 pperf-maps-max pperf-samples-max \
	 pperf-threads-max pperf-valsize-max; do
	test_expect_success "hostile profile $f: an error from every reader, bounded" '
		refuses hostile/'"$f"'
	'
done

test_expect_success 'hostile profile: the dump names the offset of the damage' '
	bounded "$BUILD/sampler-profile" dump hostile/live-threads >/dev/null &&
	expect_eq 1 "$rc" "status" &&
	expect_grep "corrupt profile at byte offset [0-9]*: more than 65536 live threads" bounded.err
'

# References that loop: processes that are each other's parent or their
# own, a thread of a process never announced, a reused tid.
test_expect_success 'references that loop: every reader finishes, bounded' '
	printf "%s\n" "host hostname=h arch=x86_64 start_ns=1000 target_hz=1000" \
		"process pid=10 ppid=11 time=1000" "process pid=11 ppid=10 time=1000" \
		"process pid=12 ppid=12 time=1000" "thread tid=13 pid=14 time=1000" \
		"exec pid=12 time=1000 comm=loop argv=loop" \
		"map pid=14 time=1000 start=0x400000 len=0x1000 pgoff=0x0 dev=00:00 inode=0 prot=r-x path=/proc/self/exe" \
		"sample time=2000 nthreads=2" "ts tid=13 pc=0x400010 cpu=100" "ts tid=12 pc=0x400010 cpu=100" \
		"exit tid=13 pid=14 time=2500 whole=1" "thread tid=13 pid=12 time=2600" \
		"sample time=3000 nthreads=1" "ts tid=13 pc=0x400020 cpu=50" \
		"stats wall=2000 samples=2 thread_samples=3 threads=2 processes=3" |
	"$BUILD/sampler-profile" build loops.prof &&
	for how in "-o out.perf" "--format csv --symbols -o out.csv" "--format pperf -o out.pperf" "--info"; do
		bounded "$EXPORT" $how loops.prof >/dev/null && check_answer "sampler-export $how" 0 || exit 1
	done &&
	expect_eq 3 "$(grep -c "^[0-9]" out.csv)" "CSV rows" &&
	bounded $PY "$ROOT/scripts/sampler-report" --by process loops.prof >report.out &&
	check_answer sampler-report 0 &&
	expect_grep "loop" report.out
'

test_done
