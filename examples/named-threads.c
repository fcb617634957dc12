/* named-threads [SECONDS] - threads that name themselves, as servers and
 * thread pools do: "worker-energy" spins for SECONDS (default 1),
 * "phase-one" spins half of it, renames itself "phase-two" and spins the
 * other half; the main thread waits. */
#include <pthread.h>
#include <stdio.h>

#include "workload.h"

static double seconds;

static void *energy(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "worker-energy");
	return (void *)(uintptr_t)spin_for(seconds);
}

static void *phases(void *arg)
{
	uint64_t x;

	(void)arg;
	pthread_setname_np(pthread_self(), "phase-one");
	x = spin_for(seconds / 2);
	pthread_setname_np(pthread_self(), "phase-two");
	return (void *)(uintptr_t)(x + spin_for(seconds / 2));
}

int main(int argc, char **argv)
{
	pthread_t a, b;

	seconds = arg_double(argc, argv, 1, 1.0);
	if (pthread_create(&a, NULL, energy, NULL) || pthread_create(&b, NULL, phases, NULL)) {
		perror("pthread_create");
		return 1;
	}
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	printf("named-threads: done\n");
	return 0;
}
