/* hw-writer [SECONDS [THREADS]] - THREADS threads (default 1) spin for
 * SECONDS (default 1) in 1 ms slices; then print "finished THREADS threads
 * after SECONDS s, N slices": proof that the target ran to its end. */
#include <pthread.h>
#include <stdio.h>

#include "../../examples/workload.h"

static double end;

static void *slices(void *arg)
{
	long *count = arg;
	uint64_t x = 1;

	while (now_s() < end) {
		x += spin_for(0.001);
		(*count)++;
	}
	return (void *)(uintptr_t)x;
}

int main(int argc, char **argv)
{
	double seconds = arg_double(argc, argv, 1, 1.0);
	int n = (int)arg_double(argc, argv, 2, 1);
	pthread_t ids[256];
	long counts[256] = { 0 }, total = 0;

	if (n < 1 || n > 256)
		n = 1;
	end = now_s() + seconds;
	for (int i = 1; i < n; i++)
		pthread_create(&ids[i], NULL, slices, &counts[i]);
	slices(&counts[0]);
	for (int i = 1; i < n; i++)
		pthread_join(ids[i], NULL);
	for (int i = 0; i < n; i++)
		total += counts[i];
	printf("finished %d threads after %g s, %ld slices\n", n, seconds, total);
	return 0;
}
