/* leader-exit [SECONDS] - the main thread starts a spinning thread and ends
 * with pthread_exit; the process lives on for SECONDS (default 0.3) in that
 * thread while its leader is a zombie. */
#include <pthread.h>

#include "workload.h"

static double seconds;

static void *spinner(void *arg)
{
	(void)arg;
	spin_for(seconds);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t tid;

	seconds = arg_double(argc, argv, 1, 0.3);
	pthread_create(&tid, NULL, spinner, NULL);
	pthread_exit(NULL);
}
