/* tune.c - priority and placement of the sampler itself.
 *
 * Measured on a 2-core VM (bench/recorder.sh): a tracer at SCHED_FIFO is
 * woken at once when a stop is reported and is never starved by a busy
 * target, which shortens every stop several times over.
 */
#include "tune.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

void tune_default(struct tune *t)
{
	t->sched = TUNE_SCHED_AUTO;
	t->prio = TUNE_DEFAULT_PRIO;
	t->cpu = TUNE_CPU_NONE;
	t->qos = TUNE_QOS_AUTO;
	t->nice = TUNE_NICE_NONE;
	t->idle = 0;
}

int tune_parse_prio(const char *arg, int *prio, struct error *err)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v < 1 || v > 99)
		return error_set(err, "bad real-time priority '%s' (use a number from 1 to 99)", arg);
	*prio = (int)v;
	return 0;
}

int tune_parse_cpu(const char *arg, int *cpu, struct error *err)
{
	char *end;
	long v;

	if (strcmp(arg, "none") == 0) {
		*cpu = TUNE_CPU_NONE;
		return 0;
	}
	if (strcmp(arg, "auto") == 0) {
		*cpu = TUNE_CPU_AUTO;
		return 0;
	}
	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v < 0 || v >= CPU_SETSIZE)
		return error_set(err, "bad CPU '%s' (use a CPU number, 'auto' or 'none')", arg);
	*cpu = (int)v;
	return 0;
}

int tune_parse_nice(const char *arg, int *nice, struct error *err)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v < -39 || v > 39)
		return error_set(err, "bad nice adjustment '%s' (use a number from -39 to 39, e.g. --nice 19)",
				 arg);
	*nice = (int)v;
	return 0;
}

/* The highest real-time priority this user may take without privileges
 * (RLIMIT_RTPRIO), capped at want; 0 when none. */
static int allowed_rt_prio(int want)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_RTPRIO, &rl) < 0 || rl.rlim_cur == 0)
		return 0;
	return rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= (rlim_t)want ? want : (int)rl.rlim_cur;
}

/* At normal priority, ask for the shortest time slice (Linux >= 6.12,
 * EEVDF: sched_attr.sched_runtime of a fair task; any user may ask).  The
 * slice sets the deadline a woken task competes with: the sampler, which
 * sleeps between samples and runs for microseconds, then preempts a busy
 * thread of the target at once instead of waiting for the end of its slice
 * (~3 ms on 2 CPUs).  Older kernels ignore the field. */
static int short_slice(void)
{
	struct {		/* the kernel's struct sched_attr, first version */
		uint32_t size, sched_policy;
		uint64_t sched_flags;
		int32_t sched_nice;
		uint32_t sched_priority;
		uint64_t sched_runtime, sched_deadline, sched_period;
	} a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.sched_policy = SCHED_OTHER;
	a.sched_nice = getpriority(PRIO_PROCESS, 0);
	a.sched_runtime = 100 * 1000;	/* ns: the shortest the kernel takes */
	return (int)syscall(SYS_sched_setattr, 0, &a, 0);
}

static int apply_sched(const struct tune *t, struct tune_state *st, struct error *err)
{
	char *summary = st->summary;
	size_t size = sizeof(st->summary);
	int policy = t->sched == TUNE_SCHED_RR ? SCHED_RR : SCHED_FIFO;
	const char *name = policy == SCHED_RR ? "SCHED_RR" : "SCHED_FIFO";
	struct sched_param sp = { .sched_priority = t->prio };

	if (t->sched == TUNE_SCHED_OTHER) {
		snprintf(summary, size, "normal priority");
		return 0;
	}
	if (sched_setscheduler(0, policy, &sp) == 0) {
		st->realtime = 1;
		snprintf(summary, size, "%s %d", name, sp.sched_priority);
		return 0;
	}
	if (t->sched != TUNE_SCHED_AUTO)
		return error_set(err, "cannot run the sampler at %s priority %d: %s (needs root or CAP_SYS_NICE, or an RLIMIT_RTPRIO of at least %d; or leave out --fifo/--rr)",
				 name, t->prio, strerror(errno), t->prio);
	/* automatic: the best this user is allowed, else normal priority */
	sp.sched_priority = allowed_rt_prio(t->prio);
	if (sp.sched_priority > 0 && sched_setscheduler(0, policy, &sp) == 0) {
		st->realtime = 1;
		snprintf(summary, size, "%s %d (RLIMIT_RTPRIO)", name, sp.sched_priority);
	} else {
		snprintf(summary, size, "normal priority (SCHED_FIFO not permitted)%s",
			 short_slice() == 0 ? ", slice 0.1 ms" : "");
	}
	return 0;
}

