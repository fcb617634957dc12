/* hw-blockall [SECONDS] - block every signal it can, then spin for SECONDS
 * (default 0.3) and print "blocked N signals" with how many stayed blocked. */
#include <signal.h>
#include <stdio.h>

#include "../../examples/workload.h"

int main(int argc, char **argv)
{
	sigset_t all, now;
	int blocked = 0;
	uint64_t x;

	sigfillset(&all);
	if (sigprocmask(SIG_SETMASK, &all, NULL) < 0) {
		perror("sigprocmask");
		return 2;
	}
	x = spin_for(arg_double(argc, argv, 1, 0.3));
	sigprocmask(SIG_SETMASK, NULL, &now);
	for (int sig = 1; sig < NSIG; sig++)
		blocked += sigismember(&now, sig) == 1;
	printf("blocked %d signals\n", blocked);
	return x == 42;
}
