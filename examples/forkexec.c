/* forkexec [SECONDS] - fork; the child execs `busy SECONDS` (the busy
 * example next to this program), the parent spins meanwhile and waits. */
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "workload.h"

int main(int argc, char **argv)
{
	const char *seconds = argc > 1 ? argv[1] : "0.3";
	char self[PATH_MAX], busy[PATH_MAX + 8];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	int status;
	pid_t pid;

	if (n < 0)
		return 1;
	self[n] = '\0';
	snprintf(busy, sizeof(busy), "%s/busy", dirname(self));
	pid = fork();
	if (pid == 0) {
		execl(busy, "busy", seconds, (char *)NULL);
		_exit(127);
	}
	spin_for(atof(seconds) / 2);
	waitpid(pid, &status, 0);
	printf("child %d exited %d\n", (int)pid, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
