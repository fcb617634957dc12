/* hw-tree N SECONDS - fork N children; every process (the parent too) runs
 * two threads spinning for SECONDS.  Prints "ready PID..." (the children's
 * pids) once all are forked, so that a test can look for them later. */
#include <pthread.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../examples/workload.h"

static double seconds;

static void *spinner(void *arg)
{
	(void)arg;
	spin_for(seconds);
	return NULL;
}

static void spin_two_threads(void)
{
	pthread_t other;

	pthread_create(&other, NULL, spinner, NULL);
	spinner(NULL);
	pthread_join(other, NULL);
}

int main(int argc, char **argv)
{
	int n = (int)arg_double(argc, argv, 1, 3);

	seconds = arg_double(argc, argv, 2, 1);
	printf("ready");
	for (int i = 0; i < n; i++) {
		pid_t pid;

		fflush(stdout);
		pid = fork();
		if (pid == 0) {
			spin_two_threads();
			_exit(0);
		}
		printf(" %d", (int)pid);
	}
	printf("\n");
	fflush(stdout);
	spin_two_threads();
	while (wait(NULL) > 0)
		;
	return 0;
}
