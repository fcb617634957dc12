/* hw-untraced FILE - clone a child with CLONE_UNTRACED, which a tracer
 * does not follow; print "child=PID", and let both wait until FILE exists
 * (the test creates it once it has looked at both: a wall-clock window
 * can close before a loaded machine runs the test's checks).  The child
 * then prints "untraced child done"; the parent waits for it and exits 0.
 * Both give up after a minute (exit 1), so that a test that died first
 * leaves nothing behind. */
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../examples/workload.h"

static const char *go;

/* wait_for_go: 0 once the file exists, -1 after a minute without it */
static int wait_for_go(void)
{
	const struct timespec nap = { 0, 10 * 1000 * 1000 };
	double end = now_s() + 60;

	while (access(go, F_OK) != 0) {
		if (now_s() > end)
			return -1;
		nanosleep(&nap, NULL);
	}
	return 0;
}

static int child_main(void *arg)
{
	(void)arg;
	if (wait_for_go() != 0)
		return 1;
	printf("untraced child done\n");
	fflush(stdout);
	return 0;
}

int main(int argc, char **argv)
{
	static char stack[256 * 1024] __attribute__((aligned(16)));
	pid_t child;
	int status;

	if (argc != 2) {
		fprintf(stderr, "usage: hw-untraced FILE\n");
		return 2;
	}
	go = argv[1];
	fflush(stdout);
	child = clone(child_main, stack + sizeof(stack), CLONE_UNTRACED | SIGCHLD, NULL);
	if (child < 0) {
		perror("clone");
		return 1;
	}
	printf("child=%d\n", (int)child);
	fflush(stdout);
	if (wait_for_go() != 0)
		return 1;
	return waitpid(child, &status, 0) == child && WIFEXITED(status) &&
	       WEXITSTATUS(status) == 0 ? 0 : 1;
}
