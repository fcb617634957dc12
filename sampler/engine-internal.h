/* engine-internal.h - the engine's parts and the calls between them; for
 * the engine's own files, below, alone (callers use engine.h).
 *
 *	engine.c	the loop and the window: when to sample, signals, set-up,
 *			the statistics handed over at the end
 *	events.c	the ptrace stops: the task table as threads, processes
 *			and execs come and go; resuming; moving threads between
 *			tracers
 *	snapshot.c	a sample's snapshot: stop or carry every running thread,
 *			wait for the stops, read them, continue them; the call
 *			stacks unwound after
 *	record.c	the records written, and every reading they carry
 *			accounted (channels, counters, CPU time)
 * and regs.h, what a stopped thread's registers say (per architecture).
 */
#ifndef SAMPLER_ENGINE_INTERNAL_H
#define SAMPLER_ENGINE_INTERNAL_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/user.h>

#include "engine.h"
#include "preempt.h"
#include "buildid.h"
#include "signals.h"
#include "tasks.h"
#include "tracers.h"

/* A sample waits this long, STOP_WAIT_SLICES times (snapshot.c), for a
 * thread that does not stop (one in an uninterruptible sleep) before it
 * leaves it out of that sample; the loop looks this often while it
 * detaches. */
#define STOP_WAIT_SLICE_NS 100000000L
/* A switch stamp no ring has: a thread pended with it is always asked. */
#define ANY_STAMP UINT64_MAX

/* One per-sample channel: what the samples carried. */
struct channel_tally {
	double sum;			/* of the readings present */
	uint64_t count;			/* readings present */
	uint64_t missing;		/* readings missing (NaN) */
};

/* As engine_new set it up (struct engine_config). */
struct engine_cfg {
	uint64_t period_ns;
	uint64_t start_ns;		/* the schedule's slot 0 */
	struct pmu_set *pmus;
	struct callstack *stacks;	/* NULL: no call stacks (-g) */
	/* when to sample (NULL: always); see struct profile_window */
	struct window *window;
	pid_t root_pid;			/* 0: attached, no command of ours */
	bool attached;			/* --pid/--tid: let go at the end, never signal */
	bool follow_cpu;		/* keep the sampler on its target's CPU */
	bool stop_every;		/* --stop-all: no thread is sampled without a stop */
	bool carry_preempted;		/* --carry-preempted (quiet.h) */
	uint64_t clock_period_ns;	/* clock samples (cpuclock.h); 0: none */
	enum engine_precise precise;	/* --precise-stops */
	bool check_carried;		/* stop carried threads too, count wrong PCs */
};

/* The course of the target's tree, beside the task table. */
struct engine_tree {
	/* tid -> pid: threads and processes reaped before their parent's clone
	 * or fork event was (on_new_child ignores that event) */
	struct idmap orphans;
	bool root_done;			/* the command (first process) was reaped */
	bool done;			/* nothing traced is left */
	uint64_t end_ns;		/* ...since then */
	bool detaching;			/* asked to stop following what is left */
	uint64_t detach_by;		/* attached: when the rest is let go (DETACH_WAIT_NS) */
};

/* Several tracers (tracers.h): threads are marked, then each tracer does
 * its share of a round at once. */
struct engine_rounds {
	struct tracers *tracers;	/* NULL: one tracer, this thread */
	int next;			/* the one the next new thread moves to */
	size_t marked;			/* threads marked for the tracers' next round */
	unsigned char *round;		/* per tracer: it has threads marked */
	long seize_options;		/* ptrace options of a thread moved to another tracer */
};

/* The snapshot being taken, and what it is assembled in. */
struct engine_snap {
	bool sampling;			/* inside a snapshot: pending stops are held */
	size_t npending;
	pid_t *waitlist;		/* the tids the snapshot waits for (snapshot_pend) */
	size_t nwait, wait_alloc;
	bool wait_any;			/* out of memory for waitlist: waitpid(-1) */
	sigset_t chld_set;		/* SIGCHLD */
	struct profile_thread_sample *ts;
	size_t ts_alloc;
	uint64_t *counters;		/* the thread-samples' counters, ncounters each */
	size_t counters_alloc;
	/* the clock samples of the threads (cpuclock.h), and their stacks */
	struct profile_clock_sample *clock;
	size_t nclock, clock_alloc;
	uint64_t *clock_frames;
	size_t nclock_frames, clock_frames_alloc;
	uint8_t *clock_buf;		/* a record that wraps around its ring's end */
	size_t clock_buf_len;
	uint64_t look_ns;		/* when this snapshot took the switch stamps */
	uint64_t prev_ns;		/* the previous snapshot's time */
	uint64_t time_ns;		/* this one's: every stop was seen */
};

