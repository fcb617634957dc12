#!/bin/sh
# A meter's declared delay moves its energy back to when it was drawn
# (docs/ENERGY.md): a profile built by hand, one thread in 0xa for 100
# ms (20 W) then 0xb for 100 ms (5 W), five times, sampled every 1 ms; an
# energy meter (update_ms=1, delay_ms=50 declared) whose every reading
# counts the energy drawn 50 to 51 ms before it.  The truth: 0xa drew
# 10 J, all of it counted by the end; 0xb 2.5 J, of which the last 50 ms
# (0.25 J) came after the last reading.  The delay is four times t2120's
# and half a phase, so that leaving it out moves a quarter of each phase's
# energy to the other function.  Measured: 9.986 J and 2.264 J; with
# the delay dropped from an energy update's time window (build_spans, by
# hand) 6.079 J and 6.171 J.
. "$(dirname "$0")/lib.sh"

cat >gen.awk <<-\AWK
	# E(t): J drawn from 0 to t s
	function E(t,   k, r) {
		if (t < 0)
			return 0
		k = int(t / 0.2); r = t - k * 0.2
		return k * 2.5 + (r < 0.1 ? 20 * r : 2 + 5 * (r - 0.1))
	}
	BEGIN {
		t0 = 1000000000; dt = 1000000; n = 1000
		printf "host hostname=t os_release=6.1 os_version=1 arch=x86_64 cpu_desc=c cpu_id=i nr_cpus_online=2 nr_cpus_avail=2 total_mem_kb=1 sampler_version=0.1.0 cmdline=t realtime_ns=1700000000000000000 monotonic_ns=1000000000 start_ns=%d target_hz=1000\n", t0
		printf "channel name=meter source=scpi unit=uJ scale=1e-06 kind=energy scope=sample update_ms=1 delay_ms=%g\n", D * 1000
		printf "process pid=100 ppid=0 time=%d\nthread tid=100 pid=100 time=%d\n", t0, t0
		for (j = 1; j <= n; j++) {
			t = j * dt / 1e9
			pc = int((t - 0.0005) / 0.1) % 2 ? "0xb" : "0xa"
			printf "sample time=%d nthreads=1 values=%.3f\n", t0 + j * dt, (E(t - D) - E(t - dt / 1e9 - D)) * 1e6
			printf "ts tid=100 pid=100 pc=%s cpu=%d\n", pc, j * dt
		}
		printf "exit tid=100 pid=100 time=%d whole=1\n", t0 + n * dt
		printf "stats wall=%d latency=0 samples=%d thread_samples=%d missed=0 missing=0 signals=0 threads=1 processes=1 exit=0 totals=0\n", n * dt, n, n
	}
AWK

# joules CSV PC: the energy (J) the export gives PC's samples
joules() {
	grep -v "^#" "$1" | awk -F, -v pc="$2" 'NR > 1 && $5 == pc { s += $8 } END { printf "%.4f\n", s / 1e6 }'
}

test_expect_success 'a declared delay of 50 ms: each function its own energy (1% and 2%)' '
	awk -v D=0.05 -f gen.awk >d.txt &&
	"$BUILD/sampler-profile" build d.prof <d.txt &&
	"$EXPORT" --format csv -o d.csv d.prof &&
	expect_grep "^# meter index=0 rule=trapezoid update_ms=1 measured=0 delay_ms=50 delay_measured=0 " d.csv &&
	expect_near 10 "$(joules d.csv 0xa)" 0.1 "energy of 0xa (J)" &&
	expect_near 2.25 "$(joules d.csv 0xb)" 0.045 "energy of 0xb (J)"
'

test_done
