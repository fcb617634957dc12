/* engine.c - the ptrace sampling loop.
 *
 * Every thread is traced with PTRACE_SEIZE (children are seized
 * automatically), so the engine can stop a thread with PTRACE_INTERRUPT
 * without any signal the target could see.  A sample interrupts every
 * running thread, waits until each has reported a stop, reads PC, CPU time
 * and PMU readings, continues them all, and only then encodes the record.
 *
 * Between samples the engine handles every kind of ptrace stop (after
 * strace): signal-delivery stops (the signal is passed on), group-stops
 * (kept with PTRACE_LISTEN so job control works), clone/fork/vfork/exec/exit
 * events, and late interrupt traps.  Any stop of a thread the current
 * sample waits for counts as its stop for the sample: a stop is a stop.
 * A thread that has not run since its PC was last read is not stopped at
 * all (quiet.h): it cannot have moved.
 *
 * The run follows the target's whole tree: when the first process ends,
 * its children go on being sampled until they end too (like strace -f).
 * Detaching them then would not leave them as they were: a tracee held in
 * PTRACE_LISTEN or waiting in vfork cannot be detached, and the
 * PTRACE_O_EXITKILL that takes the tree down with a killed sampler would
 * kill them.  Only when asked (HUP, INT, QUIT or TERM once the first
 * process is gone) does the engine detach what is left, each thread at its
 * next stop, so that each goes on exactly as it was: stopped ones stay
 * stopped, a pending signal is delivered.
 */
#include "engine.h"

#include <elf.h>
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "buildid.h"
#include "host.h"
#include "launch.h"
#include "signals.h"
#include "tasks.h"
#include "tracers.h"
#include "tune.h"

/* How long a sample waits for a thread that does not stop (a thread in an
 * uninterruptible sleep) before it is left out of that sample. */
#define STOP_WAIT_SLICE_NS 100000000L
#define STOP_WAIT_SLICES 10
/* How long the end of an attachment waits for threads to reach a stop to
 * be detached at: one in vfork whose child is stopped, or in an
 * uninterruptible sleep, may never; the kernel detaches those when the
 * sampler exits (attached threads have no PTRACE_O_EXITKILL). */
#define DETACH_WAIT_NS 1000000000ull
/* How long a sample polls for stops before it sleeps.  Polling keeps the
 * sampler's CPU awake, so a stop is seen without a wake-up across cores
 * (20-40 us on a VM); but a real-time sampler that polls keeps target
 * threads that share its CPU from reaching their stop, so it polls long
 * only when the target has fewer running threads than there are CPUs. */
#define SPIN_ALONE_NS 60000
#define SPIN_SHARED_NS 20000
/* How often (in samples) the sampler moves to its target's CPU, and how
 * many threads it looks at to find it. */
#define FOLLOW_EVERY 50
#define FOLLOW_THREADS 8
/* Refresh a process's maps for an unknown PC at most this often. */
#define MAP_REFRESH_EVERY 100
/* Every this many samples, re-read one thread's name (round robin) to see
 * renames: a /proc read costs 3-20 us, so 8 keep it below 3 us per sample
 * on average, and a rename still shows within 8 x threads samples. */
#define NAME_EVERY 8
/* A switch stamp no ring has: a thread pended with it is always asked. */
#define ANY_STAMP UINT64_MAX

/* fetched_cpu of a thread whose CPU time its tracer could not read */
#define CPU_UNREAD UINT64_MAX

/* One per-sample channel: what the samples carried. */
struct channel_tally {
	double sum;			/* of the readings present */
	uint64_t count;			/* readings present */
	uint64_t missing;		/* readings missing (NaN) */
};

struct engine {
	double hz;
	uint64_t period_ns;
	struct pmu_set *pmus;
	struct callstack *stacks;	/* NULL: no call stacks (-g) */
	struct profile_writer *writer;	/* NULL: nothing (more) is written */
	bool write_failed;
	struct error write_err;
	bool pmu_failed;
	struct error pmu_err;

	bool follow_cpu;		/* keep the sampler on its target's CPU */
	bool stop_every;		/* --stop-all: no thread is sampled without a stop */
	bool carry_preempted;		/* --carry-preempted (quiet.h) */
	bool carry_refused;		/* ...and a thread's ring has no registers */
	bool check_carried;		/* stop carried threads too, count wrong PCs */
	int cpu;			/* where it is pinned now, or -1 */
	int ncpus;			/* online CPUs */

	struct task_table tasks;
	/* tid -> pid: threads and processes reaped before their parent's clone
	 * or fork event was (on_new_child ignores that event) */
	struct idmap orphans;
	struct tracers *tracers;	/* NULL: one tracer, this thread (tracers.h) */
	int next_tracer;		/* the one the next new thread moves to */
	size_t marked;			/* threads marked for the tracers' next round */
	unsigned char *round;		/* per tracer: it has threads marked */
	long seize_options;		/* ptrace options of a thread moved to another tracer */
	pid_t root_pid;
	bool root_done;			/* the command (first process) was reaped */
	bool tree_done;			/* nothing traced is left */
	bool detaching;			/* asked to stop following what is left */
	uint64_t detach_by;		/* attached: when the rest is let go (DETACH_WAIT_NS) */
	bool sampling;			/* inside a snapshot: pending stops are held */
	size_t npending;
	pid_t *waitlist;		/* the tids the snapshot waits for (pend) */
	size_t nwait, wait_alloc;
	bool wait_any;			/* out of memory for waitlist: waitpid(-1) */
	sigset_t chld_set;		/* SIGCHLD */
	sigset_t wait_set;		/* SIGCHLD and the signals we forward */
	struct signal_relay relay;	/* pairs signals the command got too */
	bool attached;			/* --pid/--tid: let go at the end, never signal */

	/* when to sample (NULL: always); see struct profile_window */
	struct window *window;
	bool enabled;			/* sampling now */
	bool baseline;			/* this sample starts a window: counts nothing */
	uint64_t enabled_at;		/* when the current window began */
	uint64_t sampled_ns;		/* in the windows before it */

	/* channels: all of them, and what the records carried */
	uint32_t nchannels;
	struct channel_desc channels[PROFILE_MAX_CHANNELS];
	double *values;			/* per-sample readings of this sample */
	struct channel_tally *tally;	/* per per-sample channel */
	uint64_t *counter_sum;		/* per-thread channels: sum of deltas */

	/* the snapshot being assembled */
	struct profile_thread_sample *ts;
	uint64_t *ts_counters;
	size_t ts_alloc;
	struct profile_exit exit_rec;	/* the exit being written (1 KiB: not on the stack) */
	struct buildid_cache *buildids;	/* of the files mapped, for the map records */

	struct {
		uint64_t start_ns, end_ns;
		uint64_t samples, thread_samples, missed_slots, latency_ns;
		uint64_t signals_delivered;
		uint32_t threads_seen, processes_seen;
		int exit_status;
		bool tracers_refused;
		uint64_t held_slots, blocked_thread_samples, stuck_samples, pmu_read_ns, own_cpu_ns, engine_cpu_ns;
		uint64_t stops, carried, carried_checked, carried_wrong, moved, strays;
		uint64_t cpu_unread, cpu_unread_fds;
	} st;
};

/* ---- writing ----------------------------------------------------------- */

/* Every record goes through here: the first write failure stops writing
 * (the target still runs to its end) and is reported at the end. */
static void record_result(struct engine *e, int rc)
{
	if (rc == 0 || !e->writer)
		return;
	e->write_failed = true;
	profile_writer_abandon(e->writer);
	e->writer = NULL;
}

static void emit_process(struct engine *e, const struct process *p, uint64_t now)
{
	struct profile_process rec = { .pid = p->pid, .ppid = p->ppid, .time_ns = now };

	e->st.processes_seen++;
	if (e->writer)
		record_result(e, profile_write_process(e->writer, &rec, &e->write_err));
}

static void emit_exec(struct engine *e, const struct process *p, uint64_t now)
{
	struct profile_exec rec = { .pid = p->pid, .time_ns = now };

	if (!e->writer)
		return;
	procfs_read_comm(p->pid, rec.comm, sizeof(rec.comm));
	procfs_read_cmdline(p->pid, rec.argv, sizeof(rec.argv));
	record_result(e, profile_write_exec(e->writer, &rec, &e->write_err));
}

/* The thread's name as /proc shows it now, recorded when it differs from
 * the one recorded last: at its first stop, at renames, at its exit. */
static void emit_name(struct engine *e, struct task *t, uint64_t now)
{
	struct profile_name rec = { .tid = t->tid, .pid = t->proc->pid, .time_ns = now };

	procfs_read_thread_comm(t->proc->pid, t->tid, rec.name, sizeof(rec.name));
	if (!rec.name[0] || strcmp(rec.name, t->comm) == 0)
		return;
	snprintf(t->comm, sizeof(t->comm), "%s", rec.name);
	if (e->writer)
		record_result(e, profile_write_name(e->writer, &rec, &e->write_err));
}

static void emit_thread(struct engine *e, struct task *t, uint64_t now)
{
	struct profile_thread rec = { .tid = t->tid, .pid = t->proc->pid, .time_ns = now };

	e->st.threads_seen++;
	if (e->writer)
		record_result(e, profile_write_thread(e->writer, &rec, &e->write_err));
	emit_name(e, t, now);
}

/* ---- accounting --------------------------------------------------------
 * Every reading that goes into a record is counted here and only here, so
 * the stats totals are exactly what the records add up to. */

/* Read a stopped thread's cumulative counters into values (nothing gained
 * when unreadable) and count what they gained since its previous record. */