/* The records, and the readings they carried (record.c). */
struct engine_out {
	struct profile_writer *writer;	/* NULL: nothing (more) is written */
	bool write_failed;
	struct error write_err;
	struct profile_exit exit_rec;	/* the exit being written (1 KiB: not on the stack) */
	struct buildid_cache *buildids;	/* of the files mapped, for the map records */
	/* channels: all of them, and what the records carried */
	uint32_t nchannels;
	struct channel_desc channels[PROFILE_MAX_CHANNELS];
	double *values;			/* per-sample readings of this sample */
	struct channel_tally *tally;	/* per per-sample channel */
	uint64_t *counter_sum;		/* per-thread channels: sum of deltas */
};

/* The loop: the window, the signals it waits for, the sampler's CPU. */
struct engine_loop {
	bool enabled;			/* sampling now */
	bool baseline;			/* this sample starts a window: counts nothing */
	uint64_t enabled_at;		/* when the current window began */
	sigset_t wait_set;		/* SIGCHLD and the signals we forward */
	struct signal_relay relay;	/* pairs signals the command got too */
	int cpu;			/* where the sampler is pinned now, or -1 */
	struct preemptors *preempt;	/* preempt.h: NULL if not in use */
	uint64_t judged_from;		/* --precise-stops=auto counts stops from here */
	uint64_t judged_syscalls;	/* ...and the syscall_stops then */
	long long judged_wait_us;	/* ...the machine's CPU wait then (host.h; -1: unknown) */
	uint64_t judged_ns;		/* ...and when */
};

struct engine {
	struct engine_cfg cfg;
	struct task_table tasks;	/* the threads and processes traced */
	struct engine_tree tree;
	struct engine_rounds rounds;
	struct engine_snap snap;
	struct engine_out out;
	struct engine_loop loop;
	/* counted where it happens, handed over by engine_finish (sampled_ns:
	 * in the windows before the current one, until then) */
	struct engine_stats stats;
};

/* The CPU time recorded for t at a kernel reading of cpu_ns: the reading,
 * moved by the offset an exec from another thread gave the tid (on_exec). */
static inline uint64_t recorded_cpu(const struct task *t, uint64_t cpu_ns)
{
	int64_t v = (int64_t)cpu_ns + t->cpu_offset;

	return v > 0 ? (uint64_t)v : 0;
}

/* ---- record.c ---------------------------------------------------------- */

/* The buffers the records and readings need (the build-ID cache too). */
int record_init(struct engine *e, struct error *err);
void record_free(struct engine *e);
/* Every record's result goes through here: the first write failure stops
 * writing (the target still runs to its end) and is reported at the end. */
void record_result(struct engine *e, int rc);
void emit_process(struct engine *e, const struct process *p, uint64_t now);
void emit_exec(struct engine *e, const struct process *p, uint64_t now);
void emit_thread(struct engine *e, struct task *t, uint64_t now);
void emit_name(struct engine *e, struct task *t, uint64_t now);
void emit_exit(struct engine *e, struct task *t, uint64_t now, bool readable);
bool refresh_maps(struct engine *e, struct process *p, uint64_t now, bool always);
/* Maps past twice those last read from /proc, and this many more, are
 * read again (follow_maps). */
#define MAPS_SLACK 64
void follow_maps(struct engine *e, struct process *p, uint64_t until);
void read_counters(struct engine *e, struct task *t, uint64_t *values);
void read_cpu(struct engine *e, const struct task *t, uint64_t *cpu);
void read_sample_channels(struct engine *e);
/* The channels' totals and missing readings into e->stats. */
void channel_totals(struct engine *e);

/* ---- events.c ---------------------------------------------------------- */

struct process *add_process(struct engine *e, pid_t pid, pid_t ppid);
struct task *add_thread(struct engine *e, pid_t tid, struct process *p,
			enum task_state state);
void thread_exits(struct engine *e, struct task *t, bool readable);
void forget_task(struct engine *e, struct task *t);
void detach_task(struct engine *e, struct task *t);
long tptrace(struct engine *e, const struct task *t, int request, void *addr, void *data);
int events_resume_prepare(struct engine *e, struct task *t);
void events_resume(struct engine *e, struct task *t);
int read_regs(struct engine *e, const struct task *t, struct user_regs_struct *regs,
	      size_t *len, uint64_t *pc, bool *blocked);
void events_on_status(struct engine *e, pid_t tid, int status);
int events_drain(struct engine *e);

/* ---- snapshot.c -------------------------------------------------------- */

/* Take the snapshot: every running thread stopped or carried, read into
 * e->snap.ts with the per-sample channels (at *when), and continued.
 * Returns the number of thread-samples (0: nothing to sample). */
size_t snapshot_take(struct engine *e, uint64_t *when);
/* The hand-off, once the threads run: maps re-read for PCs in none, the
 * stacks copied in the snapshot unwound (-g). */
void snapshot_unwind(struct engine *e, size_t n, uint64_t now);
void snapshot_free(struct engine *e);
/* The snapshot waits for t's stop (stamp: its switch stamp before it was
 * interrupted; ANY_STAMP: ask), or no longer. */
void snapshot_pend(struct engine *e, struct task *t, uint64_t stamp);
void snapshot_unpend(struct engine *e, struct task *t);
/* A new thread whose start is known is in the snapshot where it starts. */
void snapshot_carry_new(struct task *t);

#endif
