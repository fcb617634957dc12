/* tune.h - the sampler's own scheduling: priority and CPU placement lower
 * the time the target is held stopped.  Only the sampler is tuned (after the
 * target was forked): the target keeps the user's own policy and CPUs. */
#ifndef SAMPLER_TUNE_H
#define SAMPLER_TUNE_H

#include <stddef.h>

#include "../common/error.h"

enum tune_sched {
	TUNE_SCHED_AUTO,	/* SCHED_FIFO when permitted, else unchanged */
	TUNE_SCHED_OTHER,	/* leave the sampler's policy alone */
	TUNE_SCHED_FIFO,
	TUNE_SCHED_RR,
};

#define TUNE_CPU_AUTO (-2)	/* follow the target's threads */
#define TUNE_CPU_NONE (-1)	/* do not pin (the default) */

enum tune_qos {
	TUNE_QOS_AUTO,		/* hold a CPU latency request of 0 when permitted */
	TUNE_QOS_OFF,
	TUNE_QOS_ON,
};

struct tune {
	enum tune_sched sched;
	int prio;		/* for FIFO/RR */
	int cpu;		/* CPU to pin the sampler to, or TUNE_CPU_* */
	enum tune_qos qos;
};

#define TUNE_DEFAULT_PRIO 50

void tune_default(struct tune *t);
int tune_parse_prio(const char *arg, int *prio, struct error *err);
int tune_parse_cpu(const char *arg, int *cpu, struct error *err);

/* Apply to the calling process.  Explicit requests that are not permitted
 * fail with a reason; automatic choices fall back silently.  summary gets a
 * short description of what is in effect ("SCHED_FIFO 50, CPU 1").
 * *qos_fd is the open /dev/cpu_dma_latency (the request lasts while it is
 * open) or -1. */
int tune_apply(const struct tune *t, int *qos_fd, char *summary, size_t size,
	       struct error *err);

/* Does the automatic placement apply (the engine follows the target)? */
int tune_follows_target(const struct tune *t);
/* Move the calling process to cpu: 0 or -1. */
int tune_pin_cpu(int cpu);

#endif