static void read_counters(struct engine *e, struct task *t, uint64_t *values)
{
	size_t nc = e->tasks.ncounters;

	if (!nc)
		return;
	if (pmu_set_read_thread(e->pmus, t->tid, values, NULL) < 0)
		memcpy(values, t->counters, nc * sizeof(*values));
	for (size_t c = 0; c < nc; c++) {
		if (e->enabled && !e->baseline && values[c] >= t->counters[c])
			e->counter_sum[c] += values[c] - t->counters[c];
		t->counters[c] = values[c];
	}
}

/* The kind of the i-th per-sample channel. */
static enum channel_kind sample_channel_kind(const struct engine *e, size_t i)
{
	for (uint32_t c = 0; c < e->nchannels; c++)
		if (e->channels[c].scope == CHANNEL_PER_SAMPLE && i-- == 0)
			return e->channels[c].kind;
	return CHANNEL_COUNTER;
}

/* Read the per-sample channels into e->values while the sample's threads
 * are stopped; only for a sample that is taken (energy read and then not
 * recorded would be in the totals but in no sample). */
static void read_sample_channels(struct engine *e)
{
	size_t n = e->pmus->nsample;
	struct error err;

	if (!n)
		return;
	if (pmu_set_read(e->pmus, e->values, &err) < 0) {
		for (size_t i = 0; i < n; i++)
			e->values[i] = NAN;
		if (!e->pmu_failed) {
			e->pmu_failed = true;
			e->pmu_err = err;
		}
	}
	for (size_t i = 0; i < n; i++) {
		/* energy since the last reading was spent outside the window */
		if (e->baseline && sample_channel_kind(e, i) == CHANNEL_ENERGY)
			e->values[i] = 0;
		if (isnan(e->values[i])) {
			e->tally[i].missing++;
			continue;
		}
		e->tally[i].sum += e->values[i];
		e->tally[i].count++;
	}
}

/* The totals in profile form: energy adds up, other readings average. */
static void channel_totals(const struct engine *e, struct profile_stats *out)
{
	size_t s = 0, c = 0;

	out->nchannels = e->nchannels;
	for (uint32_t i = 0; i < e->nchannels; i++) {
		const struct channel_desc *ch = &e->channels[i];

		if (ch->scope == CHANNEL_PER_THREAD) {
			out->channel_totals[i] = (double)e->counter_sum[c++];
			continue;
		}
		if (ch->kind == CHANNEL_ENERGY)
			out->channel_totals[i] = e->tally[s].sum;
		else
			out->channel_totals[i] = e->tally[s].count ?
				e->tally[s].sum / (double)e->tally[s].count : NAN;
		out->missing_readings += e->tally[s].missing;
		s++;
	}
}

/* ---- records ----------------------------------------------------------- */

/* The CPU time recorded for t at a kernel reading of cpu_ns: the reading,
 * moved by the offset an exec from another thread gave the tid (on_exec). */
static uint64_t recorded_cpu(const struct task *t, uint64_t cpu_ns)
{
	int64_t v = (int64_t)cpu_ns + t->cpu_offset;

	return v > 0 ? (uint64_t)v : 0;
}

/* Read t's CPU time into *cpu.  A reading that fails leaves *cpu as it
 * was (never a zero, which would take back all the thread ran) and is
 * counted; one for want of a descriptor ends the run with a warning. */
static void read_cpu(struct engine *e, const struct task *t, uint64_t *cpu)
{
	if (procfs_read_cputime(t->schedstat_fd, t->proc->pid, t->tid, cpu) == 0)
		return;
	e->st.cpu_unread++;
	if (errno == EMFILE || errno == ENFILE)
		e->st.cpu_unread_fds++;
}

/* Read the CPU time and counters of a thread at its exit stop (still
 * alive, counters still attached): what it did after its last sample. */
static void read_final(struct engine *e, struct task *t, struct profile_exit *rec)
{
	uint64_t cpu = t->cpu_ns;

	read_cpu(e, t, &cpu);
	rec->final = true;
	if (cpu < t->cpu_ns)	/* nothing less than we had */
		cpu = t->cpu_ns;
	rec->cpu_ns = recorded_cpu(t, cpu);
	read_counters(e, t, rec->counters);
}

static void emit_exit(struct engine *e, struct task *t, uint64_t now, bool readable)
{
	struct profile_exit *rec = &e->exit_rec;

	memset(rec, 0, sizeof(*rec));
	rec->tid = t->tid;
	rec->pid = t->proc->pid;
	rec->time_ns = now;
	rec->whole_process = t->proc->live_threads == 0;
	if (readable) {
		read_final(e, t, rec);
		emit_name(e, t, now);
	}
	if (e->writer)
		record_result(e, profile_write_exit(e->writer, rec, &e->write_err));
}

static void emit_maps(struct engine *e, const struct process *p, uint64_t now)
{
	struct profile_map *rec;

	if (!e->writer)
		return;
	rec = malloc(sizeof(*rec));
	if (!rec)
		return;
	for (size_t i = 0; i < p->maps.n && e->writer; i++) {
		const struct map_entry *m = &p->maps.maps[i];

		*rec = (struct profile_map){
			.pid = p->pid, .time_ns = now, .start = m->start,
			.len = m->end - m->start, .pgoff = m->pgoff,
			.dev_major = m->dev_major, .dev_minor = m->dev_minor,
			.inode = m->inode, .prot = m->prot,
		};
		snprintf(rec->path, sizeof(rec->path), "%s", m->path);
		if (e->buildids)
			rec->build_id_len = buildid_of(e->buildids, p->pid, m, rec->build_id);
		record_result(e, profile_write_map(e->writer, rec, &e->write_err));
	}
	free(rec);
}

/* A thread of p to read its maps through: the leader's /proc/PID/maps is
 * empty once it has exited (pthread_exit), though the others run on.  The
 * leader while it lives, else a live thread, else one at its exit stop. */
static pid_t maps_tid(const struct engine *e, const struct process *p)
{
	pid_t live = 0, exiting = 0;

	for (size_t i = 0; i < e->tasks.ntasks; i++) {
		const struct task *t = e->tasks.tasks[i];

		if (t->proc != p)
			continue;
		if (t->state == TASK_EXITING) {
			exiting = exiting ? exiting : t->tid;
			continue;
		}
		if (t->tid == p->pid)
			return t->tid;
		live = live ? live : t->tid;
	}
	return live ? live : exiting ? exiting : p->pid;
}

/* Re-read the maps of p; write them when they changed (or always).
 * True when they changed. */
static bool refresh_maps(struct engine *e, struct process *p, uint64_t now, bool always)
{
	struct map_list fresh;

	if (procfs_read_thread_maps(p->pid, maps_tid(e, p), &fresh, NULL) < 0)
		return false;
	if (!always && map_list_equal(&fresh, &p->maps)) {
		map_list_free(&fresh);
		return false;
	}
	map_list_free(&p->maps);
	p->maps = fresh;
	if (e->stacks)
		callstack_maps_changed(e->stacks, p->pid);
	emit_maps(e, p, now);
	return true;
}

/* ---- the table --------------------------------------------------------- */

static void pmu_attach(struct engine *e, struct task *t)
{
	struct error err;

	memset(t->counters, 0, e->tasks.ncounters * sizeof(*t->counters));
	if (pmu_set_attach(e->pmus, t->tid, &err) < 0 && !e->pmu_failed) {
		e->pmu_failed = true;
		e->pmu_err = err;
	}
}

static struct task *add_thread(struct engine *e, pid_t tid, struct process *p,
			       enum task_state state)
{
	struct task *t = tasks_add(&e->tasks, tid, p, state);

	if (!t)
		return NULL;
	emit_thread(e, t, host_now_ns());
	pmu_attach(e, t);
	if (!e->stop_every)
		quiet_open(&t->quiet, tid, e->carry_preempted);
	if (e->carry_preempted && !quiet_samples_registers(&t->quiet))
		e->carry_refused = true;
	return t;
}

static struct process *add_process(struct engine *e, pid_t pid, pid_t ppid)
{
	struct process *p = tasks_add_process(&e->tasks, pid, ppid);
	uint64_t now = host_now_ns();

	if (!p)
		return NULL;
	emit_process(e, p, now);
	emit_exec(e, p, now);
	refresh_maps(e, p, now, true);
	return p;
}

static void unpend(struct engine *e, struct task *t)
{
	if (!t->pending)
		return;
	t->pending = false;
	e->npending--;
}

/* The current snapshot waits for t's stop: it is reaped by its tid
 * (reap_pending), not found by a waitpid(-1) that looks at every tracee.
 * stamp: its switch stamp before it was interrupted (ANY_STAMP: ask). */
static void pend(struct engine *e, struct task *t, uint64_t stamp)
{
	t->stop_stamp = stamp;
	if (e->nwait == e->wait_alloc) {
		size_t n = e->wait_alloc ? 2 * e->wait_alloc : 64;
		pid_t *w = realloc(e->waitlist, n * sizeof(*w));

		if (w) {
			e->waitlist = w;
			e->wait_alloc = n;
		}
	}
	if (e->nwait < e->wait_alloc)
		e->waitlist[e->nwait++] = t->tid;
	else
		e->wait_any = true;
	t->pending = true;
	e->npending++;
}

/* The thread reported it is exiting (readable: stopped at its exit event)
 * or is gone: record it once. */
static void thread_exits(struct engine *e, struct task *t, bool readable)
{
	uint64_t now = host_now_ns();

	unpend(e, t);
	if (t->state == TASK_EXITING)
		return;
	tasks_set_exiting(t);
	emit_exit(e, t, now, readable);
	pmu_set_detach(e->pmus, t->tid);
	if (t->proc->live_threads == 0) {
		refresh_maps(e, t->proc, now, false);	/* its last maps */
		if (e->stacks)	/* its files, open for unwinding, are not needed */
			callstack_maps_changed(e->stacks, t->proc->pid);
	}
}

