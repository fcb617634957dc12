/* engine.h - the ptrace sampling loop: stop every thread of the target
 * together at the target frequency, snapshot TID, PC, CPU time and PMU
 * readings, let them go on, and follow threads, processes and execs. */
#ifndef SAMPLER_ENGINE_H
#define SAMPLER_ENGINE_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "../common/error.h"
#include "../pmu/pmu.h"
#include "../profile/profile.h"
#include "signals.h"
#include "tasks.h"

/* The sampling period is a whole number of nanoseconds within these
 * bounds: 10 us (100 kHz; even one thread takes longer to stop) to 1000 s
 * (0.001 Hz). */
#define ENGINE_MIN_PERIOD_NS 10000ull
#define ENGINE_MAX_PERIOD_NS 1000000000000ull

/* The period of hz samples per second in ns, or 0 when it is outside the
 * bounds (NaN, infinite, zero and negative hz included). */
uint64_t engine_period_ns(double hz);

struct engine_stats {
	uint64_t start_ns, end_ns;
	uint64_t samples, thread_samples, missed_slots, latency_ns;
	uint64_t missing_readings, signals_delivered;
	uint32_t threads_seen, processes_seen;
	int exit_status;
	uint64_t stuck_samples;		/* samples taken without a thread that would not stop */
};

struct engine {
	double hz;
	uint64_t period_ns;
	struct pmu_set *pmus;
	struct profile_writer *writer;	/* NULL: nothing is written */
	bool write_failed;
	struct error write_err;
	bool pmu_failed;
	struct error pmu_err;

	bool follow_cpu;		/* keep the sampler on its target's CPU */
	int cpu;			/* where it is pinned now, or -1 */
	int ncpus;			/* online CPUs */

	struct task_table tasks;
	pid_t root_pid;
	bool root_done;			/* the command (first process) was reaped */
	bool tree_done;			/* nothing traced is left */
	bool detaching;			/* asked to stop following what is left */
	bool sampling;			/* inside a snapshot: pending stops are held */
	size_t npending;
	sigset_t chld_set;		/* SIGCHLD */
	sigset_t wait_set;		/* SIGCHLD and the signals we forward */
	struct signal_relay relay;	/* pairs signals the command got too */

	/* channels: all of them, and their totals */
	uint32_t nchannels;
	struct channel_desc channels[PROFILE_MAX_CHANNELS];
	double *values;			/* per-sample readings of this sample */
	double *value_sum;		/* per-sample channels: sum of present readings */
	uint64_t *value_count;
	uint64_t *counter_sum;		/* per-thread channels: sum of deltas */

	/* the snapshot being assembled */
	struct profile_thread_sample *ts;
	uint64_t *ts_counters;
	size_t ts_alloc;
	struct profile_exit exit_rec;	/* the exit being written (1 KiB: not on the stack) */

	struct engine_stats st;
};

/* Take over the target, held in its exec stop: write its process, exec,
 * thread and map records, attach the PMU plug-ins.  start_ns is when
 * sampling begins (the schedule's slot 0). */
int engine_init(struct engine *e, pid_t root, double hz, struct pmu_set *pmus,
		struct profile_writer *writer, uint64_t start_ns, struct error *err);

/* Sample until every process of the target's tree has ended (or, after
 * the target itself ended, until HUP, INT, QUIT or TERM ask to stop
 * following the rest: it is detached and goes on untraced).  Signals that
 * reached the sampler alone are passed on to the target (signals.h).
 * Returns 0, or -1 when the profile could not be written (err says why;
 * the target ran to its end). */
int engine_run(struct engine *e, struct error *err);

/* The run's statistics in profile form (channel totals included). */
void engine_profile_stats(const struct engine *e, struct profile_stats *out);

void engine_free(struct engine *e);

#endif
