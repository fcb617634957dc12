/* demo-workload [SECONDS] - a few threads with different hot functions for
 * SECONDS (default 2): what `make demo` profiles. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "workload.h"

static double seconds;

__attribute__((noinline)) static uint64_t hash_strings(void)
{
	char buf[256];
	uint64_t h = 1469598103934665603ull;

	for (int i = 0; i < 1000; i++) {
		snprintf(buf, sizeof(buf), "key-%d-%llu", i, (unsigned long long)h);
		for (size_t j = 0; buf[j]; j++)
			h = (h ^ (unsigned char)buf[j]) * 1099511628211ull;
	}
	return h;
}

__attribute__((noinline)) static double integrate(void)
{
	double s = 0;

	for (int i = 1; i < 20000; i++)
		s += sin(i * 0.001) / i;
	return s;
}

__attribute__((noinline)) static uint64_t sort_array(void)
{
	static __thread int a[2048];
	uint64_t x = 88172645463325252ull;

	for (int i = 0; i < 2048; i++) {
		x = x * 6364136223846793005ull + 1;
		a[i] = (int)(x >> 33);
	}
	for (int i = 1; i < 2048; i++)	/* insertion sort: quadratic on purpose */
		for (int j = i; j > 0 && a[j - 1] > a[j]; j--) {
			int t = a[j];

			a[j] = a[j - 1];
			a[j - 1] = t;
		}
	return (uint64_t)a[0];
}

static void *run_hash(void *arg)
{
	double end = now_s() + seconds;
	uint64_t h = 0;

	while (now_s() < end)
		h += hash_strings();
	return arg ? (void *)(uintptr_t)h : NULL;
}

static void *run_integrate(void *arg)
{
	double end = now_s() + seconds, s = 0;

	while (now_s() < end)
		s += integrate();
	return arg && s > 0 ? arg : NULL;
}

static void *run_sort(void *arg)
{
	double end = now_s() + seconds;
	uint64_t x = 0;

	while (now_s() < end)
		x += sort_array();
	return arg ? (void *)(uintptr_t)x : NULL;
}

int main(int argc, char **argv)
{
	void *(*jobs[])(void *) = { run_hash, run_integrate, run_sort };
	pthread_t tids[3];

	seconds = arg_double(argc, argv, 1, 2);
	for (int i = 0; i < 3; i++)
		pthread_create(&tids[i], NULL, jobs[i], NULL);
	spin_for(seconds / 4);
	for (int i = 0; i < 3; i++)
		pthread_join(tids[i], NULL);
	printf("demo-workload: 3 threads (hash_strings, integrate, sort_array) for %.1f s\n", seconds);
	return 0;
}