/* Remove t from the table.  A new thread whose parent's clone or fork
 * event is still to come is noted, so that the event does not adopt it a
 * second time (on_new_child): a detached thread would be a ghost, recorded
 * alive to the end. */
static void forget_task(struct engine *e, struct task *t)
{
	pid_t *pid;

	if (t->event_due && (pid = idmap_get(&e->orphans, (uint32_t)t->tid, NULL)))
		*pid = t->proc->pid;
	tasks_remove(&e->tasks, t);
}

static void drop_task(struct engine *e, struct task *t)
{
	thread_exits(e, t, false);
	forget_task(e, t);
}

/* A thread or process we have not heard of: a new child whose first stop
 * came before its parent's clone/fork event. */
static struct task *adopt(struct engine *e, pid_t tid, pid_t parent_pid, bool thread)
{
	pid_t tgid = thread ? parent_pid : tid, ppid = parent_pid;
	struct process *p;

	if (procfs_read_ids(tid, &tgid, &ppid) < 0 && !parent_pid)
		return NULL;
	p = tasks_find_process(&e->tasks, tgid);
	if (!p) {
		p = add_process(e, tgid, tgid == tid ? ppid : 0);
		if (!p)
			return NULL;
	}
	return add_thread(e, tid, p, TASK_NEW);
}

/* ---- continuing -------------------------------------------------------- */

/* A ptrace request on t, made by its tracer's thread (tracers.h). */
static long tptrace(struct engine *e, const struct task *t, int request, void *addr, void *data)
{
	return tracers_ptrace(e->tracers, t->tracer, request, t->tid, addr, data);
}

/* The tracer of a thread the engine did not see attached: /proc says
 * which thread traces it (0 when it cannot tell). */
static int tracer_of(const struct engine *e, pid_t tid)
{
	int tracer = e->tracers ? tracers_find(e->tracers, procfs_read_tracer(tid)) : 0;

	return tracer < 0 ? 0 : tracer;
}

/* Mark t as running on; returns the signal to continue it with. */
static int resume_prepare(struct engine *e, struct task *t)
{
	int sig = t->inject_sig;

	t->inject_sig = 0;
	if (sig)
		e->st.signals_delivered++;
	/* The kernel builds the handler's frame when the thread runs again,
	 * and its PC moves there before any user code: until then the PC it
	 * was stopped at is not where it is going (carry() stops it). */
	t->to_handler = sig != 0;
	t->state = t->in_vfork ? TASK_IN_VFORK : TASK_RUNNING;
	return sig;
}

static void resume(struct engine *e, struct task *t)
{
	int sig = resume_prepare(e, t);

	/* ESRCH: killed meanwhile; its exit is reported later. */
	tptrace(e, t, PTRACE_CONT, 0, (void *)(long)sig);
}

static void hold(struct engine *e, struct task *t)
{
	t->state = TASK_STOPPED;
	unpend(e, t);
}

/* Stop following a stopped thread: its exit record carries its final
 * values, and it goes on untraced (with the signal it was stopped for; in
 * a group-stop it stays stopped). */
static void detach_task(struct engine *e, struct task *t)
{
	int sig = t->inject_sig;

	thread_exits(e, t, true);
	if (sig)
		e->st.signals_delivered++;
	tptrace(e, t, PTRACE_DETACH, 0, (void *)(long)sig);
	forget_task(e, t);
}

/* The target (its first process) reached a signal-delivery stop for a
 * signal the sampler forwards: tell the relay who sent it. */
static void note_target_signal(struct engine *e, const struct task *t)
{
	siginfo_t info;

	if (tptrace(e, t, PTRACE_GETSIGINFO, 0, &info) == 0)
		relay_note_target(&e->relay, &info, host_now_ns());
}

/* ---- events ------------------------------------------------------------ */

static int read_regs(struct engine *e, const struct task *t, struct user_regs_struct *regs,
		     size_t *len, uint64_t *pc, bool *blocked);

/* A new thread or process starts where its parent is stopped now: just
 * after the clone or fork call, which returns in both.  Until its first
 * stop it runs no user code, so a sample carries it there (without call
 * stacks: it has none of its own yet) instead of waiting for that stop,
 * which may wait behind every busy thread for a CPU. */
static void know_start(struct engine *e, struct task *parent, struct task *child)
{
	struct user_regs_struct regs;
	size_t len;
	bool blocked;

	if (e->stop_every || e->stacks || child->state != TASK_NEW ||
	    read_regs(e, parent, &regs, &len, &child->pc, &blocked) < 0)
		return;
	child->cpu_ns = 0;
	child->start_known = true;
}

static void carry_new(struct task *t)
{
	t->carried = true;
	t->carried_waiting = true;
}

static void on_new_child(struct engine *e, struct task *parent, int event)
{
	unsigned long msg = 0;
	struct task *child;
	pid_t tid;

	if (tptrace(e, parent, PTRACE_GETEVENTMSG, 0, &msg) < 0 || msg == 0)
		return;
	tid = (pid_t)msg;
	if ((child = tasks_find(&e->tasks, tid))) {
		child->event_due = false;
		return;		/* its own stop came first: adopted already */
	}
	if (idmap_remove(&e->orphans, (uint32_t)tid))
		return;		/* ...and it ended since: not to be adopted again */
	child = adopt(e, tid, parent->proc->pid, event == PTRACE_EVENT_CLONE);
	if (!child)
		return;
	child->tracer = parent->tracer;	/* the kernel attached it there */
	know_start(e, parent, child);
	if (!e->sampling || child->state != TASK_NEW || child->pending)
		return;
	/* the snapshot includes it: where it starts, or at its first stop */
	if (child->start_known)
		carry_new(child);
	else
		pend(e, child, ANY_STAMP);
}

/* After exec the thread has the process's pid and a new image; every other
 * thread of the process is gone. */
/* After an exec from another thread, t's tid belongs to that thread,
 * whose CPU clock goes on from what it was under its former tid (already
 * recorded there, up to its last sample).  The tid's record goes on from
 * where it stood: 0 after the leader's exit record, else the leader's
 * last value; so t's readings are moved by that minus the clock's last
 * reading, and the first sample after the exec counts only what the
 * thread ran since its last sample. */
static void take_clock(struct task *t, const struct task *former, bool leader_exited)
{
	uint64_t recorded = leader_exited ? 0 : recorded_cpu(t, t->cpu_ns);

	if (!former)
		return;
	t->cpu_ns = former->cpu_ns;
	t->cpu_offset = (int64_t)recorded - (int64_t)former->cpu_ns;
}

static void on_exec(struct engine *e, struct task *t)
{
	struct process *p = t->proc;
	unsigned long former = 0;
	bool leader_returns = t->state == TASK_EXITING;
	uint64_t now;

	if (e->tracers)		/* the tid is the execing thread's now: its tracer's */
		t->tracer = tracer_of(e, t->tid);
	tptrace(e, t, PTRACE_GETEVENTMSG, 0, &former);
	if ((pid_t)former != t->tid)
		take_clock(t, tasks_find(&e->tasks, (pid_t)former), leader_returns);
	if (leader_returns) {
		/* the leader had exited; the execing thread takes its tid */
		p->live_threads++;
		t->state = TASK_RUNNING;
	}
	for (size_t i = e->tasks.ntasks; i-- > 0;) {
		struct task *other = e->tasks.tasks[i];

		if (other != t && other->proc == p)
			drop_task(e, other);
	}
	now = host_now_ns();
	if (leader_returns)
		emit_thread(e, t, now);
	if ((pid_t)former != t->tid) {
		/* a new task now answers to this tid */
		pmu_set_detach(e->pmus, t->tid);
		pmu_attach(e, t);
		if (t->schedstat_fd >= 0)
			close(t->schedstat_fd);
		t->schedstat_fd = procfs_open_schedstat(p->pid, t->tid);
		if (t->stat_fd >= 0)
			close(t->stat_fd);
		t->stat_fd = -1;
		if (!e->stop_every)
			quiet_open(&t->quiet, t->tid, e->carry_preempted);
	}
	t->stack.valid = false;		/* a new image */
	t->in_vfork = false;
	p->last_refresh = 0;	/* its libraries are mapped after the exec: look at once */
	emit_exec(e, p, now);
	refresh_maps(e, p, now, true);
}

/* Linux's return values of a system call cut short by a stop, to be
 * restarted (kernel-internal, so not in any user header), and EINTR. */
static bool interrupted_syscall(int64_t ret, int64_t nr)
{
	return nr >= 0 && (ret == -EINTR || (ret >= -516 && ret <= -512));
}

/* The PC in registers read from a stopped thread (len: the bytes filled,
 * fewer for a 32-bit tracee), and whether the stop found it blocked in a
 * system call (sleeping, waiting) rather than running or runnable. */
static void decode_regs(const struct user_regs_struct *regs, size_t len, uint64_t *pc,
			bool *blocked)
{
#if defined(__x86_64__)
	if (len == sizeof(*regs)) {
		*pc = regs->rip;
		*blocked = interrupted_syscall((int64_t)regs->rax, (int64_t)regs->orig_rax);
	} else {	/* a 32-bit tracee: eax, orig_eax, eip are words 6, 11, 12 */
		const int32_t *w = (const int32_t *)regs;

		*pc = (uint32_t)w[12];
		*blocked = interrupted_syscall(w[6], w[11]);
	}
#elif defined(__aarch64__)
	*pc = regs->pc;		/* glibc: regs[31], sp, pc, pstate */
	/* no syscall number in this regset: x0 holding a restart code is
	 * taken as one (user code seldom holds exactly those values) */
	*blocked = interrupted_syscall((int64_t)regs->regs[0], 0);
#else
#error "sampler: reading the PC is implemented for x86-64 and aarch64 only"
#endif
}

