/* frameless [SECONDS] - callers of leaves without a frame, for the
 * frame-pointer call-stack tests.  Built -O2 with frame pointers: gcc
 * still gives a leaf (a function that calls nothing) no frame of its own,
 * so while spin() runs, rbp is its caller's and a frame-pointer walk that
 * starts there skips that caller.
 *
 * The main thread repeats, each call timed by its own thread CPU time:
 *     direct()  spin() for 2 units
 *     outer()   spin() for 1 unit, then inner(): spin() for 2 units
 * and prints the shares it measured (percent of its CPU time in the loop):
 *     share direct=39.9 outer=59.8 inner=39.9 */
#include <stdio.h>

#include "workload.h"

/* Work units of about 1 ms: long against the thread-CPU clock reads
 * around each call (a system call: the sampler stops threads at their
 * exits more often than their 1-2 us warrant, 8% of the weight at 0.25 ms
 * units on this VM, under 2% at 1 ms). */
#define UNIT 400000
#define NOINLINE __attribute__((noinline))

static volatile uint64_t sink;
static double t_inner;

static double cpu_now(void)
{
	return clock_s(CLOCK_THREAD_CPUTIME_ID);
}

/* The frameless leaf: a loop that calls nothing. */
NOINLINE uint64_t spin(uint64_t n, uint64_t x)
{
	for (uint64_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		__asm__ volatile("" : "+r"(x));
	}
	return x;
}

NOINLINE void direct(void)
{
	sink += spin(2 * UNIT, sink + 1);
}

NOINLINE void inner(void)
{
	sink += spin(2 * UNIT, sink + 3);
}

NOINLINE void outer(void)
{
	double t0;

	sink += spin(UNIT, sink + 2);
	t0 = cpu_now();
	inner();
	t_inner += cpu_now() - t0;
}

int main(int argc, char **argv)
{
	double end = now_s() + arg_double(argc, argv, 1, 2.0);
	double t_direct = 0, t_outer = 0, t0, t, sum, start = cpu_now();

	while (now_s() < end) {
		t0 = cpu_now();
		direct();
		t = cpu_now();
		t_direct += t - t0;
		outer();
		t_outer += cpu_now() - t;
	}
	sum = cpu_now() - start;
	printf("share direct=%.2f outer=%.2f inner=%.2f\n", 100 * t_direct / sum,
	       100 * t_outer / sum, 100 * t_inner / sum);
	return 0;
}
