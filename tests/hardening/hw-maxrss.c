/* hw-maxrss CMD [ARG...] - run CMD and print "maxrss_kib=N": the peak
 * resident size of CMD (or of a child it waited for, if larger), from
 * wait4().  Exits with CMD's status.  The sampler's memory figures (t1070,
 * make soak) come from here: a shell loop the sampler runs stays far below
 * the sampler itself. */
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct rusage ru;
	int status;
	pid_t pid;

	if (argc < 2) {
		fprintf(stderr, "usage: hw-maxrss CMD [ARG...]\n");
		return 2;
	}
	pid = fork();
	if (pid < 0) {
		perror("hw-maxrss: fork");
		return 2;
	}
	if (pid == 0) {
		execvp(argv[1], argv + 1);
		perror("hw-maxrss: exec");
		_exit(127);
	}
	if (wait4(pid, &status, 0, &ru) < 0) {
		perror("hw-maxrss: wait4");
		return 2;
	}
	printf("maxrss_kib=%ld\n", ru.ru_maxrss);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
