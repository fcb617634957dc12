/* tune.h - scheduling that lowers the time the target is held stopped: the
 * sampler's own priority and CPU placement (applied after the target was
 * forked, so the target keeps the user's policy and CPUs), and on request a
 * lower priority for the target (--nice, --idle), the lever an unprivileged
 * user has against a busy multi-threaded target. */
#ifndef SAMPLER_TUNE_H
#define SAMPLER_TUNE_H

#include <stddef.h>
#include <sys/types.h>

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

#define TUNE_NICE_NONE (-100)	/* leave the target's nice value alone */

struct tune {
	enum tune_sched sched;
	int prio;		/* for FIFO/RR */
	int cpu;		/* CPU to pin the sampler to, or TUNE_CPU_* */
	enum tune_qos qos;
	int nice;		/* added to the target's nice value, or TUNE_NICE_NONE */
	int idle;		/* run the target at SCHED_IDLE */
};

/* What tune_apply put in effect. */
struct tune_state {
	int qos_fd;		/* the open /dev/cpu_dma_latency (the request
				 * lasts while it is open), or -1 */
	int realtime;		/* the sampler runs at SCHED_FIFO/RR */
	char summary[160];	/* "SCHED_FIFO 50, CPU 1, target SCHED_IDLE" */
};

#define TUNE_DEFAULT_PRIO 50

void tune_default(struct tune *t);
int tune_parse_prio(const char *arg, int *prio, struct error *err);
int tune_parse_cpu(const char *arg, int *cpu, struct error *err);
int tune_parse_nice(const char *arg, int *nice, struct error *err);

/* Apply to the calling process, and the nice value or SCHED_IDLE to target
 * (held at its exec stop: its threads and children inherit them).  Explicit requests that
 * are not permitted fail with a reason; automatic choices fall back
 * silently. */
int tune_apply(const struct tune *t, pid_t target, struct tune_state *st,
	       struct error *err);

/* Does the automatic placement apply (the engine follows the target)? */
int tune_follows_target(const struct tune *t);
/* Move the calling process to cpu: 0 or -1. */
int tune_pin_cpu(int cpu);

#endif
