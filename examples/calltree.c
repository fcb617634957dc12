/* calltree [SECONDS [THREADS]] - a known call tree that measures its own truth, for
 * the call-stack tests (built twice: calltree with frame pointers,
 * calltree-nofp without).
 *
 * The main thread repeats, each call timed by its own thread CPU time:
 *     a()      self work A_SELF, then leaf() for LEAF_A
 *     b()      leaf() for LEAF_B
 *     rec(50)  a recursion 50 deep, work at the bottom
 *     sorter() qsort() whose comparator cmp() does the work: libc frames
 *              lie between sorter and cmp
 * A second thread spins in outside() and takes a per-thread timer signal
 * whose handler() works in handler_work(), so samples catch it inside a
 * signal handler (THREADS 1: no such thread; default 2).  At the end it
 * prints the measured shares (percent):
 *     share a=34.7 b=34.7 leaf_a=17.3 leaf_b=34.6 a_self=17.3 rec=17.4 sort=13.1
 *     signal handler=15.0
 * main-thread shares are of the main thread's CPU time from the start of
 * the loop to its end, the handler's of the signal thread's CPU time. */
#include <pthread.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "workload.h"

#define UNIT 150000			/* work units of one share (about 0.4 ms) */
#define DEPTH 50
#define NSORT 64

#define NOINLINE __attribute__((noinline))

static volatile uint64_t sink;
static double t_leaf;			/* CPU time of the last leaf() call */
static volatile sig_atomic_t stop;
static double handler_s;		/* the signal thread's time in handler() */

static double cpu_now(void)
{
	return clock_s(CLOCK_THREAD_CPUTIME_ID);
}

NOINLINE void leaf(uint64_t units)
{
	double t0 = cpu_now();

	sink += work_units(units, sink + 1);
	t_leaf = cpu_now() - t0;
}

NOINLINE void a(void)
{
	sink += work_units(UNIT, sink + 2);
	leaf(UNIT);
	sink++;			/* no tail call: a stays on the stack */
}

NOINLINE void b(void)
{
	leaf(2 * UNIT);
	sink++;
}

NOINLINE uint64_t rec(int depth)
{
	if (depth == 0)
		return work_units(UNIT, sink + 3);
	return rec(depth - 1) + 1;
}

static int cmp(const void *x, const void *y)
{
	uint64_t u = *(const uint64_t *)x, v = *(const uint64_t *)y;

	sink += work_units(UNIT / 400, u);
	return u < v ? -1 : u > v;
}

NOINLINE void sorter(void)
{
	uint64_t v[NSORT], x = sink | 1;

	for (int i = 0; i < NSORT; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		v[i] = x;
	}
	qsort(v, NSORT, sizeof(v[0]), cmp);
	sink += v[0];
}

NOINLINE void handler_work(void)
{
	sink += work_units(4 * UNIT, sink + 4);
}

static void handler(int sig)
{
	double t0 = cpu_now();

	(void)sig;
	handler_work();
	handler_s += cpu_now() - t0;
}

NOINLINE void outside(void)
{
	sink += work_units(UNIT / 8, sink + 5);
}

/* A timer signal to this thread every 6 ms of its CPU time. */
static void *signal_thread(void *arg)
{
	struct sigevent sev = { .sigev_notify = SIGEV_THREAD_ID, .sigev_signo = SIGUSR1 };
	struct itimerspec its = { { 0, 6000000 }, { 0, 6000000 } };
	double *total = arg, t0 = cpu_now();
	timer_t timer;

	sev._sigev_un._tid = gettid();
	if (timer_create(CLOCK_THREAD_CPUTIME_ID, &sev, &timer) == 0)
		timer_settime(timer, 0, &its, NULL);
	while (!stop)
		outside();
	timer_delete(timer);
	*total = cpu_now() - t0;
	return NULL;
}

static double timed(void (*fn)(void))
{
	double t0 = cpu_now();

	fn();
	return cpu_now() - t0;
}

static void rec50(void)
{
	sink += rec(DEPTH);
}

int main(int argc, char **argv)
{
	double end = now_s() + arg_double(argc, argv, 1, 2.0);
	double ta = 0, tb = 0, tla = 0, tlb = 0, trec = 0, tsort = 0, sum, sig_total = 0, t0;
	struct sigaction sa;
	pthread_t thread;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sigaction(SIGUSR1, &sa, NULL);
	bool signals = arg_double(argc, argv, 2, 2) > 1;

	if (signals)
		pthread_create(&thread, NULL, signal_thread, &sig_total);
	t0 = cpu_now();
	while (now_s() < end) {
		ta += timed(a);
		tla += t_leaf;
		tb += timed(b);
		tlb += t_leaf;
		trec += timed(rec50);
		tsort += timed(sorter);
	}
	sum = cpu_now() - t0;
	stop = 1;
	if (signals)
		pthread_join(thread, NULL);
	printf("share a=%.2f b=%.2f leaf_a=%.2f leaf_b=%.2f a_self=%.2f rec=%.2f sort=%.2f\n",
	       100 * ta / sum, 100 * tb / sum, 100 * tla / sum, 100 * tlb / sum,
	       100 * (ta - tla) / sum, 100 * trec / sum, 100 * tsort / sum);
	printf("signal handler=%.2f\n", sig_total > 0 ? 100 * handler_s / sig_total : 0);
	return 0;
}
