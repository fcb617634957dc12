/* thread-exec [SECONDS [wait]] - three threads spin; after SECONDS (default
 * 0.1) the second one execs `busy 0.2` (the example next to this program),
 * which ends every other thread and gives the process a new image under the
 * leader's pid.  With "wait" the leader does not spin but waits for its
 * threads (its CPU time stays near 0, the execing thread's does not). */
#include <libgen.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "workload.h"

static char busy[PATH_MAX + 8];
static double seconds;

static void *spinner(void *arg)
{
	spin_for(seconds);
	if (arg)
		execl(busy, "busy", "0.2", (char *)NULL);
	for (;;)
		spin_for(1);
	return NULL;
}

int main(int argc, char **argv)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	pthread_t tids[2];

	if (n < 0)
		return 1;
	self[n] = '\0';
	snprintf(busy, sizeof(busy), "%s/busy", dirname(self));
	seconds = arg_double(argc, argv, 1, 0.1);
	pthread_create(&tids[0], NULL, spinner, NULL);
	pthread_create(&tids[1], NULL, spinner, busy);
	if (argc > 2 && strcmp(argv[2], "wait") == 0)
		pthread_join(tids[0], NULL);	/* ended by the exec */
	else
		spinner(NULL);
	return 1;
}