/* The registers of a stopped thread, read by its tracer (*len: the bytes
 * filled), decoded (decode_regs). */
static int read_regs(struct engine *e, const struct task *t, struct user_regs_struct *regs,
		     size_t *len, uint64_t *pc, bool *blocked)
{
	struct iovec iov = { regs, sizeof(*regs) };

	if (tptrace(e, t, PTRACE_GETREGSET, (void *)NT_PRSTATUS, &iov) < 0)
		return -1;
	*len = iov.iov_len;
	decode_regs(regs, *len, pc, blocked);
	return 0;
}

/* ---- several tracers (tracers.h) -------------------------------------- */

/* A new thread, at its first stop, moves to the next tracer in turn (the
 * kernel attached it to its parent's).  Only a stopped thread can be
 * detached, and only a running one seized, so it runs untraced for a
 * moment in between (tracers_move keeps that short): seize_strays() then
 * looks for threads it started.  A new process stays with its parent's
 * tracer: it often execs at once, which must not happen untraced. */
static bool move_to_tracer(struct engine *e, struct task *t)
{
	int to = e->next_tracer, rc;

	t->placed = true;
	e->next_tracer = (e->next_tracer + 1) % tracers_count(e->tracers);
	if (t->tid == t->proc->pid || to == 0)
		return false;	/* a process, or the turn of this thread's tracer */
	rc = tracers_move(e->tracers, t->tid, t->tracer, to, e->seize_options);
	if (rc == -2)
		return false;	/* still where it was */
	if (rc < 0) {
		drop_task(e, t);	/* it ended meanwhile */
		return true;
	}
	t->tracer = to;
	t->start_known = false;	/* it may have run on from where it started */
	t->look_for_strays = true;
	e->st.moved++;
	if (e->sampling && !t->pending)
		pend(e, t, ANY_STAMP);	/* held at that stop, as it would be at this */
	return true;
}

struct strays {
	struct engine *e;
	struct task *mover;
	int seized;
};

static int seize_stray(void *arg, pid_t tid)
{
	struct strays *s = arg;
	struct engine *e = s->e;
	struct task *t;

	if (tasks_find(&e->tasks, tid) ||
	    tracers_ptrace(e->tracers, s->mover->tracer, PTRACE_SEIZE, tid, 0,
			   (void *)e->seize_options) < 0)
		return 0;	/* ours already (its first stop is on its way), or gone */
	t = add_thread(e, tid, s->mover->proc, TASK_NEW);
	if (!t)
		return 0;
	t->tracer = s->mover->tracer;
	t->placed = true;
	tptrace(e, t, PTRACE_INTERRUPT, 0, 0);
	if (e->sampling)
		pend(e, t, ANY_STAMP);	/* recorded before the sample: in it */
	s->seized++;
	e->st.strays++;
	return 0;
}

/* Threads that t started while it moved were not attached by the kernel:
 * seize them now, on t's tracer (their first stop follows), until a look
 * finds none (one may start another before it is seized). */
static void seize_strays(struct engine *e, struct task *t)
{
	struct strays s = { e, t, 0 };

	t->look_for_strays = false;
	do {
		s.seized = 0;
		procfs_each_task(t->proc->pid, seize_stray, &s);
	} while (s.seized);
}

static bool is_stop_signal(int sig)
{
	return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU;
}

static void on_stop(struct engine *e, struct task *t, int status)
{
	int sig = WSTOPSIG(status), event = status >> 16;
	struct user_regs_struct regs;
	size_t regs_len;
	bool blocked;

	if (e->attached && !t->options_set) {	/* seized without TRACEEXIT (attach.c) */
		tptrace(e, t, PTRACE_SETOPTIONS, 0, (void *)(long)ATTACH_OPTIONS);
		t->options_set = true;
	}
	switch (event) {
	case 0:			/* signal-delivery stop: pass it on */
		t->inject_sig = sig;
		if (t->proc->pid == e->root_pid && signals_forwarded(sig))
			note_target_signal(e, t);
		break;
	case PTRACE_EVENT_CLONE:
	case PTRACE_EVENT_FORK:
	case PTRACE_EVENT_VFORK:
		on_new_child(e, t, event);
		if (event == PTRACE_EVENT_VFORK) {
			/* It cannot stop again until the child execs or exits;
			 * meanwhile samples show it where it waits. */
			t->in_vfork = true;
			read_regs(e, t, &regs, &regs_len, &t->pc, &blocked);
		}
		break;
	case PTRACE_EVENT_VFORK_DONE:
		t->in_vfork = false;
		break;
	case PTRACE_EVENT_EXEC:
		on_exec(e, t);
		break;
	case PTRACE_EVENT_EXIT:
		thread_exits(e, t, true);
		tptrace(e, t, PTRACE_CONT, 0, 0);
		return;
	case PTRACE_EVENT_STOP:
		if (t->state == TASK_NEW && e->tracers && !is_stop_signal(sig)) {
			if (!t->placed && move_to_tracer(e, t))
				return;		/* its first stop there follows */
			if (t->look_for_strays)
				seize_strays(e, t);
		}
		if (t->state == TASK_NEW && t->start_known)
			quiet_stopped(&t->quiet);	/* still where it starts */
		if (is_stop_signal(sig) && !e->detaching) {
			/* group-stop: stay stopped, but let SIGCONT through */
			unpend(e, t);
			t->state = TASK_GROUP_STOPPED;
			tptrace(e, t, PTRACE_LISTEN, 0, 0);
			return;
		}
		break;		/* our interrupt, a first stop, or the end of a group-stop */
	default:
		break;
	}
	/* During a snapshot every thread that stops is held for it, also one
	 * the snapshot did not wait for (back from vfork or a group-stop). */
	if (e->detaching)
		detach_task(e, t);	/* a group-stop goes on once untraced */
	else if (e->sampling)
		hold(e, t);
	else
		resume(e, t);
}

static void forget_orphans(struct engine *e, pid_t pid)
{
	size_t pos = 0;
	uint32_t tid;
	pid_t *owner;

	while ((owner = idmap_next(&e->orphans, &pos, &tid)))
		if (*owner == pid && idmap_remove(&e->orphans, tid))
			pos = 0;	/* removing may move entries: look again */
}

static void on_gone(struct engine *e, pid_t tid, int status)
{
	struct task *t = tasks_find(&e->tasks, tid);
	struct process *p;

	if (t)
		drop_task(e, t);
	p = tasks_find_process(&e->tasks, tid);
	if (!p)
		return;
	forget_orphans(e, p->pid);	/* events of its threads come no more */
	tasks_reap_process(&e->tasks, p);	/* frees p: the leader is reaped */
	if (tid == e->root_pid) {
		e->root_done = true;
		e->st.exit_status = WIFEXITED(status) ? WEXITSTATUS(status)
						      : 128 + WTERMSIG(status);
	}
}

static void on_status(struct engine *e, pid_t tid, int status)
{
	struct task *t;

	if (WIFEXITED(status) || WIFSIGNALED(status)) {
		on_gone(e, tid, status);
		return;
	}
	if (!WIFSTOPPED(status))
		return;
	t = tasks_find(&e->tasks, tid);
	if (!t && (t = adopt(e, tid, 0, false))) {
		t->tracer = tracer_of(e, tid);
		t->event_due = true;	/* its parent's event is still to come */
	}
	if (!t) {
		tracers_ptrace(e->tracers, tracer_of(e, tid), PTRACE_CONT, tid, 0, 0);
		return;
	}
	on_stop(e, t, status);
}

/* Handle every event that is ready.  Returns how many there were. */
static int drain(struct engine *e)
{
	int status, n = 0;
	pid_t tid;

	while ((tid = waitpid(-1, &status, __WALL | WNOHANG)) > 0) {
		on_status(e, tid, status);
		n++;
	}
	if (tid < 0 && errno == ECHILD && !e->tree_done) {
		e->root_done = true;	/* nothing left to wait for */
		e->tree_done = true;
		e->st.end_ns = host_now_ns();
	}
	return n;
}

/* ---- sampling ---------------------------------------------------------- */

/* Stopped at the system call instruction that a restart rewound to (the
 * kernel moves the PC back over it and sets the call number again): the
 * same place as just after it, where the thread was blocked. */
static bool restarting(const struct user_regs_struct *regs, size_t len, uint64_t pc,
		       uint64_t blocked_pc)
{
#if defined(__x86_64__)
	return len == sizeof(*regs) && pc + 2 == blocked_pc &&
	       (regs->rax == SYS_restart_syscall || regs->rax == regs->orig_rax);
#else
	(void)regs, (void)len, (void)pc, (void)blocked_pc;
	return false;
#endif
}

/* SAMPLER_CHECK_CARRIED=1 (tests/t1080): stop a carried thread anyway and
 * count the times its PC is not the one carried, to prove the rule of
 * quiet.h under block/wake churn without a statistical test. */
