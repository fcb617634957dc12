/* hw-untraced [SECONDS] - clone a child with CLONE_UNTRACED, which a
 * tracer does not follow; print "child=PID", and let both spin SECONDS
 * (default 1).  The child then prints "untraced child done"; the parent
 * waits for it and exits 0. */
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>

#include "../../examples/workload.h"

static double seconds;

static int child_main(void *arg)
{
	(void)arg;
	spin_for(seconds);
	printf("untraced child done\n");
	fflush(stdout);
	return 0;
}

int main(int argc, char **argv)
{
	static char stack[256 * 1024] __attribute__((aligned(16)));
	pid_t child;

	seconds = arg_double(argc, argv, 1, 1);
	fflush(stdout);
	child = clone(child_main, stack + sizeof(stack), CLONE_UNTRACED | SIGCHLD, NULL);
	if (child < 0) {
		perror("clone");
		return 1;
	}
	printf("child=%d\n", (int)child);
	fflush(stdout);
	spin_for(seconds);
	return waitpid(child, NULL, 0) == child ? 0 : 1;
}
