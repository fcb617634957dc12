/* engine.h - the ptrace sampling loop: stop every thread of the target
 * together at the target frequency, snapshot TID, PC, CPU time and PMU
 * readings, let them go on, and follow threads, processes and execs.
 *
 * A closed box: engine_new() takes over the launched target (or the
 * threads attach_seize took), engine_run()
 * samples it to its end, engine_finish() completes the profile and says
 * what the run measured, engine_free() lets go. */
#ifndef SAMPLER_ENGINE_H
#define SAMPLER_ENGINE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "../common/error.h"
#include "../pmu/pmu.h"
#include "../profile/profile.h"
#include "attach.h"
#include "window.h"
#include "callstack.h"

/* The sampling period is a whole number of nanoseconds within these
 * bounds: 10 us (100 kHz; even one thread takes longer to stop) to 1000 s
 * (0.001 Hz). */
#define ENGINE_MIN_PERIOD_NS 10000ull
#define ENGINE_MAX_PERIOD_NS 1000000000000ull

/* The period of hz samples per second in ns (profile_period_ns: as the
 * profile predicts it), or 0 when it is outside the bounds (NaN, infinite,
 * zero and negative hz included). */
uint64_t engine_period_ns(double hz);

struct engine;

/* --precise-stops: preemptors (preempt.h) always, never, or once stops of
 * running threads land at system calls' returns (engine.c). */
enum engine_precise { PRECISE_AUTO, PRECISE_ALWAYS, PRECISE_NEVER };
/* --carry-preempted: carry the threads that wait for a CPU always, never,
 * or when the machine is busy at the start (engine.c). */
enum engine_carry { CARRY_AUTO, CARRY_ALWAYS, CARRY_NEVER };

struct engine_config {
	pid_t root;			/* the target, held in its exec stop */
	double hz;			/* samples per second (engine_period_ns) */
	uint64_t start_ns;		/* host_now_ns() of the schedule's slot 0 */
	struct pmu_set *pmus;		/* attached to every thread; stays the caller's */
	struct profile_writer *writer;	/* NULL: nothing is written */
	bool follow_cpu;		/* keep the sampler on its target's CPU */
	bool stop_every;		/* --stop-all: stop also threads that did not run */
	enum engine_carry carry;	/* --carry-preempted: nor those that wait for a CPU */
	enum engine_precise precise;	/* --precise-stops: when to use preempt.h */
	bool check_carried;		/* SAMPLER_TEST_CHECK_CARRIED: stop carried threads too */
	/* --pid/--tid: the threads seized (running), instead of root; the
	 * run ends when they are gone, on HUP, INT, QUIT or TERM, or when the
	 * window is over, and then detaches from everything */
	const struct attach_list *attached;
	/* when to sample (NULL: all the time); outside its windows the target
	 * runs untouched and nothing it does is counted (struct profile_window) */
	struct window *window;
	struct callstack *stacks;	/* call stacks to take (-g); stays the caller's; NULL: none */
	/* --tracers: tracing threads that share the threads of a command the
	 * engine started (tracers.h; 0 or 1: one; ignored with attached) */
	int tracers;
	/* the clock period of each thread's clock samples (cpuclock.h); 0:
	 * none */
	uint64_t clock_period_ns;
};

/* What a run measured, beyond what the profile's stats record holds. */
struct engine_stats {
	struct profile_stats profile;	/* as written to the profile */
	uint64_t held_slots;		/* slots without a sample: no thread to stop (job control, exit) */
	uint64_t blocked_thread_samples; /* of threads the stop found blocked in a system call */
	uint64_t stuck_samples;		/* samples that left out a thread which did not stop in 1 s */
	uint64_t stops;			/* threads stopped for samples */
	uint64_t carried;		/* thread-samples taken without a stop (quiet.h) */
	uint64_t carried_waiting;	/* of them, of threads preempted (waiting for a CPU) */
	uint64_t carried_checked, carried_wrong; /* check_carried: PCs checked, differing */
	uint64_t pmu_read_ns;		/* of latency_ns: reading the per-sample channels */
	int tracers;			/* tracing threads */
	uint64_t moved;			/* threads moved to another tracer at their first stop */
	uint64_t strays;		/* threads they started untraced while they moved, seized */
	uint64_t profile_bytes;		/* the profile's, written to a file or a pipe */
	uint64_t own_cpu_ns;		/* the sampler's own CPU time while it sampled (engine_run) */
	uint64_t engine_cpu_ns;		/* ...of it the engine's thread (the serial part) */
	uint64_t sampled_ns;		/* of wall_ns: inside the sampling windows */
	uint64_t channel_missing[PROFILE_MAX_CHANNELS]; /* per channel: readings missing (per-sample ones) */
	struct channel_refused channel_refused[PROFILE_MAX_CHANNELS]; /* ...of them refused, by kind */
	int ncpus;			/* online CPUs */
	uint64_t cpu_unread;		/* CPU-time readings that failed (the previous value was kept) */
	uint64_t cpu_unread_fds;	/* ...of them for want of a file descriptor */
	uint64_t stacks, stacks_short;	/* -g: thread-samples' stacks, cut for want of descriptors */
	bool pmu_failed;		/* a plug-in failed: pmu_err says how (the first failure) */
	bool carry_on;			/* threads that wait for a CPU carried (asked, or auto) */
	bool carry_refused;		/* ...but the kernel refused the event */
	double carry_busy_share;	/* auto: tasks waited for a CPU this share at the start */
	int carry_runnable;		/* auto: other tasks runnable at the start */
	bool carry_auto;		/* ...so auto carried the threads that waited for one */
	double cpu_wait_share;		/* of the run, tasks waited for a CPU (PSI), or -1 */
	uint64_t clock_refused;		/* threads whose clock samples the kernel refused */
	int clock_errno;		/* ...the first refusal's errno */
	uint64_t clock_lost;		/* thread-samples whose clock samples were lost (ring full) */
	uint64_t clock_samples;		/* clock samples taken */
	bool tracers_refused;		/* --tracers asked, the sampler is not at real-time priority */
	uint64_t running_stops;		/* stops that found a thread not blocked (read) */
	uint64_t syscall_stops;		/* ...of them at a system call's return (regs.h) */
	uint64_t precise_from;		/* preemptors on from this sample (1: the first) or 0 */
	bool precise_refused;		/* wanted, but not at real-time priority or one CPU */
	double precise_late_share;	/* auto: the stops at a system call's return it judged */
	double precise_busy_share;	/* auto: tasks waited for a CPU this share of the judged time */
	bool precise_busy;		/* ...so much that auto left them off */
	uint64_t precise_holds, precise_timeouts; /* preempt.h's counts */
	struct error pmu_err;
};

/* Take over the target: write its process, exec, thread and map records,
 * attach the PMU plug-ins, and let it run.  The engine owns the writer from
 * here on, also when this fails (NULL, err says why; the target is still
 * held and the caller kills it). */
struct engine *engine_new(const struct engine_config *cfg, struct error *err);

/* Sample until every process of the target's tree has ended (or, after
 * the target itself ended, until HUP, INT, QUIT or TERM ask to stop
 * following the rest: it is detached and goes on untraced).  Signals that
 * reached the sampler alone are passed on to the target (signals.h).  A
 * write failure stops the writing, not the run: engine_finish reports it. */
void engine_run(struct engine *e);

/* Once, after engine_run: the run's statistics, and the profile completed
 * with them.  Returns 0, or -1 when the profile could not be written (err
 * says why; stats are filled in either way). */
int engine_finish(struct engine *e, struct engine_stats *stats, struct error *err);

void engine_free(struct engine *e);

#endif