static void check_carried(struct engine *e, struct task *t)
{
	struct user_regs_struct regs;
	uint64_t pc = 0, asked;
	size_t regs_len;
	bool blocked;
	int status;

	/* The carried PC is the one of the sample's start: a thread switched
	 * in since (the checks before it let it run) has moved on. */
	if (quiet_switched(&t->quiet, t->look_stamp) ||
	    tptrace(e, t, PTRACE_INTERRUPT, 0, 0) < 0)
		return;
	/* Switched in after this, it stops before it runs user code; before,
	 * it may run some until the interrupt reaches its CPU. */
	asked = host_now_ns();
	if (waitpid(t->tid, &status, __WALL) != t->tid)
		return;
	if (!WIFSTOPPED(status) || status >> 16 != PTRACE_EVENT_STOP ||
	    WSTOPSIG(status) != SIGTRAP) {
		on_status(e, t->tid, status);	/* a real event: handled as ever */
		return;
	}
	if (!quiet_straight_to_stop(&t->quiet, t->look_stamp, asked)) {
		/* it ran since the look (the checks before it let it): the
		 * carried PC was its PC then, not now */
		tptrace(e, t, PTRACE_CONT, 0, 0);
		return;
	}
	e->st.carried_checked++;
	if (read_regs(e, t, &regs, &regs_len, &pc, &blocked) == 0) {
		if (pc != t->pc && !restarting(&regs, regs_len, pc, t->pc))
			e->st.carried_wrong++;
		if (e->stacks)
			callstack_check(e->stacks, &t->stack, t->proc->pid, t->tid, &regs, regs_len,
					&t->proc->maps);
	}
	tptrace(e, t, PTRACE_CONT, 0, 0);
}

/* Reap the stops of the threads the snapshot waits for, each by its tid:
 * a waitpid(-1) walks every tracee of the sampler, so that reaping N
 * stops one by one cost O(N^2) (Linux finds a tid in O(1) since 5.14).
 * Unless all: a thread whose switch ring has not moved since it was
 * interrupted has not stopped yet, and one without a ring waits for the
 * SIGCHLD of a stop; neither is asked.  Threads pended meanwhile (new
 * children) are reaped in the same round.
 * Returns how many stops were reaped. */
static int reap_pending(struct engine *e, bool all)
{
	size_t keep = 0;
	int n = 0, status;

	for (size_t i = 0; i < e->nwait; i++) {
		pid_t tid = e->waitlist[i];
		struct task *t = tasks_find(&e->tasks, tid);

		if (!t || !t->pending)
			continue;
		if (!all && (t->stop_stamp == ANY_STAMP || !quiet_switched(&t->quiet, t->stop_stamp)))
			continue;	/* not switched out (into its stop) since, or not known */
		if (waitpid(tid, &status, __WALL | WNOHANG) == tid) {
			on_status(e, tid, status);
			n++;
		}
	}
	for (size_t i = 0; i < e->nwait; i++) {
		struct task *t = tasks_find(&e->tasks, e->waitlist[i]);

		if (t && t->pending)
			e->waitlist[keep++] = e->waitlist[i];
	}
	e->nwait = keep;
	return n;
}

/* Can t be sampled without a stop (quiet.h)?  Then its PC and CPU time
 * are set.  With call stacks, a thread that ran since must be blocked on
 * the stack it was last unwound from (callstack.h), read while it stayed
 * off CPU. */
static bool carry(struct engine *e, struct task *t)
{
	uint64_t pc = t->pc, sp = 0, cpu = t->cpu_ns;
	enum quiet_look look;

	if (e->stop_every || t->to_handler)
		return false;
	look = quiet_look(&t->quiet, t->look_stamp, t->proc->pid, t->tid, t->schedstat_fd, &pc,
			  &sp, &cpu);
	if (look == QUIET_RAN || (e->stacks && !t->stack.valid))
		return false;
	if (look == QUIET_BLOCKED || look == QUIET_WAITING) {
		if (e->stacks &&
		    !(callstack_same(e->stacks, &t->stack, t->tid, pc, sp, &t->proc->maps) &&
		      quiet_unmoved(&t->quiet, t->proc->pid, t->tid, t->schedstat_fd)))
			return false;
		quiet_accept(&t->quiet);
	}
	t->pc = pc;
	t->cpu_ns = cpu;
	t->carried_waiting = quiet_runnable(&t->quiet);
	if (look != QUIET_SAME) {
		/* read with its CPU time: it may run again before the snapshot */
		uint64_t values[PROFILE_MAX_CHANNELS];

		read_counters(e, t, values);
	}
	return true;
}

/* Interrupt t, which ran since the last sample (or is new); the snapshot
 * waits for its stop.  Returns 1 if it was on a CPU, -1 if it is gone.
 * With several tracers the interrupt is only marked: send_interrupts(). */
static int interrupt(struct engine *e, struct task *t)
{
	uint64_t stamp = ANY_STAMP;

	if (t->state == TASK_RUNNING) {
		stamp = t->look_stamp;
		if (e->tracers) {
			t->to_interrupt = true;
			e->marked++;
			e->round[t->tracer] = 1;
		} else if (ptrace(PTRACE_INTERRUPT, t->tid, 0, 0) < 0)
			return -1;	/* gone: its exit follows */
	}
	e->st.stops++;
	pend(e, t, stamp);
	return t->state == TASK_RUNNING && quiet_on_cpu(&t->quiet, stamp);
}

/* The tracers with threads marked do their share at once (tracers.h). */
static void run_round(struct engine *e, void (*share)(void *arg, int tracer))
{
	tracers_each(e->tracers, share, e, e->round);
	memset(e->round, 0, (size_t)tracers_count(e->tracers));
}

static void interrupt_share(void *arg, int tracer)
{
	struct engine *e = arg;

	for (size_t i = 0; i < e->tasks.ntasks; i++) {
		struct task *t = e->tasks.tasks[i];

		if (t->to_interrupt && t->tracer == tracer &&
		    ptrace(PTRACE_INTERRUPT, t->tid, 0, 0) == 0)
			t->to_interrupt = false;
	}
}

/* Every tracer interrupts its marked threads at once; one that could not
 * be interrupted is gone (its exit follows), not waited for. */
static void send_interrupts(struct engine *e)
{
	if (!e->marked)
		return;
	e->marked = 0;
	run_round(e, interrupt_share);
	for (size_t i = 0; i < e->tasks.ntasks; i++) {
		struct task *t = e->tasks.tasks[i];

		if (t->to_interrupt) {
			t->to_interrupt = false;
			unpend(e, t);
			e->st.stops--;
		}
	}
}

/* Interrupt the threads on a CPU now, judged by one load each (with
 * --stop-all: every running and new thread).  Every thread's switch stamp
 * is taken first, so the others are judged as they were at this instant. */
static void interrupt_on_cpu(struct engine *e, int *running, int *on_cpu)
{
	for (size_t i = 0; i < e->tasks.ntasks; i++)
		e->tasks.tasks[i]->look_stamp = quiet_stamp(&e->tasks.tasks[i]->quiet);
	for (size_t i = 0; i < e->tasks.ntasks; i++) {
		struct task *t = e->tasks.tasks[i];
		int r;

		if (t->state == TASK_RUNNING && !e->stop_every &&
		    !quiet_on_cpu(&t->quiet, t->look_stamp))
			continue;	/* off CPU: carry_rest() */
		if (t->state != TASK_RUNNING && (t->state != TASK_NEW || t->start_known))
			continue;	/* a new thread's first stop is waited for, unless
					 * its start is known (carry_rest) */
		if ((r = interrupt(e, t)) < 0)
			continue;
		*on_cpu += r;
		(*running)++;
	}
	send_interrupts(e);
}

/* The running threads off CPU at the stamp: carried (quiet.h), or
 * interrupted if their rings cannot tell. */
static void carry_rest(struct engine *e, int *running, int *on_cpu)
{
	for (size_t i = 0; i < e->tasks.ntasks; i++) {
		struct task *t = e->tasks.tasks[i];
		int r;

		if (t->state == TASK_NEW && t->start_known && !t->pending) {
			carry_new(t);
			continue;
		}
		if (t->state != TASK_RUNNING || t->pending)
			continue;
		if (carry(e, t)) {
			t->carried = true;
			if (e->check_carried)
				check_carried(e, t);
			continue;
		}
		if ((r = interrupt(e, t)) < 0)
			continue;
		*on_cpu += r;
		(*running)++;
	}
	send_interrupts(e);
}

/* t waits in vfork for its child, which the sampler did not see start (it
 * was seized in it, or a race): it cannot stop until the child has exec'd
 * or exited, so it is carried where it waits (as after its vfork event)
 * instead of holding every other thread.  Its vfork-done event ends that. */
static bool carry_vfork(struct engine *e, struct task *t)
{
	if (!attach_in_vfork(t->proc->pid, t->tid, &t->pc))
		return false;
	unpend(e, t);
	t->in_vfork = true;
	t->state = TASK_IN_VFORK;
	return true;
}

/* The threads the snapshot waits for that are in vfork (carry_vfork):
 * how many. */
static int carry_vforks(struct engine *e)
{
	int n = 0;

	for (size_t i = 0; i < e->tasks.ntasks; i++) {
		struct task *t = e->tasks.tasks[i];

		if (t->pending && t->state == TASK_RUNNING && carry_vfork(e, t))
			n++;
	}
	return n;
}

/* Wait until every interrupted thread has stopped.  A thread that does not
 * stop within a second is left out of this snapshot; one in vfork is
 * carried at the first slice that finds it still running. */
