/* quiet.h - has a traced thread run since the sampler last looked?
 *
 * A thread that has not been on a CPU since the sampler last knew its PC
 * cannot have moved: the sample takes the PC and CPU time it had without
 * stopping it, so a pool of blocked threads costs the target nothing
 * (docs/SCALING.md).  The kernel tells in two ways whether a thread ran:
 *  - a ring buffer of a per-thread dummy perf event with context_switch
 *    set, mapped read-only: the kernel appends a record at every switch of
 *    the thread in or out, so its head moves whenever the thread ran.
 *    Looking is one load, no system call (3 ns a thread against 2-9 us for
 *    a pread of a /proc file here: bench/detect).
 *  - where perf events are refused (perf_event_paranoid 3, the mlock
 *    budget for rings spent): the run count, third field of
 *    /proc/TID/schedstat, read with the CPU time the sample needs anyway.
 * The PC of a thread that is blocked now is in /proc/TID/syscall, read
 * without stopping it: a thread that woke and blocked again between two
 * samples is not stopped either (unless its call stack is recorded: its
 * stack is then compared first, callstack.h).
 * With --carry-preempted the event is the context-switch counter sampled
 * at every switch out with the user SP and PC, in a ring written newest
 * first: a thread that waits for a CPU (preempted, or woken and not yet
 * run) is carried too, with the PC it left the CPU at.
 */
#ifndef SAMPLER_QUIET_H
#define SAMPLER_QUIET_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct quiet {
	const volatile void *ring;	/* perf_event_mmap_page, or NULL: schedstat */
	int syscall_fd;			/* /proc/PID/task/TID/syscall, opened when needed */
	bool backward;			/* newest record first, switches out with registers */
	bool known;			/* mark, PC and CPU time were read off CPU */
	uint64_t mark;			/* switch stamp at that time */
	bool runnable;			/* at the mark: preempted or continued, not blocked */
	uint64_t seen;			/* switch stamp of the last QUIET_BLOCKED/WAITING look */
	bool seen_runnable;		/* that look was QUIET_WAITING */
	unsigned retry_in;		/* samples before a thread found running is looked at again */
	uint64_t runs_pos;		/* switch stamp up to which quiet_runs read */
};

/* No ring, nothing known (also what a zeroed struct needs before close). */
void quiet_init(struct quiet *q);
/* Map the thread's switch ring (falls back to schedstat when refused).
 * with_registers (--carry-preempted): sample the user registers at every
 * switch out, so that a thread that waits for a CPU is carried too (falls
 * back to switch records only where that is refused). */
void quiet_open(struct quiet *q, pid_t tid, bool with_registers);
void quiet_close(struct quiet *q);

/* What quiet_look found. */
enum quiet_look {
	QUIET_RAN,		/* on a CPU, preempted, or unknown: stop it */
	QUIET_SAME,		/* not run since its PC was known: *pc unchanged, *cpu_ns read */
	QUIET_BLOCKED,		/* ran, but is blocked now: *pc, *sp, *cpu_ns read off CPU */
	QUIET_WAITING,		/* ran, but was preempted and waits for a CPU: the same */
};

/* Can the thread be sampled without a stop?  After QUIET_BLOCKED or
 * QUIET_WAITING the caller takes the PC read with quiet_accept, or leaves
 * it (and stops the thread). */
/* stamp: quiet_stamp() taken when the sample began (the ring is judged as
 * it was then; ignored without a ring). */
enum quiet_look quiet_look(struct quiet *q, uint64_t stamp, pid_t pid, pid_t tid,
			   int schedstat_fd, uint64_t *pc, uint64_t *sp, uint64_t *cpu_ns);
/* Not switched in since the QUIET_BLOCKED look: what was read of it since
 * (its stack) was read at the same instant as its PC. */
bool quiet_unmoved(const struct quiet *q, pid_t pid, pid_t tid, int schedstat_fd);
/* Was the thread on a CPU at the stamp (its last switch was in; true
 * without a ring, or with an empty one unless it was known to be off CPU)?  One that waits for a CPU stops only when it gets one. */
bool quiet_on_cpu(const struct quiet *q, uint64_t stamp);
/* The switch stamp now (0 without a ring), and whether the thread was
 * switched since a stamp (false without a ring: not known).  A thread
 * interrupted on a CPU or waiting for one is switched out when it stops,
 * so that the stops of many threads are reaped without a system call for
 * each thread that has not stopped yet. */
uint64_t quiet_stamp(const struct quiet *q);
bool quiet_switched(const struct quiet *q, uint64_t since);
/* Does the ring sample the user registers at every switch out? */
bool quiet_samples_registers(const struct quiet *q);
/* The PC of the QUIET_BLOCKED look is the known one from now on. */
void quiet_accept(struct quiet *q);
/* Its PC and CPU time were just read at a ptrace stop (after the register
 * read, so its switch out into the stop is in the ring): continued, it
 * cannot move before it is switched in, which moves the head.  A busy
 * thread stopped at one sample that has not had a CPU back by the next is
 * carried there, not stopped again (it would stop only once it got one). */
void quiet_stopped(struct quiet *q);
/* At a stop: is the stop's run the only one since the stamp, and did it
 * begin at or after when_ns (CLOCK_MONOTONIC)?  Then the thread went from
 * its wait or its queue straight into the stop and ran no user code since
 * the stamp.  True without switch samples (not known). */
bool quiet_straight_to_stop(const struct quiet *q, uint64_t since, uint64_t when_ns);
/* Was the thread runnable (waiting for a CPU, not blocked) when its PC was
 * last known? */
bool quiet_runnable(const struct quiet *q);
/* Where the thread ran since the last call (docs/ENERGY.md, "Where in
 * its interval a thread ran"): its runs in the ring up to the stamp
 * (quiet_stamp() at this sample's start), within (after_ns, look_ns] (the
 * previous sample's time, and when the stamp was taken; CLOCK_MONOTONIC):
 * *from_ns its first switch in, *to_ns its last switch out (if it was on
 * a CPU at the stamp, the switch out into its stop, when it is stopped,
 * but no later than stop_ns, the sample's time, when every stop was seen).
 * False, both 0, when not known: no ring, no run, or more switches than
 * the ring kept. */
bool quiet_runs(struct quiet *q, uint64_t stamp, uint64_t after_ns, uint64_t look_ns,
		uint64_t stop_ns, uint64_t *from_ns, uint64_t *to_ns);

#endif
