/* wake [THREADS [SECONDS [STRETCH]]] - threads that block and wake often.
 * Each thread (default 4) loops for SECONDS (default 2): spin ~600 us in
 * fa(), sleep ~800 us (blocked in the kernel), spin ~400 us in fb(), each
 * 0.5-1.5x that at random, all times STRETCH (default 1).  It
 * measures the wall-time share of each phase itself and prints, over all
 * threads, "share fa=.. fb=.. blocked=.." (percent): what a profile that
 * samples every thread, running or not, must show (tests/t1080).  It
 * sleeps from one of two functions at random, alike but for their
 * address: the same PC and stack pointer in the kernel, two call stacks. */
#include <pthread.h>
#include <stdio.h>

#include "workload.h"

static double seconds, stretch;
static double total[3];		/* fa, fb, blocked */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* 0.5 to 1.5: phases of random length, so that they do not beat with
 * the sampling period */
static double jitter(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return 0.5 + (double)(*x % 1000) / 1000;
}

__attribute__((noinline)) static uint64_t fa(double scale)
{
	return spin_for(600e-6 * scale * stretch);
}

__attribute__((noinline)) static uint64_t fb(double scale)
{
	return spin_for(400e-6 * scale * stretch);
}

/* noipa: two functions, not folded into one */
__attribute__((noipa)) static void nap_a(const struct timespec *nap)
{
	nanosleep(nap, NULL);
}

__attribute__((noipa)) static void nap_b(const struct timespec *nap)
{
	nanosleep(nap, NULL);
}

static void *worker(void *arg)
{
	struct timespec nap = { 0, 0 };
	double t[3] = { 0, 0, 0 }, end = now_s() + seconds, a, b, c, d;
	uint64_t x = (uintptr_t)arg + 88172645463325252u, r = x;

	while ((a = now_s()) < end) {
		x += fa(jitter(&r));
		b = now_s();
		nap.tv_nsec = (long)(800000 * stretch * jitter(&r));
		(r & 1 ? nap_a : nap_b)(&nap);
		c = now_s();
		x += fb(jitter(&r));
		d = now_s();
		t[0] += b - a;
		t[2] += c - b;
		t[1] += d - c;
	}
	pthread_mutex_lock(&lock);
	for (int i = 0; i < 3; i++)
		total[i] += t[i];
	pthread_mutex_unlock(&lock);
	return (void *)(uintptr_t)x;
}

int main(int argc, char **argv)
{
	int n = (int)arg_double(argc, argv, 1, 4);
	pthread_t tids[64];
	double sum;

	seconds = arg_double(argc, argv, 2, 2);
	stretch = arg_double(argc, argv, 3, 1);
	if (stretch <= 0 || stretch > 100)
		stretch = 1;
	if (n < 1 || n > 64)
		n = 4;
	for (int i = 1; i < n; i++)
		pthread_create(&tids[i], NULL, worker, (void *)(uintptr_t)i);
	worker(NULL);
	for (int i = 1; i < n; i++)
		pthread_join(tids[i], NULL);
	sum = total[0] + total[1] + total[2];
	printf("share fa=%.2f fb=%.2f blocked=%.2f\n", 100 * total[0] / sum,
	       100 * total[1] / sum, 100 * total[2] / sum);
	return 0;
}