static void wait_stops(struct engine *e, int running, int on_cpu)
{
	int slices = 0;
	/* Polling helps only a thread that stops on another CPU: one that waits
	 * for a CPU (preempted, by the sampler itself too) needs this one. */
	uint64_t spin_until = host_now_ns() +
		(!on_cpu ? 0 : running < e->ncpus ? SPIN_ALONE_NS : SPIN_SHARED_NS);

	while (e->npending) {
		struct timespec slice = { 0, STOP_WAIT_SLICE_NS };

		if (e->wait_any ? drain(e) : reap_pending(e, false))
			continue;
		if (e->root_done && e->tasks.ntasks == 0)
			break;
		if (host_now_ns() < spin_until)
			continue;
		if (sigtimedwait(&e->chld_set, NULL, &slice) < 0) {
			if (errno == EAGAIN && slices == 0 && carry_vforks(e))
				continue;
			if (errno == EAGAIN && ++slices >= STOP_WAIT_SLICES) {
				e->st.stuck_samples++;
				break;
			}
		} else if (!reap_pending(e, true)) {
			drain(e);	/* a stop of a thread not waited for */
		}
	}
}

/* Take the snapshot: every running thread stopped or carried.  The
 * threads on a CPU are interrupted first; the others are looked at while
 * those stops come, judged by their rings as they were at the start, so a
 * thread that gets the CPU one of them left is not stopped in turn (which
 * would free a CPU for the next one, and so on through every busy thread). */
static void stop_all(struct engine *e)
{
	int running = 0, on_cpu = 0;

	e->sampling = true;
	e->npending = 0;
	interrupt_on_cpu(e, &running, &on_cpu);
	carry_rest(e, &running, &on_cpu);
	wait_stops(e, running, on_cpu);
	for (size_t i = 0; i < e->tasks.ntasks; i++)
		e->tasks.tasks[i]->pending = false;
	e->npending = 0;
	e->nwait = 0;
	e->wait_any = false;
	e->sampling = false;
}

static void continue_share(void *arg, int tracer)
{
	struct engine *e = arg;

	for (size_t i = 0; i < e->tasks.ntasks; i++) {
		struct task *t = e->tasks.tasks[i];

		if (t->to_continue && t->tracer == tracer) {
			t->to_continue = false;
			ptrace(PTRACE_CONT, t->tid, 0, t->cont_sig);
		}
	}
}

static void resume_all(struct engine *e)
{
	for (size_t i = 0; i < e->tasks.ntasks; i++) {
		struct task *t = e->tasks.tasks[i];

		if (t->state != TASK_STOPPED)
			continue;
		if (!e->tracers) {
			resume(e, t);
			continue;
		}
		t->cont_sig = resume_prepare(e, t);
		t->to_continue = true;
		e->marked++;
		e->round[t->tracer] = 1;
	}
	if (e->marked) {
		e->marked = 0;
		run_round(e, continue_share);	/* each its own, at once */
	}
}

static int grow_snapshot(struct engine *e)
{
	size_t want = e->tasks.ntasks, nc = e->tasks.ncounters ? e->tasks.ncounters : 1;
	struct profile_thread_sample *ts;
	uint64_t *c;

	if (e->stacks && callstack_reserve(e->stacks, want) < 0)
		return -1;
	if (want <= e->ts_alloc)
		return 0;
	want = want * 2;
	ts = realloc(e->ts, want * sizeof(*ts));
	if (!ts)
		return -1;
	e->ts = ts;
	c = realloc(e->ts_counters, want * nc * sizeof(*c));
	if (!c)
		return -1;
	e->ts_counters = c;
	e->ts_alloc = want;
	return 0;
}

/* Each tracer reads the registers and CPU time of its stopped threads. */
static void fetch_share(void *arg, int tracer)
{
	struct engine *e = arg;

	for (size_t i = 0; i < e->tasks.ntasks; i++) {
		struct task *t = e->tasks.tasks[i];
		struct iovec iov = { &t->regs, sizeof(t->regs) };

		if (t->state != TASK_STOPPED || t->tracer != tracer)
			continue;
		t->fetch_rc = (int)ptrace(PTRACE_GETREGSET, t->tid, NT_PRSTATUS, &iov);
		t->regs_len = iov.iov_len;
		if (procfs_read_cputime(t->schedstat_fd, t->proc->pid, t->tid, &t->fetched_cpu) < 0)
			t->fetched_cpu = CPU_UNREAD;	/* read again, and counted, by snap_thread */
		t->fetched = true;
	}
}

/* Read one stopped thread into the snapshot (a thread waiting in vfork
 * cannot be stopped, but cannot move either: its PC is the one it had at
 * its vfork event; a carried thread did not run since carry() read its PC
 * and CPU time, off CPU).  With call stacks, copy its stack into slot (a
 * carried thread's is its last one). */
static int snap_thread(struct engine *e, struct task *t, size_t slot,
		       struct profile_thread_sample *out, uint64_t *counters)
{
	bool blocked = true;	/* waiting in vfork, or carried */
	struct user_regs_struct regs, *rp = &regs;
	size_t regs_len = 0;

	if (t->carried) {
		e->st.carried++;
		blocked = !t->carried_waiting;
	} else if (t->fetched) {	/* by its tracer (fetch_share) */
		if (t->fetch_rc < 0)
			return -1;
		rp = &t->regs;
		regs_len = t->regs_len;
		decode_regs(rp, regs_len, &t->pc, &blocked);
		if (t->fetched_cpu != CPU_UNREAD)
			t->cpu_ns = t->fetched_cpu;
		else
			read_cpu(e, t, &t->cpu_ns);
		quiet_stopped(&t->quiet);
	} else {
		if (t->state == TASK_STOPPED &&
		    read_regs(e, t, &regs, &regs_len, &t->pc, &blocked) < 0)
			return -1;
		read_cpu(e, t, &t->cpu_ns);
		if (t->state == TASK_STOPPED)
			quiet_stopped(&t->quiet);
	}
	if (e->stacks && t->carried)
		callstack_capture_carried(e->stacks, slot);
	else if (e->stacks)
		callstack_capture(e->stacks, slot, t->tid, regs_len ? rp : NULL, regs_len,
				  &t->proc->maps);
	if (blocked)
		e->st.blocked_thread_samples++;
	if (t->carried)	/* as read with its CPU time (carry()), or unchanged */
		memcpy(counters, t->counters, e->tasks.ncounters * sizeof(*counters));
	else
		read_counters(e, t, counters);
	*out = (struct profile_thread_sample){
		.tid = t->tid, .pid = t->proc->pid, .pc = t->pc, .cpu_ns = recorded_cpu(t, t->cpu_ns),
		.counters = counters,
	};
	return 0;
}

/* An address outside every known map of p: something was mapped since
 * (the libraries the loader maps after exec, dlopen, JIT).  Re-read the
 * maps, at most once every MAP_REFRESH_EVERY samples; true if they changed. */
static bool refresh_unknown(struct engine *e, struct process *p, uint64_t now)
{
	if (p->last_refresh && e->st.samples + 1 - p->last_refresh < MAP_REFRESH_EVERY)
		return false;
	p->last_refresh = e->st.samples + 1;
	return refresh_maps(e, p, now, false);
}

static void check_maps(struct engine *e, const struct profile_thread_sample *ts,
		       size_t n, uint64_t now)
{
	for (size_t i = 0; i < n; i++) {
		struct task *t = tasks_find(&e->tasks, (pid_t)ts[i].tid);
		struct process *p = t ? t->proc : NULL;

		if (p && !map_list_find(&p->maps, ts[i].pc))
			refresh_unknown(e, p, now);
	}
}

/* The stacks copied in the snapshot, unwound now that the threads run,
 * and kept in each thread's memo (carried threads take theirs from it).
 * A frame in no known map may be in one mapped since: then again with
 * fresh maps. */
static void unwind_all(struct engine *e, size_t n, uint64_t now)
{
	for (size_t i = 0; i < n; i++) {
		struct process *p = tasks_find_process(&e->tasks, (pid_t)e->ts[i].pid);
		struct task *t = tasks_find(&e->tasks, (pid_t)e->ts[i].tid);
		struct callstack_memo *memo = t ? &t->stack : NULL;

		if (!p) {
			e->ts[i].stack_end = PROFILE_STACK_UNREADABLE;
			continue;
		}
		callstack_unwind(e->stacks, i, p->pid, &p->maps, &e->ts[i], memo);
		if (e->ts[i].stack_end == PROFILE_STACK_UNKNOWN_MAP && refresh_unknown(e, p, now))
			callstack_unwind(e->stacks, i, p->pid, &p->maps, &e->ts[i], memo);
	}
}

/* Stopping a thread on the sampler's own CPU costs a third of stopping it
 * across cores (no inter-processor wake-ups), so the sampler moves to the
 * CPU most of the first running threads last ran on. */
static void follow_target(struct engine *e)
{
	int cpus[FOLLOW_THREADS], n = 0, best = -1, best_count = 0;

	for (size_t i = 0; i < e->tasks.ntasks && n < FOLLOW_THREADS; i++) {
		struct task *t = e->tasks.tasks[i];

		if (t->state != TASK_RUNNING)
			continue;
		if (t->stat_fd < 0)
			t->stat_fd = procfs_open_stat(t->proc->pid, t->tid);
		cpus[n] = procfs_read_last_cpu(t->stat_fd, t->proc->pid, t->tid);
		if (cpus[n] >= 0)
			n++;
	}
	for (int i = 0; i < n; i++) {
		int count = 0;

		for (int j = 0; j < n; j++)
			count += cpus[j] == cpus[i];
		if (count > best_count) {
			best = cpus[i];
			best_count = count;
		}
	}
	if (best >= 0 && best != e->cpu && tune_pin_cpu(best) == 0) {
		e->cpu = best;
	}
}

static bool any_job_stopped(const struct engine *e)
{
	for (size_t i = 0; i < e->tasks.ntasks; i++)
		if (e->tasks.tasks[i]->state == TASK_GROUP_STOPPED)
			return true;
	return false;
}

