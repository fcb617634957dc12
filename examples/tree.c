/* tree [DEPTH [SECONDS]] - every thread starts two threads the moment it
 * begins, down to DEPTH levels (default 6: 63 threads in all), then spins
 * for SECONDS (default 0.05) and joins its two.  New threads that start
 * threads at once are what a sampler with several tracers must not lose
 * (sampler --tracers).  Prints how many threads there were. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

#include "workload.h"

static double seconds;
static atomic_int threads = 1;

static void *branch(void *arg)
{
	int depth = (int)(uintptr_t)arg;
	pthread_t kids[2];
	int n = 0;

	for (; depth > 1 && n < 2; n++) {
		if (pthread_create(&kids[n], NULL, branch, (void *)(uintptr_t)(depth - 1))) {
			perror("pthread_create");
			break;
		}
		atomic_fetch_add(&threads, 1);
	}
	spin_for(seconds);
	while (n > 0)
		pthread_join(kids[--n], NULL);
	return NULL;
}

int main(int argc, char **argv)
{
	int depth = (int)arg_double(argc, argv, 1, 6);

	seconds = arg_double(argc, argv, 2, 0.05);
	branch((void *)(uintptr_t)(depth < 1 ? 1 : depth > 12 ? 12 : depth));
	printf("threads: %d\n", atomic_load(&threads));
	return 0;
}
