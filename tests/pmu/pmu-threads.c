/* pmu-threads - follow many threads through one perf plug-in instance:
 * attach them all, detach every other one, attach again, and check at each
 * step that exactly the followed threads can be read (the plug-in's thread
 * table grows and deletes entries).
 *
 *   pmu-threads NTHREADS SPEC
 *
 * Prints "followed=N readable=N unreadable=N" after each step.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* gettid() */
#endif
#include "../../pmu/pmu.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct start {
	int go[2];		/* workers block reading it until the end */
	pthread_barrier_t started;
};

struct worker {
	pthread_t thread;
	pid_t tid;
	int followed;
	struct start *start;
};

static void *work(void *arg)
{
	struct worker *w = arg;
	char c;

	w->tid = gettid();
	pthread_barrier_wait(&w->start->started);
	if (read(w->start->go[0], &c, 1) < 0)
		return NULL;
	return NULL;
}

/* Read every thread; a followed one must be readable, the others not. */
static int check(struct pmu_set *set, struct worker *w, int n, uint64_t *values)
{
	int followed = 0, readable = 0, wrong = 0;

	for (int i = 0; i < n; i++) {
		int ok = pmu_set_read_thread(set, w[i].tid, values, NULL) == 0;

		followed += w[i].followed;
		readable += ok;
		wrong += ok != w[i].followed;
	}
	printf("followed=%d readable=%d wrong=%d\n", followed, readable, wrong);
	return wrong ? -1 : 0;
}

int main(int argc, char **argv)
{
	struct pmu_set set = { 0 };
	struct start start;
	struct error err = { "" };
	uint64_t values[8];
	struct worker *w;
	int n, ret = 0;

	if (argc != 3 || (n = atoi(argv[1])) < 1) {
		fprintf(stderr, "usage: pmu-threads NTHREADS SPEC\n");
		return 2;
	}
	if (pmu_set_add(&set, argv[2], &err) < 0 || set.nthread == 0 || set.nthread > 8) {
		error_print("pmu-threads", &err);
		return 125;
	}
	w = calloc(n, sizeof(*w));
	if (!w || pipe(start.go) < 0)
		return 1;
	pthread_barrier_init(&start.started, NULL, n + 1);
	for (int i = 0; i < n; i++) {
		w[i].start = &start;
		pthread_create(&w[i].thread, NULL, work, &w[i]);
	}
	pthread_barrier_wait(&start.started);
	for (int i = 0; i < n && ret == 0; i++) {
		ret = pmu_set_attach(&set, w[i].tid, &err);
		w[i].followed = 1;
	}
	ret = ret ? ret : check(&set, w, n, values);
	for (int i = 0; i < n; i += 2) {
		pmu_set_detach(&set, w[i].tid);
		w[i].followed = 0;
	}
	ret = ret ? ret : check(&set, w, n, values);
	for (int i = 0; i < n && ret == 0; i += 4) {
		ret = pmu_set_attach(&set, w[i].tid, &err);
		w[i].followed = 1;
	}
	ret = ret ? ret : check(&set, w, n, values);
	for (int i = 0; i < n; i++)
		pmu_set_detach(&set, w[i].tid);
	close(start.go[1]);
	for (int i = 0; i < n; i++)
		pthread_join(w[i].thread, NULL);
	pmu_set_release(&set);
	free(w);
	if (ret < 0 && err.msg[0])
		error_print("pmu-threads", &err);
	return ret < 0 ? 1 : 0;
}
