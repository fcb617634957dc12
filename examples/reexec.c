/* reexec [SECONDS] - a process that execs itself from a thread, over and
 * over: each image starts a thread that spins 10 ms and execs this
 * program again, while the main thread waits; for SECONDS (default 30,
 * counted across the execs).  Prints "ready" at the first image. */
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "workload.h"

static char self[PATH_MAX], until[32];

static void *execer(void *arg)
{
	(void)arg;
	spin_for(0.01);
	execl(self, "reexec", "-u", until, (char *)NULL);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;
	double end;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n <= 0)
		return 1;
	self[n] = '\0';
	if (argc > 2 && argv[1][0] == '-' && argv[1][1] == 'u') {
		end = atof(argv[2]);
	} else {
		end = now_s() + arg_double(argc, argv, 1, 30);
		printf("ready\n");
		fflush(stdout);
	}
	if (now_s() >= end)
		return 0;
	snprintf(until, sizeof(until), "%.6f", end);
	pthread_create(&t, NULL, execer, NULL);
	pthread_join(t, NULL);	/* the exec ends this thread */
	return 1;
}
