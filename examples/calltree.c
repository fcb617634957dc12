/* calltree [SECONDS [THREADS [fork]]] - a known call tree that measures its own truth, for
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
 * signal handler (THREADS 1: no such thread; default 2).  With "fork" the
 * process forks first and its child (the same image, no exec) does all
 * this while the parent waits for it.  At the end it
 * prints the measured shares (percent):
 *     share a=34.7 b=34.7 leaf_a=17.3 leaf_b=34.6 a_self=17.3 rec=17.4 sort=13.1
 *     signal handler=15.0
 * main-thread shares are of the main thread's CPU time from the start of
 * the loop to its end, the handler's of the signal thread's CPU time.  A
 * third line gives the main thread's shares of wall-clock time (what a
 * constant power spends along each path while it is the only thread):
 *     wall a=34.7 b=34.7 leaf_a=17.3 leaf_b=34.6 a_self=17.3 rec=17.4 sort=13.1 */
#include <pthread.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "workload.h"

/* Work units of one share of the main thread (about 1.6 ms).  Each call
 * is timed with two clock_gettime(CLOCK_THREAD_CPUTIME_ID) system calls,
 * and stops land at their exits far more often than their CPU time says
 * (8.2% of the main thread's samples for about 0.9% of its CPU, at 0.4 ms
 * a share): the profile puts that weight in the caller, the measure splits
 * it, and rec and sort came out 1-2 points low.  Longer calls make the
 * clock reads 4 times rarer. */
#define UNIT 600000
#define SIGNAL_UNIT 150000		/* the signal thread's (about 0.4 ms) */
#define DEPTH 50
#define NSORT 64

#define NOINLINE __attribute__((noinline))

static volatile uint64_t sink;
/* CPU and wall-clock time of the last leaf() call */
static double t_leaf, w_leaf;
static volatile sig_atomic_t stop;
static double handler_s;		/* the signal thread's time in handler() */

static double cpu_now(void)
{
	return clock_s(CLOCK_THREAD_CPUTIME_ID);
}

NOINLINE void leaf(uint64_t units)
{
	double t0 = cpu_now(), w0 = now_s();

	sink += work_units(units, sink + 1);
	w_leaf = now_s() - w0;
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
	sink += work_units(4 * SIGNAL_UNIT, sink + 4);
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
	sink += work_units(SIGNAL_UNIT / 8, sink + 5);
}

/* A timer signal to this thread every 6 ms of wall-clock time.  Not of its
 * CPU time: under a sampler stopping every thread 1,000-2,000 times a
 * second, a CLOCK_THREAD_CPUTIME_ID timer (kernel 6.18) stops firing for
 * the rest of the run in about one run in seven, real-time timers never
 * (docs/RELIABILITY.md, "CPU-time timers"). */
static void *signal_thread(void *arg)
{
	struct sigevent sev = { .sigev_notify = SIGEV_THREAD_ID, .sigev_signo = SIGUSR1 };
	struct itimerspec its = { { 0, 6000000 }, { 0, 6000000 } };
	double *total = arg, t0 = cpu_now();
	timer_t timer;

	sev._sigev_un._tid = gettid();
	if (timer_create(CLOCK_MONOTONIC, &sev, &timer) == 0)
		timer_settime(timer, 0, &its, NULL);
	while (!stop)
		outside();
	timer_delete(timer);
	*total = cpu_now() - t0;
	return NULL;
}

/* Run fn; its CPU time, and its wall-clock time added to *wall. */
NOINLINE double timed(void (*fn)(void), double *wall)
{
	double t0 = cpu_now(), w0 = now_s();

	fn();
	*wall += now_s() - w0;
	return cpu_now() - t0;
}

static void print_shares(const char *what, const double *t, double sum)
{
	printf("%s a=%.2f b=%.2f leaf_a=%.2f leaf_b=%.2f a_self=%.2f rec=%.2f sort=%.2f\n", what,
	       100 * t[0] / sum, 100 * t[1] / sum, 100 * t[2] / sum, 100 * t[3] / sum,
	       100 * (t[0] - t[2]) / sum, 100 * t[4] / sum, 100 * t[5] / sum);
}

static void rec50(void)
{
	sink += rec(DEPTH);
}

/* "fork": the child goes on, the parent ends with its status. */
static void fork_first(void)
{
	pid_t pid = fork();
	int status;

	if (pid <= 0)
		return;		/* the child (or no fork: go on alone) */
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status))
		exit(1);
	exit(WEXITSTATUS(status));
}

int main(int argc, char **argv)
{
	double end = now_s() + arg_double(argc, argv, 1, 2.0);
	/* a, b, leaf via a, leaf via b, rec, sort: CPU and wall-clock time */
	double t[6] = { 0 }, w[6] = { 0 }, sum, wsum, sig_total = 0, t0, w0;
	struct sigaction sa;
	pthread_t thread;

	if (argc > 3 && strcmp(argv[3], "fork") == 0)
		fork_first();
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sigaction(SIGUSR1, &sa, NULL);
	bool signals = arg_double(argc, argv, 2, 2) > 1;

	if (signals)
		pthread_create(&thread, NULL, signal_thread, &sig_total);
	t0 = cpu_now();
	w0 = now_s();
	while (now_s() < end) {
		t[0] += timed(a, &w[0]);
		t[2] += t_leaf;
		w[2] += w_leaf;
		t[1] += timed(b, &w[1]);
		t[3] += t_leaf;
		w[3] += w_leaf;
		t[4] += timed(rec50, &w[4]);
		t[5] += timed(sorter, &w[5]);
	}
	sum = cpu_now() - t0;
	wsum = now_s() - w0;
	stop = 1;
	if (signals)
		pthread_join(thread, NULL);
	print_shares("share", t, sum);
	printf("signal handler=%.2f\n", sig_total > 0 ? 100 * handler_s / sig_total : 0);
	print_shares("wall", w, wsum);
	return 0;
}
