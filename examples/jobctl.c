/* jobctl - stops itself with SIGSTOP; a helper child continues it with
 * SIGCONT 100 ms later.  Prints how long it was stopped and exits 0 when it
 * was continued (and saw its SIGCONT handler run once). */
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "workload.h"

static volatile sig_atomic_t conts;

static void on_cont(int sig)
{
	(void)sig;
	conts++;
}

int main(void)
{
	struct sigaction sa = { .sa_handler = on_cont };
	pid_t parent = getpid(), helper;
	double t0, stopped;

	sigemptyset(&sa.sa_mask);
	sigaction(SIGCONT, &sa, NULL);
	spin_for(0.05);
	helper = fork();
	if (helper == 0) {
		usleep(100000);
		kill(parent, SIGCONT);
		_exit(0);
	}
	t0 = now_s();
	raise(SIGSTOP);
	stopped = now_s() - t0;
	spin_for(0.05);
	waitpid(helper, NULL, 0);
	printf("stopped_ms=%.0f conts=%d\n", stopped * 1000, (int)conts);
	return conts == 1 && stopped >= 0.08 ? 0 : 1;
}
