/* storm [SECONDS [N]] - a thread storm to attach to: N threads (default 8)
 * each create a thread and join it, over and over, for SECONDS (default
 * 30); the short-lived threads do a few microseconds of work.  Prints
 * "ready" once the storm runs, and at the end how many threads it made. */
#include <pthread.h>
#include <stdio.h>

#include "workload.h"

#define MAX_CREATORS 64

static double end;
static unsigned long made[MAX_CREATORS];

static void *short_life(void *arg)
{
	return (void *)(uintptr_t)work_units(2000, (uintptr_t)arg);
}

static void *creator(void *arg)
{
	unsigned long *count = arg;

	while (now_s() < end) {
		pthread_t t;

		if (pthread_create(&t, NULL, short_life, count) == 0) {
			pthread_join(t, NULL);
			(*count)++;
		}
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int n = (int)arg_double(argc, argv, 2, 8);
	pthread_t creators[MAX_CREATORS];
	unsigned long total = 0;

	end = now_s() + arg_double(argc, argv, 1, 30);
	if (n < 1 || n > MAX_CREATORS)
		n = 8;
	for (int i = 0; i < n; i++)
		pthread_create(&creators[i], NULL, creator, &made[i]);
	printf("ready\n");
	fflush(stdout);
	for (int i = 0; i < n; i++) {
		pthread_join(creators[i], NULL);
		total += made[i];
	}
	printf("threads %lu\n", total);
	return 0;
}
