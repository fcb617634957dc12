/* cputimer [THREADS [UNITS [PERIOD_MS]]] - the target's own CPU-time
 * timers, as Go's and gperftools' profilers use them: THREADS busy threads
 * (default 2) each do UNITS million work units (default 60) under a timer
 * of its own CPU clock (timer_create(CLOCK_THREAD_CPUTIME_ID), signal to
 * the thread itself, every PERIOD_MS ms of its CPU time, default 2), and
 * count the signals their handler sees.  A waiting thread meanwhile sleeps
 * 1 ms and works 0.1 ms in turn, to see whether it is starved.  Prints
 * what it measured of itself, one per line:
 *   signals=N       handler calls, all threads
 *   overruns=N      expirations merged into a pending signal (timer_getoverrun)
 *   expected=N      the threads' CPU time / the period: signals due
 *   signal_ratio=R  signals / expected
 *   waiter_cpu_per_s=R  the waiting thread's CPU seconds per second of run
 *   runtime_s=, cpu_s=  as work prints them */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "workload.h"

static uint64_t units;
static long period_ns;
static volatile int busy_done;
static _Thread_local timer_t own_timer;
static volatile uint64_t signals, overruns;

static void on_prof(int sig)
{
	int o = timer_getoverrun(own_timer);

	(void)sig;
	__atomic_fetch_add(&signals, 1, __ATOMIC_RELAXED);
	if (o > 0)
		__atomic_fetch_add(&overruns, (uint64_t)o, __ATOMIC_RELAXED);
}

/* A timer of the calling thread's CPU clock, signalling the thread. */
static int arm_own_timer(void)
{
	struct sigevent sev = {
		.sigev_notify = SIGEV_THREAD_ID, .sigev_signo = SIGPROF,
	};
	struct itimerspec its = {
		.it_interval = { period_ns / 1000000000, period_ns % 1000000000 },
		.it_value = { period_ns / 1000000000, period_ns % 1000000000 },
	};

	sev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
	if (timer_create(CLOCK_THREAD_CPUTIME_ID, &sev, &own_timer) < 0)
		return -1;
	return timer_settime(own_timer, 0, &its, NULL);
}

static void *busy(void *arg)
{
	uint64_t x;
	double cpu;

	if (arm_own_timer() < 0) {
		perror("cputimer: timer_create");
		exit(1);
	}
	x = work_units(units, (uintptr_t)arg + 1);
	timer_delete(own_timer);
	cpu = clock_s(CLOCK_THREAD_CPUTIME_ID);
	return (void *)(uintptr_t)(cpu * 1e6) + (x == 42);	/* us */
}

static void *waiter(void *arg)
{
	struct timespec nap = { 0, 1000000 };

	(void)arg;
	while (!busy_done) {
		nanosleep(&nap, NULL);
		work_units(100000, 7);	/* ~0.1-0.3 ms */
	}
	return (void *)(uintptr_t)(clock_s(CLOCK_THREAD_CPUTIME_ID) * 1e6);
}

int main(int argc, char **argv)
{
	int n = (int)arg_double(argc, argv, 1, 2);
	pthread_t *tids, wait_tid;
	struct sigaction sa = { .sa_handler = on_prof, .sa_flags = SA_RESTART };
	double t0 = now_s(), cpu_us = 0, runtime;
	void *ret;

	if (n < 1)
		n = 1;
	units = (uint64_t)(arg_double(argc, argv, 2, 60) * 1e6);
	period_ns = (long)(arg_double(argc, argv, 3, 2) * 1e6);
	if (period_ns <= 0 || !(tids = calloc((size_t)n, sizeof(*tids))))
		return 2;
	sigaction(SIGPROF, &sa, NULL);
	pthread_create(&wait_tid, NULL, waiter, NULL);
	for (int i = 0; i < n; i++)
		pthread_create(&tids[i], NULL, busy, (void *)(uintptr_t)i);
	for (int i = 0; i < n; i++) {
		pthread_join(tids[i], &ret);
		cpu_us += (double)(uintptr_t)ret;
	}
	runtime = now_s() - t0;
	busy_done = 1;
	pthread_join(wait_tid, &ret);
	printf("signals=%llu\noverruns=%llu\nexpected=%.0f\nsignal_ratio=%.3f\n"
	       "waiter_cpu_per_s=%.4f\nruntime_s=%.6f\ncpu_s=%.6f\n",
	       (unsigned long long)signals, (unsigned long long)overruns,
	       cpu_us * 1e3 / (double)period_ns,
	       cpu_us ? (double)signals * (double)period_ns / (cpu_us * 1e3) : 0,
	       (double)(uintptr_t)ret / 1e6 / runtime, runtime, cpu_s());
	free(tids);
	return 0;
}
