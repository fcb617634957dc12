/* inlined [CPU_SECONDS] - most of its CPU time in round_sum, a static function
 * the compiler inlines into its one caller, work (built -O2: round_sum has
 * no symbol of its own, only DWARF inline scopes).  The inlined-frames
 * tests compare its share with perf report --inline's: it runs until it
 * used CPU_SECONDS of CPU time (default 0.5), so that a loaded machine
 * still gives them as many samples. */
#include <stdio.h>

#include "workload.h"

#define N 4096

static volatile double sink;

static double round_sum(const double *v, int n)
{
	double s = 0;

	for (int i = 0; i < n; i++)
		s += (double)(long)(v[i] * 1000.5 + 0.5) / 1000.0;
	return s;
}

/* (external: no specialized clone, work keeps its name) */
__attribute__((noinline)) double work(const double *v, int n);
__attribute__((noinline)) double work(const double *v, int n)
{
	double t = round_sum(v, n);

	for (int i = 0; i < n / 4; i++)		/* work's own share */
		t += v[i] * v[(i * 7) % n];
	return t;
}

int main(int argc, char **argv)
{
	double end = cpu_s() + arg_double(argc, argv, 1, 0.5);
	static double v[N];

	for (int i = 0; i < N; i++)
		v[i] = i * 0.37;
	while (cpu_s() < end)
		sink = work(v, N);
	return 0;
}
