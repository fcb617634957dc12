#!/bin/bash
# One line naming the real cause (issue 44, item 13): a full device is
# "No space left on device" whatever the format, and a --control FIFO
# the sampler may not read gets advice about permissions, not mkfifo.
. "$(dirname "$0")/lib.sh"

test_expect_success 'setup: a profile of the functions of the sampler binary, one sample each' '
	nm --defined-only "$SAMPLER" | awk "\$2 ~ /[tT]/ { print \$1 }" | sort -u >addrs &&
	expect_ge 200 "$(wc -l <addrs)" "functions" &&
	{
		echo "host hostname=h os_release=6.1 os_version=v arch=x86_64 cpu_desc=c cpu_id=i nr_cpus_online=2 nr_cpus_avail=2 total_mem_kb=1000 sampler_version=0.1.0 cmdline=s realtime_ns=1763790000123456789 monotonic_ns=100000000000 start_ns=100000000000 target_hz=100"
		echo "process pid=500 ppid=0 time=100000000000"
		echo "exec pid=500 time=100000000000 comm=app argv=./app"
		echo "thread tid=500 pid=500 time=100000000000"
		echo "map pid=500 time=100000000000 start=0x0 len=0x10000000 pgoff=0x0 dev=08:01 inode=1 prot=r-x path=$SAMPLER"
		awk "{ t = 100010000000 + NR * 10000000
			printf \"sample time=%d nthreads=1 values=\nts tid=500 pc=0x%s cpu=%d\n\", t, \$1, NR * 1000000 }" addrs
		echo "stats wall=1000000 latency=1000 samples=1 thread_samples=1 missed=0 missing=0 signals=0 threads=1 processes=1 exit=0 totals= hold=500"
	} | "$BUILD/sampler-profile" build many.prof &&
	"$EXPORT" --format speedscope -o many.json many.prof 2>/dev/null &&
	expect_ge 8192 "$(wc -c <many.json)" "speedscope bytes"
'

test_expect_success 'every format to /dev/full: No space left on device' '
	for f in speedscope folded csv perf; do
		run_status "$EXPORT" --format $f -o /dev/full many.prof 2>err &&
		expect_eq 1 "$rc" "status of $f" &&
		expect_eq "sampler-export: error: cannot write /dev/full: No space left on device (free some space, or write elsewhere with -o)" \
			"$(cat err)" "$f" || exit 1
	done
'

test_expect_success '--max-size: refused with one line naming it, nothing left' '
	"$EXPORT" -o whole.data --max-size 0 many.prof &&
	size=$(stat -c %s whole.data) &&
	expect_ge 20000 "$size" "perf.data bytes" &&
	run_status "$EXPORT" -o cut.data --max-size $((size / 2)) many.prof 2>err &&
	expect_eq 1 "$rc" "status" &&
	expect_eq "sampler-export: error: cannot write cut.data: it would pass the --max-size of $((size / 2)) bytes (raise --max-size, or 0 for no limit)" \
		"$(cat err)" &&
	expect_empty "$(ls -a | grep cut.data)" "files left" &&
	"$EXPORT" -o fits.data --max-size $size many.prof &&
	expect_eq "$size" "$(stat -c %s fits.data)" "bytes at the limit" &&
	run_status "$EXPORT" -o x --max-size 12Q many.prof 2>err &&
	expect_eq "sampler-export: error: --max-size 12Q: not a size (a number of bytes, with K, M or G; 0: no limit)" "$(cat err)"
'

