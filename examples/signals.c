/* signals [COUNT] - uses SIGUSR2 and SIGALRM itself: sends itself SIGUSR2
 * COUNT times (default 50), waiting for each, while an interval timer
 * delivers SIGALRM every 2 ms; SIGUSR1 and SIGTRAP, which it never sends,
 * are counted as "other".  Prints the counts; exit 0 when they are right. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <sys/time.h>

#include "workload.h"

static volatile sig_atomic_t usr2, alrm, other;

static void on_signal(int sig)
{
	if (sig == SIGUSR2)
		usr2++;
	else if (sig == SIGALRM)
		alrm++;
	else
		other++;
}

int main(int argc, char **argv)
{
	int count = (int)arg_double(argc, argv, 1, 50);
	struct itimerval it = { { 0, 2000 }, { 0, 2000 } };
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR2, &sa, NULL);
	sigaction(SIGALRM, &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGTRAP, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
	for (int i = 0; i < count; i++) {
		int before = usr2;

		raise(SIGUSR2);
		while (usr2 == before)
			;
		spin_for(0.002);
	}
	while (alrm < count)
		spin_for(0.0005);
	it.it_value.tv_usec = it.it_interval.tv_usec = 0;
	setitimer(ITIMER_REAL, &it, NULL);
	spin_for(0.01);
	printf("usr2=%d alrm>=%d other=%d\n", (int)usr2, alrm >= count ? count : (int)alrm, (int)other);
	return usr2 == count && other == 0 ? 0 : 1;
}
