/* sigcount [-s] [-h HANDLER] [-a AFTER] [-g FILE] SECONDS SIGNAL... -
 * count the signals it receives.
 *
 * Installs a counting handler for each SIGNAL (a name without SIG: INT,
 * TERM, USR1, ...), prints "ready", runs until SECONDS have passed (busy,
 * so that it is sampled; asleep with -s), or AFTER seconds after the first
 * signal (-a), then prints each count in the order given ("INT=1 USR1=0")
 * and exits 0.  -h: each handler call spins HANDLER seconds, so a second
 * copy of a signal that comes meanwhile is delivered (and counted) on its
 * own instead of merging with the first.  -g: once ready, fork a child
 * that waits until FILE exists, sends the first SIGNAL to the process group
 * (kill(0, SIGNAL)) and exits.  Exit 2 on a bad command line.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "workload.h"

static volatile sig_atomic_t counts[NSIG], first_seen;
static double handler_seconds;

static void on_signal(int sig)
{
	counts[sig]++;
	first_seen = 1;
	if (handler_seconds > 0)
		spin_for(handler_seconds);
}

static int signal_number(const char *name)
{
	for (int sig = 1; sig < NSIG; sig++) {
		const char *abbrev = sigabbrev_np(sig);

		if (abbrev && strcmp(abbrev, name) == 0)
			return sig;
	}
	return -1;
}

static void pause_a_little(int asleep)
{
	struct timespec ts = { 0, 10000000 };

	if (asleep)
		nanosleep(&ts, NULL);
	else
		work_units(10000, 3);
}

/* The -g child: the signal to the group comes from the command's own
 * tree, not from the command itself. */
static void group_sender(const char *file, int sig)
{
	pid_t pid = fork();

	if (pid != 0)
		return;
	signal(sig, SIG_IGN);
	while (access(file, F_OK) < 0)
		pause_a_little(1);
	kill(0, sig);
	_exit(0);
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal, .sa_flags = SA_RESTART };
	int sigs[NSIG], n = 0, asleep = 0, c;
	double end, after = -1, first_at = 0;
	const char *go_file = NULL;

	while ((c = getopt(argc, argv, "+sh:a:g:")) != -1) {
		if (c == 's')
			asleep = 1;
		else if (c == 'h')
			handler_seconds = atof(optarg);
		else if (c == 'a')
			after = atof(optarg);
		else if (c == 'g')
			go_file = optarg;
		else
			goto usage;
	}
	if (argc < optind + 2)
		goto usage;
	end = now_s() + atof(argv[optind]);
	sigemptyset(&sa.sa_mask);
	for (int i = optind + 1; i < argc && n < NSIG; i++) {
		sigs[n] = signal_number(argv[i]);
		if (sigs[n] < 0 || sigaction(sigs[n], &sa, NULL) < 0)
			goto usage;
		n++;
	}
	printf("ready\n");
	fflush(stdout);
	if (go_file)
		group_sender(go_file, sigs[0]);
	for (double now = now_s(); now < end; now = now_s()) {
		if (first_seen && !first_at)
			first_at = now;
		if (first_at && after >= 0 && now >= first_at + after)
			break;
		pause_a_little(asleep);
	}
	for (int i = 0; i < n; i++)
		printf("%s%s=%d", i ? " " : "", argv[optind + 1 + i], (int)counts[sigs[i]]);
	printf("\n");
	if (go_file)
		wait(NULL);
	return 0;

usage:
	fprintf(stderr, "usage: sigcount [-s] [-h HANDLER] [-a AFTER] [-g FILE] SECONDS SIGNAL...\n");
	return 2;
}
