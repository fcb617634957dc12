/* vfork-wait SECONDS [alone] - a thread waits in vfork() for a child that
 * spins SECONDS and exits (the child prints "child PID" first), while
 * another thread spins and prints "per_s N" every 0.1 s: the loops it ran
 * per second of wall time since its previous line (how fast it runs while
 * something holds it).  With "alone"
 * the main thread does the vfork and nothing else runs: one thread, in
 * vfork.  Ends when the child has exited. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "workload.h"

static double seconds;
static volatile int done;

static void *counter(void *arg)
{
	(void)arg;
	while (!done) {
		double start = now_s(), now;
		unsigned long n = 0;

		while ((now = now_s()) < start + 0.1) {
			work_units(100, n);
			n++;
		}
		printf("per_s %.0f\n", (double)n / (now - start));
		fflush(stdout);
	}
	return NULL;
}

static void wait_in_vfork(void)
{
	pid_t child = vfork();

	if (child == 0) {
		char line[32];
		int n = snprintf(line, sizeof(line), "child %d\n", (int)getpid());

		/* write(2) and _exit(2) only: the child runs on its parent's stack */
		if (write(STDOUT_FILENO, line, (size_t)n) < 0)
			_exit(1);
		spin_for(seconds);
		_exit(0);
	}
	if (child > 0)
		waitpid(child, NULL, 0);
}

int main(int argc, char **argv)
{
	pthread_t t;

	seconds = arg_double(argc, argv, 1, 3);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 2 && strcmp(argv[2], "alone") == 0) {
		wait_in_vfork();
		return 0;
	}
	pthread_create(&t, NULL, counter, NULL);
	usleep(200000);		/* the counter's first lines: its pace alone */
	wait_in_vfork();
	done = 1;
	pthread_join(t, NULL);
	return 0;
}
