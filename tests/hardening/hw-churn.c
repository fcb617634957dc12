/* hw-churn RATE SECONDS LOG - create RATE threads per second for SECONDS,
 * each living 2-8 ms (spinning), at most 64 alive at once; write one line
 * "tid START_NS END_NS" per thread to LOG (CLOCK_MONOTONIC), and print
 * "created N". */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../../examples/workload.h"

struct life {
	pid_t tid;
	double start, end, length;
};

static void *live(void *arg)
{
	struct life *l = arg;

	l->tid = (pid_t)syscall(SYS_gettid);
	l->start = now_s();
	spin_for(l->length);
	l->end = now_s();
	return NULL;
}

int main(int argc, char **argv)
{
	double rate = arg_double(argc, argv, 1, 1000), seconds = arg_double(argc, argv, 2, 10);
	long n = (long)(rate * seconds), made = 0;
	struct life *lives = calloc((size_t)n, sizeof(*lives));
	pthread_t *ids = calloc((size_t)n, sizeof(*ids));
	double t0 = now_s();
	FILE *log;

	if (argc < 4 || !lives || !ids || !(log = fopen(argv[3], "w"))) {
		fprintf(stderr, "usage: hw-churn RATE SECONDS LOG\n");
		return 2;
	}
	for (long i = 0; i < n; i++) {
		double due = t0 + (double)i / rate;

		while (now_s() < due)
			;
		if (i >= 64)
			pthread_join(ids[i - 64], NULL);
		lives[i].length = 0.002 + (double)(i * 7919 % 7) / 1000.0;
		if (pthread_create(&ids[i], NULL, live, &lives[i]) != 0) {
			perror("pthread_create");
			break;
		}
		made++;
	}
	for (long i = made > 64 ? made - 64 : 0; i < made; i++)
		pthread_join(ids[i], NULL);
	for (long i = 0; i < made; i++)
		fprintf(log, "%d %.0f %.0f\n", lives[i].tid, lives[i].start * 1e9, lives[i].end * 1e9);
	fclose(log);
	printf("created %ld in %.3f s\n", made, now_s() - t0);
	return made == n ? 0 : 1;
}
