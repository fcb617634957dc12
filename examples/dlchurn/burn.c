/* burn.c - the library examples/dlchurn loads: built twice, as
 * libchurn-a.so (WHICH=a) and libchurn-b.so (WHICH=b), the same code under
 * two function names, so that both load at the same address in turn. */
#include <time.h>

#include "../workload.h"

#define NAME2(a, b) a##b
#define NAME(which) NAME2(churn_burn_, which)

/* Spin in this library until the thread has run ns of CPU time. */
uint64_t NAME(WHICH)(uint64_t ns)
{
	double end = clock_s(CLOCK_THREAD_CPUTIME_ID) + (double)ns / 1e9;
	uint64_t x = 1;

	while (clock_s(CLOCK_THREAD_CPUTIME_ID) < end)
		x += work_units(20000, x);
	return x;
}