/* Append to the summary. */
static void say(struct tune_state *st, const char *what, int n)
{
	size_t used = strlen(st->summary);

	snprintf(st->summary + used, sizeof(st->summary) - used, what, n);
}

static int apply_cpu(const struct tune *t, struct tune_state *st, struct error *err)
{
	cpu_set_t set;
	int cpu = t->cpu;

	if (cpu == TUNE_CPU_AUTO) {
		say(st, ", following the target's CPU", 0);
		return 0;
	}
	if (cpu == TUNE_CPU_NONE)
		return 0;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) < 0)
		return error_set(err, "cannot pin the sampler to CPU %d: %s (choose an online CPU you may use, see nproc)",
				 cpu, strerror(errno));
	say(st, ", CPU %d", cpu);
	return 0;
}

int tune_follows_target(const struct tune *t)
{
	return t->cpu == TUNE_CPU_AUTO;
}

int tune_pin_cpu(int cpu)
{
	cpu_set_t set;

	if (cpu < 0 || cpu >= CPU_SETSIZE)
		return -1;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

/* A CPU latency request of 0 keeps idle CPUs polling instead of halting:
 * on a VM, waking a halted virtual CPU is what makes a cross-core stop cost
 * 40 us instead of 20.  The request holds while the file is open. */
static int apply_qos(const struct tune *t, struct tune_state *st, struct error *err)
{
	static const char path[] = "/dev/cpu_dma_latency";
	int32_t zero = 0;
	int fd;

	if (t->qos == TUNE_QOS_OFF)
		return 0;
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, &zero, sizeof(zero)) != sizeof(zero)) {
		int e = errno;

		if (fd >= 0)
			close(fd);
		if (t->qos == TUNE_QOS_AUTO)
			return 0;
		return error_set(err, "cannot request CPU latency 0 through %s: %s (needs root; or leave out --latency-qos)",
				 path, strerror(e));
	}
	st->qos_fd = fd;
	say(st, ", CPU latency request 0", 0);
	return 0;
}

/* A busy target at normal priority gets as much CPU as a normal-priority
 * sampler, which then falls behind (2 cores, 16 busy threads, as nobody:
 * 33% of 1 kHz).  Every user may lower the target's priority, and that
 * gives the sampler the CPU it needs: nice 19 (62%), or SCHED_IDLE (99%:
 * woken threads no longer preempt the sampler either).  On an otherwise
 * idle machine the target loses nothing to either.  --nice is relative and
 * capped like nice(1). */
static int apply_target(const struct tune *t, pid_t target, struct tune_state *st,
			struct error *err)
{
	int now, want;

	if (t->idle) {
		struct sched_param sp = { .sched_priority = 0 };

		if (sched_setscheduler(target, SCHED_IDLE, &sp) < 0)
			return error_set(err, "cannot run the target at SCHED_IDLE: %s (leave out --idle)",
					 strerror(errno));
		say(st, ", target SCHED_IDLE", 0);
	}
	if (t->nice == TUNE_NICE_NONE)
		return 0;
	errno = 0;
	now = getpriority(PRIO_PROCESS, (id_t)target);
	if (now == -1 && errno)
		return error_set(err, "cannot read the target's nice value: %s", strerror(errno));
	want = now + t->nice;
	want = want > 19 ? 19 : want < -20 ? -20 : want;
	if (setpriority(PRIO_PROCESS, (id_t)target, want) < 0)
		return error_set(err, "cannot set the target's nice value to %d: %s (a lower nice value needs root or CAP_SYS_NICE; use --nice with a positive N)",
				 want, strerror(errno));
	say(st, ", target nice %d", want);
	return 0;
}

int tune_apply(const struct tune *t, pid_t target, struct tune_state *st,
	       struct error *err)
{
	st->summary[0] = '\0';
	st->qos_fd = -1;
	st->realtime = 0;
	/* Wake at the slot, not up to 50 us after it (allowed unprivileged). */
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	if (apply_sched(t, st, err) < 0 || apply_cpu(t, st, err) < 0 ||
	    apply_target(t, target, st, err) < 0)
		return -1;
	return apply_qos(t, st, err);
}
