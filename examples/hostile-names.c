/* hostile-names [SECONDS [THREAD-NAME]] - a workload whose names carry
 * bytes a terminal, an XML, JSON or CSV reader must not get raw: the main
 * thread spins in hostile_main_fn, a thread named THREAD-NAME (set with
 * prctl PR_SET_NAME, default one with ESC, BEL, a newline, a quote, a
 * comma and a byte that is not UTF-8) spins in hostile_thread_fn.  The
 * escaping tests rename the two functions in the binary (objcopy
 * --redefine-sym) and copy it to a hostile file name. */
#include <pthread.h>
#include <stdio.h>
#include <sys/prctl.h>

#include "workload.h"

static double seconds;
static const char *thread_name = "t\033[2J\a\n\"q,\xff";

__attribute__((noinline)) uint64_t hostile_thread_fn(double s)
{
	return spin_for(s);
}

__attribute__((noinline)) uint64_t hostile_main_fn(double s)
{
	return spin_for(s);
}

static void *thread(void *arg)
{
	(void)arg;
	prctl(PR_SET_NAME, thread_name);
	return (void *)(uintptr_t)hostile_thread_fn(seconds);
}

int main(int argc, char **argv)
{
	pthread_t t;
	uint64_t x;

	seconds = arg_double(argc, argv, 1, 0.5);
	if (argc > 2)
		thread_name = argv[2];
	if (pthread_create(&t, NULL, thread, NULL)) {
		perror("pthread_create");
		return 1;
	}
	x = hostile_main_fn(seconds);
	pthread_join(t, NULL);
	return x == 42;
}
