/* blocked [BUSY [BLOCKED [UNITS]]] - the shape of a server or a runtime:
 * BUSY threads (default 4) each do UNITS million work units (default 75)
 * while BLOCKED threads (default 60) wait on a condition variable the whole
 * time.  Prints its wall time and its own CPU time (user + system):
 * (what wait4 reports to its parent), one per line:
 *   runtime_s=0.512
 *   cpu_s=2.01 */
#include <pthread.h>
#include <stdio.h>

#include "workload.h"

static uint64_t units;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int done;

static void *waiter(void *arg)
{
	pthread_mutex_lock(&lock);
	while (!done)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
	return arg;
}

static void *worker(void *arg)
{
	return (void *)(uintptr_t)work_units(units, (uintptr_t)arg + 1);
}

int main(int argc, char **argv)
{
	int busy = (int)arg_double(argc, argv, 1, 4), nblocked = (int)arg_double(argc, argv, 2, 60);
	pthread_t *w = calloc((size_t)(busy + 1), sizeof(*w));
	pthread_t *b = calloc((size_t)(nblocked + 1), sizeof(*b));
	double t0;

	units = (uint64_t)(arg_double(argc, argv, 3, 75) * 1e6);
	for (int i = 0; i < nblocked; i++)
		pthread_create(&b[i], NULL, waiter, NULL);
	t0 = now_s();
	for (int i = 0; i < busy; i++)
		pthread_create(&w[i], NULL, worker, (void *)(uintptr_t)i);
	for (int i = 0; i < busy; i++)
		pthread_join(w[i], NULL);
	printf("runtime_s=%.6f\ncpu_s=%.6f\n", now_s() - t0, cpu_s());
	pthread_mutex_lock(&lock);
	done = 1;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
	for (int i = 0; i < nblocked; i++)
		pthread_join(b[i], NULL);
	free(w);
	free(b);
	return 0;
}
