/* churn [SECONDS [LIVE]] - threads come and go for SECONDS (default 0.6):
 * about LIVE (default 4) short-lived threads at a time, each living 1-20 ms,
 * some spinning and some sleeping.  Prints how many threads it created. */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#include "workload.h"

static void *short_life(void *arg)
{
	uintptr_t i = (uintptr_t)arg;
	double life = 0.001 + (double)(i * 7919 % 20) / 1000.0;

	if (i % 3 == 0)
		usleep((useconds_t)(life * 1e6));
	else
		spin_for(life);
	return NULL;
}

int main(int argc, char **argv)
{
	double end = now_s() + arg_double(argc, argv, 1, 0.6);
	int live = (int)arg_double(argc, argv, 2, 4);
	pthread_t ring[64];
	uintptr_t created = 0;

	if (live < 1 || live > 64)
		live = 4;
	for (int i = 0; i < live; i++)
		pthread_create(&ring[i], NULL, short_life, (void *)created++);
	while (now_s() < end) {
		int slot = (int)(created % (uintptr_t)live);

		pthread_join(ring[slot], NULL);
		if (pthread_create(&ring[slot], NULL, short_life, (void *)created) == 0)
			created++;
	}
	for (int i = 0; i < live; i++)
		pthread_join(ring[i], NULL);
	printf("created: %lu\n", (unsigned long)created);
	return 0;
}