# 20,000 samples of one 100-frame stack: a profile bzip2 packs into a few
# hundred bytes, perf.data into tens of MB (issue 44 #10: 324 bytes made
# 52.8 MB, unannounced).
test_expect_success 'a profile that expands a lot: the export says so first, within 25%' '
	{
		echo "format name=native compressed=0 stacks=1"
		echo "host hostname=h os_release=6.1 os_version=v arch=x86_64 cpu_desc=c cpu_id=i nr_cpus_online=2 nr_cpus_avail=2 total_mem_kb=1000 sampler_version=0.1.0 cmdline=s realtime_ns=1763790000123456789 monotonic_ns=100000000000 start_ns=100000000000 target_hz=100"
		echo "process pid=500 ppid=0 time=100000000000"
		echo "exec pid=500 time=100000000000 comm=app argv=./app"
		echo "thread tid=500 pid=500 time=100000000000"
		echo "map pid=500 time=100000000000 start=0x0 len=0x10000000 pgoff=0x0 dev=08:01 inode=1 prot=r-x path=$SAMPLER"
		awk "BEGIN { st = \"0x1000\"; for (i = 1; i < 100; i++) st = st sprintf(\",0x%x\", 4096 + i * 16)
			for (n = 1; n <= 20000; n++)
				printf \"sample time=%.0f nthreads=1 values=\nts tid=500 pc=0x2000 cpu=%.0f stack=%s stack_end=complete\n\", 100010000000 + n * 10000000, n * 1000000, st }"
		echo "stats wall=1000000 latency=1000 samples=1 thread_samples=1 missed=0 missing=0 signals=0 threads=1 processes=1 exit=0 totals= hold=500"
	} | "$BUILD/sampler-profile" build deep.prof &&
	bzip2 -9 deep.prof &&
	expect_le 2000 "$(stat -c %s deep.prof.bz2)" "bzip2 profile bytes" &&
	"$EXPORT" -o deep.data --max-size 0 deep.prof.bz2 2>err &&
	size=$(stat -c %s deep.data) &&
	expect_ge 20000000 "$size" "perf.data bytes" &&
	expect_eq 1 "$(grep -c "^sampler-export: warning: deep.prof.bz2: about .* MB of perf output to write (20000 samples, 100.0 frames each, from a profile of [0-9]* bytes); --max-size SIZE bounds it$" err)" \
		"warnings with the estimate and the option" &&
	said=$(sed -n "s/.* about \([0-9.]*\) MB .*/\1/p" err) &&
	expect_near "$size" "$(awk -v m="$said" "BEGIN { print m * 1e6 }")" "$((size / 4))" \
		"the estimate against the bytes written" &&
	run_status "$EXPORT" -o cut.data --max-size 1M deep.prof.bz2 2>err &&
	expect_eq 1 "$rc" "status under --max-size 1M" &&
	expect_grep "^sampler-export: warning: deep.prof.bz2: about .* (now 1048576 bytes)$" err &&
	expect_grep "^sampler-export: error: cannot write cut.data: it would pass the --max-size" err &&
	"$EXPORT" -o small.data many.prof 2>err &&
	expect_no_grep "output to write" err
'

test_expect_success NOBODY_CAN_READ '--control on a FIFO the user may not read: permissions, not mkfifo' '
	mkfifo -m 600 ctl &&
	run_status as_nobody "$SAMPLER" --control ctl -o /dev/null -- true 2>err &&
	expect_eq 125 "$rc" "status" &&
	expect_eq "sampler: error: --control ctl: Permission denied (the sampler reads it: give its user read permission, e.g. chmod o+r ctl, or use a FIFO of its own)" \
		"$(cat err)" &&
	run_status "$SAMPLER" --control missing -o /dev/null -- true 2>err &&
	expect_eq "sampler: error: --control missing: No such file or directory (create it first with mkfifo missing)" \
		"$(cat err)"
'

# Before, the size was the file's named by -o: "-" (a pipe, and sampler
# top's -o FILE, which the recorder reaches through its pipe) said 0 bytes.
test_expect_success '-d counts the profile'"'"'s bytes through a pipe too: sampler top -o, -o -' '
	"$SAMPLER" top -d --stdio -o kept.prof -- "$EXAMPLES/busy" 0.2 >top.out 2>top.err &&
	expect_eq "$(stat -c %s kept.prof)" "$(sed -n "s/^sampler: profile: \([0-9]*\) bytes.*/\1/p" top.err)" \
		"sampler top -d: the profile'"'"'s bytes, as kept" &&
	"$SAMPLER" -d -o - -- "$EXAMPLES/busy" 0.2 2>pipe.err >piped.prof &&
	expect_eq "$(stat -c %s piped.prof)" "$(sed -n "s/^sampler: profile: \([0-9]*\) bytes.*/\1/p" pipe.err)" \
		"sampler -d -o -: the bytes that went down the pipe"
'

test_done
