/* bursts [SECONDS [PERIOD_MS [BURST_MS]]] - a thread that runs in short
 * bursts between two samples.  The main thread spins in spin_main() for
 * SECONDS (default 2) and wakes the worker every PERIOD_MS (default 2);
 * the worker spins BURST_MS (default 0.4) in burst_work(), then
 * waits on a condition variable.  A synchronous sample finds the worker
 * blocked at both ends of most of its intervals: its CPU time belongs to
 * burst_work(), not to the futex wait (tests/t2160).  At the end it prints
 * the CPU time each thread measured of itself, and of it the time in the
 * kernel: "cpu worker=S main=S sys worker=S main=S". */
#include <pthread.h>
#include <stdio.h>
#include <sys/resource.h>

#include "workload.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER;
static uint64_t wakes, served;
static int done;
static double burst_s, worker_cpu, worker_sys;

/* The calling thread's CPU time in the kernel (getrusage). */
static double sys_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_THREAD, &ru);
	return (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

/* BURST_MS of spinning (by the vDSO's clock: no system call). */
__attribute__((noinline)) static uint64_t burst_work(uint64_t x)
{
	double end = now_s() + burst_s;

	while (now_s() < end)
		x += work_units(2000, x);
	return x;
}

static void *worker(void *arg)
{
	uint64_t x = (uintptr_t)arg | 1;

	pthread_mutex_lock(&lock);
	while (!done) {
		if (served == wakes) {
			pthread_cond_wait(&wake, &lock);
			continue;
		}
		served = wakes;
		pthread_mutex_unlock(&lock);
		x += burst_work(x);
		pthread_mutex_lock(&lock);
	}
	pthread_mutex_unlock(&lock);
	worker_cpu = clock_s(CLOCK_THREAD_CPUTIME_ID);
	worker_sys = sys_s();
	return (void *)(uintptr_t)x;
}

/* Spin for seconds, waking the worker every period. */
__attribute__((noinline)) static uint64_t spin_main(double seconds, double period)
{
	double t = now_s(), end = t + seconds, next = t + period;
	uint64_t x = 1;

	while ((t = now_s()) < end) {
		x += work_units(2000, x);
		if (t < next)
			continue;
		next += period;
		pthread_mutex_lock(&lock);
		wakes++;
		pthread_cond_signal(&wake);
		pthread_mutex_unlock(&lock);
	}
	return x;
}

int main(int argc, char **argv)
{
	double seconds = arg_double(argc, argv, 1, 2);
	double period = arg_double(argc, argv, 2, 2) / 1e3;
	pthread_t tid;
	uint64_t x;

	burst_s = arg_double(argc, argv, 3, 0.4) / 1e3;
	if (pthread_create(&tid, NULL, worker, NULL))
		return 1;
	x = spin_main(seconds, period);
	pthread_mutex_lock(&lock);
	done = 1;
	pthread_cond_signal(&wake);
	pthread_mutex_unlock(&lock);
	pthread_join(tid, NULL);
	printf("cpu worker=%.4f main=%.4f sys worker=%.4f main=%.4f\n", worker_cpu,
	       clock_s(CLOCK_THREAD_CPUTIME_ID), worker_sys, sys_s());
	return (int)(x & 0);
}
