/* term [SECONDS] - spin until SIGTERM (or SECONDS, default 5); the handler
 * prints "terminated by SIGTERM" and exits 0.  Exit 1 when no SIGTERM came.
 * SIGINT gets its default action (kills it), even when a shell started it
 * in the background with SIGINT ignored.
 * term SECONDS count-int - count SIGINTs instead: 200 ms after the first
 * one, print "sigint=N" and exit 0. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "workload.h"

static volatile sig_atomic_t terminated, interrupts;

static void on_term(int sig)
{
	(void)sig;
	terminated = 1;
}

static void on_int(int sig)
{
	(void)sig;
	interrupts++;
}

static int count_interrupts(double end)
{
	struct sigaction sa = { .sa_handler = on_int };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	printf("ready\n");
	fflush(stdout);
	while (!interrupts && now_s() < end)
		work_units(10000, 3);
	spin_for(0.2);
	printf("sigint=%d\n", (int)interrupts);
	return interrupts ? 0 : 1;
}

int main(int argc, char **argv)
{
	double end = now_s() + arg_double(argc, argv, 1, 5);
	struct sigaction sa = { .sa_handler = on_term };

	if (argc > 2 && strcmp(argv[2], "count-int") == 0)
		return count_interrupts(end);
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGINT, SIG_DFL);
	printf("ready\n");
	fflush(stdout);
	while (!terminated && now_s() < end)
		work_units(10000, 3);
	if (!terminated)
		return 1;
	printf("terminated by SIGTERM\n");
	return 0;
}