static void take_sample(struct engine *e)
{
	uint64_t t0 = host_now_ns(), snap, t1;
	size_t n = 0, nc = e->tasks.ncounters ? e->tasks.ncounters : 1;
	struct profile_sample s;
	struct task *named;

	stop_all(e);
	snap = host_now_ns();
	if (e->tracers) {
		for (size_t i = 0; i < e->tasks.ntasks; i++)
			if (e->tasks.tasks[i]->state == TASK_STOPPED)
				e->round[e->tasks.tasks[i]->tracer] = 1;
		run_round(e, fetch_share);
	}
	if (grow_snapshot(e) == 0) {
		for (size_t i = 0; i < e->tasks.ntasks; i++) {
			struct task *t = e->tasks.tasks[i];

			if (t->state != TASK_STOPPED && t->state != TASK_IN_VFORK)
				t->carried &= t->state == TASK_RUNNING || t->state == TASK_NEW;
			else
				t->carried = false;	/* it stopped meanwhile: read it */
			if ((t->state == TASK_STOPPED || t->state == TASK_IN_VFORK || t->carried) &&
			    snap_thread(e, t, n, &e->ts[n], e->ts_counters + n * nc) == 0)
				n++;
		}
	}
	for (size_t i = 0; i < e->tasks.ntasks; i++) {
		e->tasks.tasks[i]->carried = false;
		e->tasks.tasks[i]->fetched = false;
	}
	/* No reading without a sample: energy since the last reading goes
	 * into the next sample that has a thread to carry it. */
	if (n) {
		uint64_t r0 = host_now_ns();

		read_sample_channels(e);
		e->st.pmu_read_ns += host_now_ns() - r0;
	}
	resume_all(e);
	t1 = host_now_ns();
	e->st.latency_ns += t1 - t0;
	if (n == 0) {
		/* a program held by job control is served; one whose threads
		 * are all exiting has nothing left to sample */
		if (any_job_stopped(e))
			e->st.held_slots++;
		return;
	}
	if (e->follow_cpu && e->st.samples % FOLLOW_EVERY == 0)
		follow_target(e);
	e->st.samples++;
	e->st.thread_samples += n;
	check_maps(e, e->ts, n, snap);
	if (e->stacks)
		unwind_all(e, n, snap);
	if (!e->writer)
		return;
	s = (struct profile_sample){
		.time_ns = snap, .nthreads = (uint32_t)n, .threads = e->ts, .values = e->values,
	};
	record_result(e, profile_write_sample(e->writer, &s, &e->write_err));
	/* Threads rename themselves after their first stop (pthread_setname_np
	 * at their start): look at one thread now and then, round robin. */
	if (e->st.samples % NAME_EVERY)
		return;
	named = e->tasks.tasks[e->st.samples / NAME_EVERY % e->tasks.ntasks];
	if (named->state != TASK_EXITING)	/* its exit record is written */
		emit_name(e, named, snap);
}

/* ---- the loop ---------------------------------------------------------- */

/* Whether a process of the target's own tree sent it (kill(0, sig) of
 * the target, or a signal to its parent): never sent back to the target. */
static bool sent_by_tree(const struct engine *e, const siginfo_t *info)
{
	return info->si_code <= 0 && info->si_pid > 0 &&
	       tasks_find_process(&e->tasks, info->si_pid) != NULL;
}

/* Stop following: detach every thread at its next stop (detach_task).
 * Threads held for nothing are interrupted; a thread waiting in vfork
 * stops when its child has exec'd or exited, an exiting one is reaped. */
static void stop_following(struct engine *e)
{
	e->detaching = true;
	e->detach_by = host_now_ns() + DETACH_WAIT_NS;
	for (size_t i = e->tasks.ntasks; i-- > 0;) {
		struct task *t = e->tasks.tasks[i];

		if (t->state == TASK_STOPPED)
			detach_task(e, t);
		else if (t->state == TASK_RUNNING || t->state == TASK_GROUP_STOPPED)
			tptrace(e, t, PTRACE_INTERRUPT, 0, 0);
	}
}

/* Attached and detaching: the threads that cannot reach a stop (in vfork,
 * exiting, a zombie leader) or did not within DETACH_WAIT_NS are let go
 * as they are; the kernel detaches them when the sampler exits, so the
 * end is bounded whatever they do.  True when nothing is left. */
static bool let_go_rest(struct engine *e, uint64_t now)
{
	for (size_t i = 0; i < e->tasks.ntasks && now < e->detach_by; i++) {
		enum task_state state = e->tasks.tasks[i]->state;

		if (state != TASK_IN_VFORK && state != TASK_EXITING)
			return false;	/* its stop is on its way */
	}
	while (e->tasks.ntasks) {
		struct task *t = e->tasks.tasks[e->tasks.ntasks - 1];

		thread_exits(e, t, true);	/* alive, or at its exit stop */
		forget_task(e, t);
	}
	e->root_done = true;
	e->tree_done = true;
	e->st.end_ns = now;
	return true;
}

/* A signal the loop waited for (signals.h), held for a moment so that
 * copies sent at once merge (signals.c), is due.  While the target runs,
 * pass it on when it reached the sampler alone: the target's own stops for
 * it are handled first, so that relay_reached_target sees them.  Either
 * way keep sampling until the target has exited, so that the profile is
 * complete. */
static void on_signal(struct engine *e, const siginfo_t *info)
{
	if (sent_by_tree(e, info))
		return;
	if (e->attached) {
		/* not ours to signal: the signal ends the attachment */
		if (signals_ends_run(info->si_signo) && !e->detaching)
			stop_following(e);
		return;
	}
	if (!e->root_done)
		drain(e);
	if (e->root_done) {
		if (signals_ends_run(info->si_signo) && !e->detaching)
			stop_following(e);
		return;
	}
	if (!relay_reached_target(&e->relay, info, e->root_pid, host_now_ns()))
		kill(e->root_pid, info->si_signo);
}

/* Wait until due for an event or a signal; act on the signals due. */
static void wait_until(struct engine *e, uint64_t due)
{
	uint64_t now = host_now_ns(), held = relay_next_due(&e->relay);
	struct timespec wait = { 0, 0 };
	siginfo_t info;
	int sig;

	if (held && held < due)
		due = held;
	if (due > now) {
		wait.tv_sec = (time_t)((due - now) / 1000000000u);
		wait.tv_nsec = (long)((due - now) % 1000000000u);
	}
	sig = sigtimedwait(&e->wait_set, &info, &wait);
	if (sig > 0 && signals_forwarded(sig))
		relay_hold(&e->relay, &info, host_now_ns());
	while (relay_take_due(&e->relay, host_now_ns(), &info))
		on_signal(e, &info);
}

uint64_t engine_period_ns(double hz)
{
	double period;

	if (!isfinite(hz) || !(hz > 0))
		return 0;
	period = 1e9 / hz;
	/* checked before the conversion, which is undefined out of range */
	if (!(period >= (double)ENGINE_MIN_PERIOD_NS && period <= (double)ENGINE_MAX_PERIOD_NS))
		return 0;
	return (uint64_t)llround(period);
}

/* Switch sampling on or off as the window wants, recording the switch; a
 * window starts with a sample (its baseline: see struct profile_window).
 * Returns the next instant the window may change by itself. */
static uint64_t follow_window(struct engine *e, uint64_t now)
{
	struct profile_window rec = { .time_ns = now };
	bool want;

	if (!e->window)
		return WINDOW_NEVER;
	window_poll(e->window);
	want = window_wanted(e->window, now) && !e->detaching;
	if (want != e->enabled) {
		e->enabled = want;
		rec.enabled = want;
		if (want)
			e->enabled_at = now;
		else
			e->sampled_ns += now - e->enabled_at;
		if (e->writer && e->window->used)
			record_result(e, profile_write_window(e->writer, &rec, &e->write_err));
		if (want) {
			e->baseline = true;
			take_sample(e);
			e->baseline = false;
		}
	}
	/* attached: the end of --duration ends the attachment */
	if (e->attached && !e->detaching && window_over(e->window, now))
		stop_following(e);
	return window_next_change(e->window, now);
}

/* The CPU time of the sampler (CLOCK_PROCESS_CPUTIME_ID: every tracer)
 * or of this thread (CLOCK_THREAD_CPUTIME_ID: the serial part). */
static uint64_t own_cpu_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void engine_run(struct engine *e)
{
	uint64_t period = e->period_ns, slot = 1;
	uint64_t cpu0 = own_cpu_ns(CLOCK_PROCESS_CPUTIME_ID), thread0 = own_cpu_ns(CLOCK_THREAD_CPUTIME_ID);

	e->enabled = !e->window;
	if (e->window && e->writer && e->window->used &&
	    !window_wanted(e->window, host_now_ns())) {
		/* what happens before the first window (an exit, say) counts nothing */
		struct profile_window off = { .time_ns = e->st.start_ns, .enabled = false };

		record_result(e, profile_write_window(e->writer, &off, &e->write_err));
	}
	while (!e->tree_done) {
		uint64_t now, due, change;
		bool was_enabled;

		drain(e);
		if (e->tree_done || (e->attached && e->detaching && let_go_rest(e, host_now_ns())))
			break;
		now = host_now_ns();
		was_enabled = e->enabled;
		change = follow_window(e, now);
		/* a window's first sample was just taken: the next is a period on */
		if (e->enabled && !was_enabled)
			slot = (host_now_ns() - e->st.start_ns) / period + 1;
		due = e->st.start_ns + slot * period;
		if (e->detaching) {
			due = now + STOP_WAIT_SLICE_NS;	/* no more samples */
		} else if (!e->enabled) {
			/* no slot is missed while sampling is off */
			if (now >= due)
				slot = (now - e->st.start_ns) / period + 1;
			due = change != WINDOW_NEVER ? change : now + 1000000000ull;
		} else if (now >= due) {
			uint64_t next;

			take_sample(e);
			now = host_now_ns();
			next = (now - e->st.start_ns) / period + 1;
			if (next > slot + 1)
				e->st.missed_slots += next - slot - 1;
			slot = next > slot ? next : slot + 1;
			continue;
		} else if (change < due) {
			due = change;
		}
		wait_until(e, due);
	}
	e->st.own_cpu_ns = own_cpu_ns(CLOCK_PROCESS_CPUTIME_ID) - cpu0;
	e->st.engine_cpu_ns = own_cpu_ns(CLOCK_THREAD_CPUTIME_ID) - thread0;
}

