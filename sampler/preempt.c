/* preempt.c - the preemptors of preempt.h. */
#include "preempt.h"

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "host.h"

/* A preemptor wakes this much before a sample is due: the sampler's own
 * wake-up comes later, so the CPUs are held when it sends the stops. */
#define LEAD_NS 20000ull
/* and holds its CPU until the sampler has sent the stops, but at most
 * this long: a sample skipped, or the sampler kept from its CPU (under
 * load a quarter of the holds ran out at 300 us, a program kept from its
 * CPU for nothing). */
#define HOLD_MAX_NS 100000ull
#define STACK_SIZE (64 * 1024)

struct preemptors {
	uint64_t start_ns, period_ns, hold_ns;
	int n;
	pthread_t *threads;
	bool enabled;			/* atomics, below */
	uint64_t released_ns;
	uint64_t holds, timeouts;
};

static inline void relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

static void *preemptor(void *arg)
{
	struct preemptors *p = arg;
	uint64_t slot = (host_now_ns() - p->start_ns) / p->period_ns + 1;

	for (;;) {
		uint64_t due = p->start_ns + slot * p->period_ns - LEAD_NS, limit;
		struct timespec ts = { (time_t)(due / 1000000000u), (long)(due % 1000000000u) };

		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);	/* cancelled here */
		if (__atomic_load_n(&p->enabled, __ATOMIC_RELAXED)) {
			/* a release since the wake-up was due is this sample's */
			limit = host_now_ns() + p->hold_ns;
			while (__atomic_load_n(&p->released_ns, __ATOMIC_ACQUIRE) < due) {
				if (host_now_ns() > limit) {
					__atomic_fetch_add(&p->timeouts, 1, __ATOMIC_RELAXED);
					break;
				}
				relax();
			}
			__atomic_fetch_add(&p->holds, 1, __ATOMIC_RELAXED);
		}
		/* the next slot not yet begun: a late one is skipped, not chased */
		slot = (host_now_ns() + LEAD_NS - p->start_ns) / p->period_ns + 1;
	}
	return NULL;
}

bool preempt_possible(uint64_t period_ns)
{
	struct sched_param own;
	int policy = sched_getscheduler(0);

	return (policy == SCHED_FIFO || policy == SCHED_RR) && sched_getparam(0, &own) == 0 &&
	       own.sched_priority >= 2 && sysconf(_SC_NPROCESSORS_CONF) >= 2 &&
	       period_ns > LEAD_NS;
}

struct preemptors *preempt_start(uint64_t start_ns, uint64_t period_ns)
{
	struct sched_param own, below;
	int ncpus = (int)sysconf(_SC_NPROCESSORS_CONF);
	struct preemptors *p;
	pthread_attr_t attr;

	if (!preempt_possible(period_ns) || sched_getparam(0, &own) < 0)
		return NULL;
	if (!(p = calloc(1, sizeof(*p))) || !(p->threads = calloc((size_t)ncpus, sizeof(pthread_t)))) {
		free(p);
		return NULL;
	}
	p->start_ns = start_ns;
	p->period_ns = period_ns;
	p->hold_ns = HOLD_MAX_NS;
	p->enabled = true;
	below.sched_priority = own.sched_priority - 1;
	for (int cpu = 0; cpu < ncpus && cpu < CPU_SETSIZE; cpu++) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		/* a CPU the sampler may not use (a cpuset) is skipped */
		if (pthread_attr_init(&attr) != 0)
			break;
		if (pthread_attr_setstacksize(&attr, STACK_SIZE) == 0 &&
		    pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED) == 0 &&
		    pthread_attr_setschedpolicy(&attr, SCHED_FIFO) == 0 &&
		    pthread_attr_setschedparam(&attr, &below) == 0 &&
		    pthread_attr_setaffinity_np(&attr, sizeof(set), &set) == 0 &&
		    pthread_create(&p->threads[p->n], &attr, preemptor, p) == 0)
			p->n++;
		pthread_attr_destroy(&attr);
	}
	if (p->n < 2) {		/* one CPU: the sampler's own wake-up preempts */
		preempt_stop(p);
		return NULL;
	}
	return p;
}

void preempt_enable(struct preemptors *p, bool on)
{
	if (p)
		__atomic_store_n(&p->enabled, on, __ATOMIC_RELAXED);
}

void preempt_release(struct preemptors *p)
{
	if (p)
		__atomic_store_n(&p->released_ns, host_now_ns(), __ATOMIC_RELEASE);
}

uint64_t preempt_holds(const struct preemptors *p)
{
	return p ? __atomic_load_n(&p->holds, __ATOMIC_RELAXED) : 0;
}

uint64_t preempt_timeouts(const struct preemptors *p)
{
	return p ? __atomic_load_n(&p->timeouts, __ATOMIC_RELAXED) : 0;
}

void preempt_stop(struct preemptors *p)
{
	if (!p)
		return;
	for (int i = 0; i < p->n; i++)
		pthread_cancel(p->threads[i]);
	for (int i = 0; i < p->n; i++)
		pthread_join(p->threads[i], NULL);
	free(p->threads);
	free(p);
}
