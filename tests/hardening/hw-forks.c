/* hw-forks [N [SECONDS]] - fork N children (default 200), each spinning
 * SECONDS (default 0.005) then exiting 0, at most 8 alive at once; print
 * "forked N reaped N ok N". */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../examples/workload.h"

static int reap_one(int *ok)
{
	int status;

	if (wait(&status) < 0)
		return 0;
	*ok += WIFEXITED(status) && WEXITSTATUS(status) == 0;
	return 1;
}

int main(int argc, char **argv)
{
	int n = (int)arg_double(argc, argv, 1, 200), forked = 0, reaped = 0, ok = 0;
	double seconds = arg_double(argc, argv, 2, 0.005);

	for (int i = 0; i < n; i++) {
		pid_t pid;

		if (forked - reaped >= 8)
			reaped += reap_one(&ok);
		pid = fork();
		if (pid < 0) {
			perror("fork");
			break;
		}
		if (pid == 0)
			_exit(spin_for(seconds) == 42);
		forked++;
	}
	while (reaped < forked && reap_one(&ok))
		reaped++;
	printf("forked %d reaped %d ok %d\n", forked, reaped, ok);
	return ok == n ? 0 : 1;
}