/* ---- set-up and results ------------------------------------------------ */

static int alloc_channels(struct engine *e, struct error *err)
{
	size_t ns = e->pmus->nsample ? e->pmus->nsample : 1;
	size_t nt = e->pmus->nthread ? e->pmus->nthread : 1;

	/* Arrays sized by the profile (an exit record's counters, the stats
	 * totals) must hold every channel; the PMU set refuses more, too. */
	if (e->pmus->nsample + e->pmus->nthread > PROFILE_MAX_CHANNELS)
		return error_set(err, "%zu channels are more than the %d a run can record (record fewer; split them over several runs)",
				 e->pmus->nsample + e->pmus->nthread, PROFILE_MAX_CHANNELS);
	e->nchannels = (uint32_t)pmu_set_channels(e->pmus, e->channels, PROFILE_MAX_CHANNELS);
	e->values = calloc(ns, sizeof(*e->values));
	e->tally = calloc(ns, sizeof(*e->tally));
	e->counter_sum = calloc(nt, sizeof(*e->counter_sum));
	if (!e->values || !e->tally || !e->counter_sum)
		return error_set(err, "out of memory");
	return 0;
}

/* Threads attach_seize took: seized, not stopped (the first sample
 * interrupts them); what they did before is in no delta (the run is one
 * window that starts with the attachment). */
static int adopt_attached(struct engine *e, const struct attach_list *l, struct error *err)
{
	e->attached = true;
	e->root_pid = 0;	/* no command of ours: its status is not ours */
	for (size_t i = 0; i < l->n; i++) {
		struct process *p = tasks_find_process(&e->tasks, l->pids[i]);
		struct task *t;

		if (!p)
			p = add_process(e, l->pids[i], 0);
		if (!p || !(t = add_thread(e, l->tids[i], p, TASK_RUNNING)))
			return error_set(err, "out of memory");
		if (attach_in_vfork(p->pid, t->tid, &t->pc)) {
			t->in_vfork = true;	/* seized in vfork: carried (carry_vfork) */
			t->state = TASK_IN_VFORK;
		}
	}
	if (e->pmu_failed) {
		*err = e->pmu_err;
		return error_prefix(err, "cannot follow the target");
	}
	return 0;
}

static bool realtime(void)
{
	int policy = sched_getscheduler(0);

	return policy == SCHED_FIFO || policy == SCHED_RR;
}

static int engine_start(struct engine *e, const struct engine_config *cfg, struct error *err)
{
	struct process *p;
	struct task *t;
	uint64_t cpu0 = 0;

	e->hz = cfg->hz;
	e->period_ns = engine_period_ns(cfg->hz);
	e->pmus = cfg->pmus;
	e->stacks = cfg->stacks;
	e->writer = cfg->writer;
	e->follow_cpu = cfg->follow_cpu;
	e->stop_every = cfg->stop_every;
	e->carry_preempted = cfg->carry_preempted;
	e->check_carried = cfg->check_carried;
	e->root_pid = cfg->root;
	e->cpu = -1;
	e->ncpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
	e->st.start_ns = cfg->start_ns;
	tasks_init(&e->tasks, e->pmus->nthread);
	idmap_init(&e->orphans, sizeof(pid_t));
	if (!e->period_ns)
		return error_set(err, "bad frequency %g Hz (use %g to %g Hz)", cfg->hz,
				 1e9 / ENGINE_MAX_PERIOD_NS, 1e9 / ENGINE_MIN_PERIOD_NS);
	procfs_raise_fd_limit();
	e->buildids = buildid_cache_new();	/* NULL: the maps go without */
	sigemptyset(&e->chld_set);
	sigaddset(&e->chld_set, SIGCHLD);
	signals_wait_set(&e->wait_set);
	if (alloc_channels(e, err) < 0)
		return -1;
	e->window = cfg->window;
	if (cfg->attached)
		return adopt_attached(e, cfg->attached, err);
	/* Only for a command of ours: its every thread is ours, so a thread
	 * found untraced in its process after a move is one to seize
	 * (seize_strays).  And only at real-time priority, where the tracer
	 * that seizes a moving thread cannot be kept off its CPU by the target
	 * while that thread runs untraced. */
	if (cfg->tracers > 1 && !realtime())
		e->st.tracers_refused = true;
	else if (cfg->tracers > 1 && !(e->tracers = tracers_new(cfg->tracers, err)))
		return -1;
	if (!(e->round = calloc((size_t)tracers_count(e->tracers), 1)))
		return error_set(err, "out of memory");
	e->next_tracer = 1 % tracers_count(e->tracers);
	e->seize_options = LAUNCH_PTRACE_OPTIONS;
	p = add_process(e, cfg->root, 0);
	t = p ? add_thread(e, cfg->root, p, TASK_STOPPED) : NULL;
	if (!t)
		return error_set(err, "out of memory");
	if (e->pmu_failed) {
		*err = e->pmu_err;
		return error_prefix(err, "cannot follow the target");
	}
	/* Its CPU time counts from here, as its counters do: what the child
	 * spent before (the sampler's fork, the execve) is not the program's. */
	read_cpu(e, t, &cpu0);
	t->cpu_offset = -(int64_t)cpu0;
	resume(e, t);		/* out of its exec stop: the run begins */
	return 0;
}

struct engine *engine_new(const struct engine_config *cfg, struct error *err)
{
	struct engine *e = calloc(1, sizeof(*e));

	if (!e) {
		if (cfg->writer)
			profile_writer_abandon(cfg->writer);
		error_set(err, "out of memory");
		return NULL;
	}
	if (engine_start(e, cfg, err) < 0) {
		engine_free(e);
		return NULL;
	}
	return e;
}

int engine_finish(struct engine *e, struct engine_stats *stats, struct error *err)
{
	struct profile_stats *out = &stats->profile;
	size_t s = 0;

	memset(stats, 0, sizeof(*stats));
	out->wall_ns = e->st.end_ns > e->st.start_ns ? e->st.end_ns - e->st.start_ns : 0;
	out->latency_ns = e->st.latency_ns;
	out->samples = e->st.samples;
	out->thread_samples = e->st.thread_samples;
	out->missed_slots = e->st.missed_slots;
	out->signals_delivered = e->st.signals_delivered;
	out->threads_seen = e->st.threads_seen;
	out->processes_seen = e->st.processes_seen;
	out->exit_status = e->st.exit_status;
	channel_totals(e, out);
	for (uint32_t i = 0; i < e->nchannels; i++)
		if (e->channels[i].scope == CHANNEL_PER_SAMPLE)
			stats->channel_missing[i] = e->tally[s++].missing;
	stats->held_slots = e->st.held_slots;
	stats->blocked_thread_samples = e->st.blocked_thread_samples;
	stats->carry_refused = e->carry_refused;
	stats->stuck_samples = e->st.stuck_samples;
	stats->stops = e->st.stops;
	stats->tracers = tracers_count(e->tracers);
	stats->moved = e->st.moved;
	stats->strays = e->st.strays;
	stats->tracers_refused = e->st.tracers_refused;
	stats->carried = e->st.carried;
	stats->carried_checked = e->st.carried_checked;
	stats->carried_wrong = e->st.carried_wrong;
	stats->pmu_read_ns = e->st.pmu_read_ns;
	stats->own_cpu_ns = e->st.own_cpu_ns;
	stats->engine_cpu_ns = e->st.engine_cpu_ns;
	stats->sampled_ns = out->wall_ns;
	if (e->window)
		stats->sampled_ns = e->sampled_ns + (e->enabled && e->st.end_ns > e->enabled_at ?
						     e->st.end_ns - e->enabled_at : 0);
	stats->ncpus = e->ncpus;
	stats->pmu_failed = e->pmu_failed;
	stats->pmu_err = e->pmu_err;
	stats->cpu_unread = e->st.cpu_unread;
	stats->cpu_unread_fds = e->st.cpu_unread_fds;
	if (e->stacks)
		stats->files_refused = callstack_stats(e->stacks)->files_refused;
	if (e->writer) {
		struct profile_writer *w = e->writer;

		e->writer = NULL;
		if (profile_writer_finish(w, out, &e->write_err) < 0)
			e->write_failed = true;
	}
	if (e->write_failed) {
		*err = e->write_err;
		return -1;
	}
	return 0;
}

void engine_free(struct engine *e)
{
	if (!e)
		return;
	tasks_free(&e->tasks);
	idmap_free(&e->orphans);
	tracers_free(e->tracers);	/* nothing is traced by now */
	free(e->round);
	free(e->values);
	free(e->tally);
	free(e->counter_sum);
	free(e->ts);
	free(e->ts_counters);
	free(e->waitlist);
	buildid_cache_free(e->buildids);
	if (e->writer)
		profile_writer_abandon(e->writer);
	free(e);
}
