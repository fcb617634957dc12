/* attrib [SECONDS] - three functions taking about 20, 30 and 50% of the CPU
 * time; each call measures its own thread CPU time, and at the end the
 * program prints the measured shares in percent:
 *     share f20=20.1 f30=29.8 f50=50.1
 * The profile of this program must attribute the same shares. */
#include <stdio.h>

#include "workload.h"

#define UNITS 400000		/* work of one call to f20 (about 1 ms) */

static uint64_t sink;

__attribute__((noinline)) void f20(void)
{
	sink += work_units(2 * UNITS, sink + 1);
}

__attribute__((noinline)) void f30(void)
{
	sink += work_units(3 * UNITS, sink + 2);
}

__attribute__((noinline)) void f50(void)
{
	sink += work_units(5 * UNITS, sink + 3);
}

static double timed(void (*fn)(void))
{
	double t0 = clock_s(CLOCK_THREAD_CPUTIME_ID);

	fn();
	return clock_s(CLOCK_THREAD_CPUTIME_ID) - t0;
}

int main(int argc, char **argv)
{
	double end = now_s() + arg_double(argc, argv, 1, 0.8);
	double t20 = 0, t30 = 0, t50 = 0, sum;

	while (now_s() < end) {
		t20 += timed(f20);
		t30 += timed(f30);
		t50 += timed(f50);
	}
	sum = t20 + t30 + t50;
	printf("share f20=%.2f f30=%.2f f50=%.2f\n", 100 * t20 / sum, 100 * t30 / sum,
	       100 * t50 / sum);
	return 0;
}
