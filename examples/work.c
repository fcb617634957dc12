/* work [THREADS [UNITS]] - a fixed amount of work for the bench: THREADS
 * threads (default 1) each do UNITS million work units (default 100), then
 * the program prints its own wall-clock runtime and CPU time (user +
 * system, what wait4 reports), one per line:  runtime_s=0.512 */
#include <pthread.h>
#include <stdio.h>

#include "workload.h"

static uint64_t units;

static void *worker(void *arg)
{
	return (void *)(uintptr_t)work_units(units, (uintptr_t)arg + 1);
}

int main(int argc, char **argv)
{
	int n = (int)arg_double(argc, argv, 1, 1);
	pthread_t *tids = calloc((size_t)(n > 0 ? n : 1), sizeof(*tids));
	double t0 = now_s();

	units = (uint64_t)(arg_double(argc, argv, 2, 100) * 1e6);
	for (int i = 1; i < n; i++)
		pthread_create(&tids[i], NULL, worker, (void *)(uintptr_t)i);
	worker(NULL);
	for (int i = 1; i < n; i++)
		pthread_join(tids[i], NULL);
	printf("runtime_s=%.6f\ncpu_s=%.6f\n", now_s() - t0, cpu_s());
	free(tids);
	return 0;
}
