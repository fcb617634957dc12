/* nap.c - the clock of sampler top's views, and the signals that end a
 * nap (view.h): the plain and the terminal view wait here, and top.c
 * passes on the signal that ended the view to the recorder. */
#include <signal.h>
#include <time.h>

#include "view.h"

static volatile sig_atomic_t got_signal;

static void on_signal(int sig)
{
	got_signal = sig;
}

void top_catch_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };
	static const int sigs[] = { SIGINT, SIGQUIT, SIGHUP, SIGTERM };

	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
}

int top_signal_got(void)
{
	return got_signal;
}

void top_nap(struct top_run *run, int ms)
{
	for (int left = ms; left > 0 && !run->quit && !run->ended; left -= 20) {
		struct timespec ts = { 0, (left < 20 ? left : 20) * 1000000L };

		nanosleep(&ts, NULL);
		if (got_signal) {
			if (got_signal == SIGHUP)
				run->hangup = 1;
			run->quit = 1;
		}
	}
	if (got_signal)
		run->quit = 1;
}
