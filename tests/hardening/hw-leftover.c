/* hw-leftover MODE [SECONDS] - the first process ends and leaves a child
 * behind, in the state MODE says; the child prints "child done" once it
 * has run SECONDS (default 0.2) after that state, and exits 0.
 *
 *   stop   the child stops itself with SIGSTOP; the first process waits
 *          until it is stopped, prints "child=PID" and exits 0.
 *   vfork  the child waits in vfork: its vfork child tells the first
 *          process, which prints "child=PID vforked=PID" and exits 0; the
 *          vfork child spins until the first process is gone and SECONDS
 *          more, then _exits; the child then prints "child done".
 *   run    the child just runs (spins) SECONDS * 10; the first process
 *          prints "child=PID" and exits 0.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../examples/workload.h"

static int child_done(void)
{
	printf("child done\n");
	fflush(stdout);
	return 0;
}

/* The vfork child: runs on its parent's stack, so it only calls
 * async-signal-safe functions and leaves through _exit. */
__attribute__((noinline)) static void in_vfork(int tell_fd, pid_t first, double seconds)
{
	pid_t me = getpid();

	if (write(tell_fd, &me, sizeof(me)) < 0)
		_exit(1);
	while (kill(first, 0) == 0)
		work_units(10000, 3);	/* until the first process is gone */
	spin_for(seconds);
	_exit(0);
}

__attribute__((noinline)) static int vfork_and_wait(int tell_fd, pid_t first, double seconds)
{
	pid_t pid = vfork();

	if (pid == 0)
		in_vfork(tell_fd, first, seconds);
	return pid < 0 ? 1 : child_done();
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "stop";
	double seconds = arg_double(argc, argv, 2, 0.2);
	pid_t first = getpid(), child, vforked = 0;
	int tell[2], status;

	if (pipe(tell) < 0)
		return 1;
	fflush(stdout);
	child = fork();
	if (child < 0)
		return 1;
	if (child == 0) {
		close(tell[0]);
		if (strcmp(mode, "stop") == 0) {
			raise(SIGSTOP);
		} else if (strcmp(mode, "vfork") == 0) {
			return vfork_and_wait(tell[1], first, seconds);
		} else {
			spin_for(seconds * 10);
			return child_done();
		}
		spin_for(seconds);
		return child_done();
	}
	close(tell[1]);
	if (strcmp(mode, "stop") == 0 && waitpid(child, &status, WUNTRACED) != child)
		return 1;
	if (strcmp(mode, "vfork") == 0 && read(tell[0], &vforked, sizeof(vforked)) != sizeof(vforked))
		return 1;
	printf("child=%d", (int)child);
	if (vforked)
		printf(" vforked=%d", (int)vforked);
	printf("\n");
	return 0;
}
