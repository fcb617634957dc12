/* spawn [COUNT] - starts /bin/true COUNT times (default 10) with vfork and
 * COUNT times with posix_spawn, waiting for each; prints how many ended 0. */
#include <spawn.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "workload.h"

extern char **environ;

static int reap(pid_t pid)
{
	int status;

	return pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	       WEXITSTATUS(status) == 0;
}

static char *args[] = { "true", NULL };

/* In a function of its own: nothing of the caller's lives across vfork. */
__attribute__((noinline)) static pid_t vfork_true(void)
{
	pid_t pid = vfork();

	if (pid == 0) {
		execv("/bin/true", args);
		_exit(127);
	}
	return pid;
}

int main(int argc, char **argv)
{
	int count = (int)arg_double(argc, argv, 1, 10), ok = 0;

	for (int i = 0; i < count; i++) {
		pid_t pid = vfork_true();

		ok += reap(pid);
		if (posix_spawn(&pid, "/bin/true", NULL, NULL, args, environ) == 0)
			ok += reap(pid);
		spin_for(0.002);
	}
	printf("ok=%d\n", ok);
	return ok == 2 * count ? 0 : 1;
}
