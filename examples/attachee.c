/* attachee LOG - a long-running program to attach to (t1230): 4 busy
 * threads (2 in spin_full, 2 in spin_third that spin a third of the time),
 * 4 threads blocked on a condition variable, a SIGUSR1 handler, and a main
 * thread that sums the numbers it reads from stdin (a pipe).  At end of
 * input it wakes everyone, writes to LOG each busy thread's own truth (one
 * line per 5 ms: tid, function, CLOCK_MONOTONIC ns, thread CPU ns), prints
 *   sum=S usr1=N woken=W
 * and exits with status 3. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "workload.h"

#define NBUSY 4
#define NWAIT 4
#define LOG_EVERY_NS 5000000ull
#define LOG_MAX 200000

struct busy {
	const char *func;
	pid_t tid;
	size_t n;
	uint64_t *mono, *cpu;
};

static volatile sig_atomic_t usr1;
static volatile int stop;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int woken, stopping;

static void on_usr1(int sig)
{
	(void)sig;
	usr1++;
}

static uint64_t ns(clockid_t id)
{
	return (uint64_t)(clock_s(id) * 1e9);
}

static void note(struct busy *b)
{
	if (b->n < LOG_MAX) {
		b->mono[b->n] = ns(CLOCK_MONOTONIC);
		b->cpu[b->n++] = ns(CLOCK_THREAD_CPUTIME_ID);
	}
}

__attribute__((noinline)) static void spin_full(struct busy *b)
{
	uint64_t next = ns(CLOCK_MONOTONIC);

	while (!stop) {
		work_units(20000, 7);
		if (ns(CLOCK_MONOTONIC) >= next) {
			note(b);
			next += LOG_EVERY_NS;
		}
	}
}

/* 1 ms of work, 2 ms of sleep */
__attribute__((noinline)) static void spin_third(struct busy *b)
{
	struct timespec two_ms = { 0, 2000000 };

	while (!stop) {
		uint64_t until = ns(CLOCK_THREAD_CPUTIME_ID) + 1000000;

		while (ns(CLOCK_THREAD_CPUTIME_ID) < until)
			work_units(20000, 9);
		note(b);
		nanosleep(&two_ms, NULL);
	}
}

static void *busy_main(void *arg)
{
	struct busy *b = arg;

	b->tid = (pid_t)syscall(SYS_gettid);
	note(b);		/* the truth starts before any sample */
	if (strcmp(b->func, "spin_full") == 0)
		spin_full(b);
	else
		spin_third(b);
	return NULL;
}

static void *wait_main(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&lock);
	while (!stopping)
		pthread_cond_wait(&cond, &lock);
	woken++;
	pthread_mutex_unlock(&lock);
	return NULL;
}

int main(int argc, char **argv)
{
	struct busy busy[NBUSY];
	pthread_t bt[NBUSY], wt[NWAIT];
	struct sigaction sa;
	long long sum = 0, v;
	FILE *log;

	if (argc < 2) {
		fprintf(stderr, "usage: attachee LOG < numbers\n");
		return 2;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGUSR1, &sa, NULL);
	for (int i = 0; i < NBUSY; i++) {
		busy[i] = (struct busy){ .func = i < 2 ? "spin_full" : "spin_third" };
		busy[i].mono = calloc(LOG_MAX, sizeof(uint64_t));
		busy[i].cpu = calloc(LOG_MAX, sizeof(uint64_t));
		pthread_create(&bt[i], NULL, busy_main, &busy[i]);
	}
	for (int i = 0; i < NWAIT; i++)
		pthread_create(&wt[i], NULL, wait_main, NULL);
	/* ready once every busy thread has its first truth point */
	for (int i = 0; i < NBUSY; i++)
		while (!__atomic_load_n(&busy[i].n, __ATOMIC_ACQUIRE))
			usleep(1000);
	printf("ready pid=%d\n", (int)getpid());
	fflush(stdout);
	while (scanf("%lld", &v) == 1)
		sum += v;
	stop = 1;
	pthread_mutex_lock(&lock);
	stopping = 1;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
	for (int i = 0; i < NWAIT; i++)
		pthread_join(wt[i], NULL);
	for (int i = 0; i < NBUSY; i++)
		pthread_join(bt[i], NULL);
	log = fopen(argv[1], "w");
	for (int i = 0; log && i < NBUSY; i++)
		for (size_t k = 0; k < busy[i].n; k++)
			fprintf(log, "%d %s %llu %llu\n", (int)busy[i].tid, busy[i].func,
				(unsigned long long)busy[i].mono[k], (unsigned long long)busy[i].cpu[k]);
	if (log)
		fclose(log);
	printf("sum=%lld usr1=%d woken=%d\n", sum, (int)usr1, woken);
	return 3;
}
