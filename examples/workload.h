/* workload.h - small helpers shared by the example workloads. */
#ifndef EXAMPLES_WORKLOAD_H
#define EXAMPLES_WORKLOAD_H

#include <stdint.h>
#include <stdlib.h>
#include <time.h>

static inline double clock_s(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The process's own CPU time, user + system (what wait4 reports). */
static inline double cpu_s(void)
{
	return clock_s(CLOCK_PROCESS_CPUTIME_ID);
}

static inline double now_s(void)
{
	return clock_s(CLOCK_MONOTONIC);
}

/* A fixed amount of work the compiler cannot remove. */
static inline uint64_t work_units(uint64_t n, uint64_t seed)
{
	uint64_t x = seed | 1;

	for (uint64_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		__asm__ volatile("" : "+r"(x));
	}
	return x;
}

/* Spin on the CPU for about seconds of wall time. */
static inline uint64_t spin_for(double seconds)
{
	double end = now_s() + seconds;
	uint64_t x = 1;

	while (now_s() < end)
		x += work_units(2000, x);
	return x;
}

static inline double arg_double(int argc, char **argv, int i, double def)
{
	return argc > i ? atof(argv[i]) : def;
}

#endif
