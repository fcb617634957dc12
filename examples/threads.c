/* threads [N [SECONDS]] - N threads (default 64), all started before any
 * of them spins, spinning together for SECONDS (default 0.5).  Prints how
 * long starting them took. */
#include <pthread.h>
#include <stdio.h>

#include "workload.h"

static double seconds;
static pthread_barrier_t all_started;

static void *spinner(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&all_started);
	return (void *)(uintptr_t)spin_for(seconds);
}

int main(int argc, char **argv)
{
	int n = (int)arg_double(argc, argv, 1, 64);
	pthread_t *tids = calloc((size_t)n, sizeof(*tids));

	double t0 = now_s();

	seconds = arg_double(argc, argv, 2, 0.5);
	if (n < 1)
		n = 1;
	pthread_barrier_init(&all_started, NULL, (unsigned)n);
	for (int i = 1; i < n; i++)
		if (pthread_create(&tids[i], NULL, spinner, NULL)) {
			perror("pthread_create");
			return 1;
		}
	printf("start_ms=%.1f\n", (now_s() - t0) * 1000);
	spinner(NULL);
	for (int i = 1; i < n; i++)
		pthread_join(tids[i], NULL);
	printf("threads: %d\n", n);
	free(tids);
	return 0;
}
