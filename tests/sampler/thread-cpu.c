/* thread-cpu N CPU_SECONDS - each thread measures its own CPU time
 * (t1011): N threads besides the process leader (which only waits for
 * them), thread i (1 to N) spinning until its own CLOCK_THREAD_CPUTIME_ID
 * reaches CPU_SECONDS x i / N: no two threads have the same CPU time, and
 * none the leader's.  (A thread started by pthread_create starts at 0 CPU
 * time, as the sampler's reading of it does; the leader does not: it ran
 * before exec and in ld.so.)
 * Every thread notes its (CLOCK_MONOTONIC, own CPU time) about every
 * 100 us of work, and at the end the program prints, per thread,
 *
 *     point TID MONO_NS CPU_NS      (each note, in order)
 *     final TID CPU_NS              (its CPU time when it stopped working)
 *
 * The work is bounded by CPU time, so a loaded machine changes only how
 * long the run takes. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* gettid() */
#endif
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "../../examples/workload.h"

#define MAX_POINTS 100000

struct thread_log {
	pthread_t thread;
	pid_t tid;
	uint64_t goal_ns;
	uint64_t (*points)[2];
	size_t npoints;
	uint64_t final_ns;
};

static uint64_t ns_of(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void *spin(void *arg)
{
	struct thread_log *l = arg;
	uint64_t x = 1, cpu;

	l->tid = gettid();
	do {
		x = work_units(20000, x);	/* (x | 1 as the seed) */
		cpu = ns_of(CLOCK_THREAD_CPUTIME_ID);
		if (l->npoints < MAX_POINTS) {
			l->points[l->npoints][0] = ns_of(CLOCK_MONOTONIC);
			l->points[l->npoints++][1] = cpu;
		}
	} while (cpu < l->goal_ns);
	l->final_ns = ns_of(CLOCK_THREAD_CPUTIME_ID);
	return (void *)(uintptr_t)x;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 4;
	double seconds = argc > 2 ? atof(argv[2]) : 0.4;
	struct thread_log *logs;

	if (n < 1 || n > 64 || seconds <= 0) {
		fprintf(stderr, "usage: thread-cpu N(1-64) CPU_SECONDS\n");
		return 2;
	}
	logs = calloc((size_t)n, sizeof(*logs));
	for (int i = 0; i < n; i++) {
		logs[i].goal_ns = (uint64_t)(seconds * 1e9 * (i + 1) / n);
		logs[i].points = calloc(MAX_POINTS, sizeof(*logs[i].points));
		if (!logs[i].points) {
			perror("calloc");
			return 1;
		}
	}
	for (int i = 0; i < n; i++)
		if (pthread_create(&logs[i].thread, NULL, spin, &logs[i])) {
			perror("pthread_create");
			return 1;
		}
	for (int i = 0; i < n; i++)
		pthread_join(logs[i].thread, NULL);
	for (int i = 0; i < n; i++) {
		for (size_t j = 0; j < logs[i].npoints; j++)
			printf("point %d %llu %llu\n", (int)logs[i].tid,
			       (unsigned long long)logs[i].points[j][0],
			       (unsigned long long)logs[i].points[j][1]);
		printf("final %d %llu\n", (int)logs[i].tid, (unsigned long long)logs[i].final_ns);
	}
	return 0;
}
