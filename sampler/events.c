/* events.c - the ptrace stops, and the task table they keep.
 *
 * Between samples the engine handles every kind of ptrace stop (after
 * strace): signal-delivery stops (the signal is passed on), group-stops
 * (kept with PTRACE_LISTEN so job control works), clone/fork/vfork/exec/exit
 * events, and late interrupt traps.  Any stop of a thread the current
 * sample waits for counts as its stop for the sample: a stop is a stop.
 * With several tracers a new thread moves to its own at its first stop.
 */
#include "engine-internal.h"

#include <elf.h>
#include <errno.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "host.h"
#include "regs.h"

/* ---- the table --------------------------------------------------------- */

static void pmu_attach(struct engine *e, struct task *t)
{
	struct error err;

	memset(t->counters, 0, e->tasks.ncounters * sizeof(*t->counters));
	if (pmu_set_attach(e->cfg.pmus, t->tid, &err) < 0 && !e->stats.pmu_failed) {
		e->stats.pmu_failed = true;
		e->stats.pmu_err = err;
	}
}

/* Sample t on its own CPU clock (cpuclock.h): with the user stack when
 * call stacks are taken.  Refused, it is sampled as before; counted, and
 * said once at the end. */
static void clock_attach(struct engine *e, struct task *t)
{
	uint32_t stack_bytes = e->cfg.stacks ? callstack_copy_size(e->cfg.stacks) : 0;

	if (!e->cfg.clock_period_ns ||
	    cpuclock_open(&t->clock, t->tid, e->cfg.clock_period_ns, stack_bytes) == 0)
		return;
	if (!e->stats.clock_refused++)
		e->stats.clock_errno = errno;
}

struct task *add_thread(struct engine *e, pid_t tid, struct process *p,
			enum task_state state)
{
	struct task *t = tasks_add(&e->tasks, tid, p, state);

	if (!t)
		return NULL;
	if (p->watch)
		mapwatch_add_thread(p->watch, tid);
	emit_thread(e, t, host_now_ns());
	pmu_attach(e, t);
	clock_attach(e, t);
	if (!e->cfg.stop_every)
		quiet_open(&t->quiet, tid, e->cfg.carry_preempted);
	if (e->cfg.carry_preempted && !quiet_samples_registers(&t->quiet))
		e->stats.carry_refused = true;	/* (auto: said with the held time) */
	return t;
}

struct process *add_process(struct engine *e, pid_t pid, pid_t ppid)
{
	struct process *p = tasks_add_process(&e->tasks, pid, ppid);
	uint64_t now = host_now_ns();

	if (!p)
		return NULL;
	emit_process(e, p, now);
	emit_exec(e, p, now);
	p->watch = mapwatch_new(pid);
	if (p->watch)	/* before the maps are read: no mapping falls between */
		mapwatch_add_thread(p->watch, pid);
	refresh_maps(e, p, now, true);
	return p;
}

/* The thread reported it is exiting (readable: stopped at its exit event)
 * or is gone: record it once. */
void thread_exits(struct engine *e, struct task *t, bool readable)
{
	uint64_t now = host_now_ns();

	snapshot_unpend(e, t);
	if (t->state == TASK_EXITING)
		return;
	tasks_set_exiting(t);
	mapwatch_drop_thread(t->proc->watch, t->tid);
	emit_exit(e, t, now, readable);
	pmu_set_detach(e->cfg.pmus, t->tid);
	if (t->proc->live_threads == 0) {
		refresh_maps(e, t->proc, now, false);	/* its last maps */
		if (e->cfg.stacks)	/* its files, open for unwinding, are not needed */
			callstack_maps_changed(e->cfg.stacks, t->proc->pid);
	}
}

/* Remove t from the table.  A new thread whose parent's clone or fork
 * event is still to come is noted, so that the event does not adopt it a
 * second time (on_new_child): a detached thread would be a ghost, recorded
 * alive to the end.  The note belongs to the process that owes the event
 * (forget_orphans drops it when that one is gone): a thread's own, and a
 * process's parent -- not the process itself, whose reaping comes before
 * its parent's fork event in that race (t1070: 5 ghosts in 10,000 forks). */
void forget_task(struct engine *e, struct task *t)
{
	pid_t *owner;

	if (t->event_due && (owner = idmap_get(&e->tree.orphans, (uint32_t)t->tid, NULL)))
		*owner = t->tid == t->proc->pid ? t->proc->ppid : t->proc->pid;
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
long tptrace(struct engine *e, const struct task *t, int request, void *addr, void *data)
{
	return tracers_ptrace(e->rounds.tracers, t->tracer, request, t->tid, addr, data);
}

/* The tracer of a thread the engine did not see attached: /proc says
 * which thread traces it (0 when it cannot tell). */
static int tracer_of(const struct engine *e, pid_t tid)
{
	int tracer = e->rounds.tracers ? tracers_find(e->rounds.tracers, procfs_read_tracer(tid)) : 0;

	return tracer < 0 ? 0 : tracer;
}

/* Mark t as running on; returns the signal to continue it with. */
int events_resume_prepare(struct engine *e, struct task *t)
{
	int sig = t->inject_sig;

	t->inject_sig = 0;
	if (sig)
		e->stats.profile.signals_delivered++;
	/* The kernel builds the handler's frame when the thread runs again,
	 * and its PC moves there before any user code: until then the PC it
	 * was stopped at is not where it is going (carry() stops it). */
	t->to_handler = sig != 0;
	t->state = t->in_vfork ? TASK_IN_VFORK : TASK_RUNNING;
	return sig;
}

void events_resume(struct engine *e, struct task *t)
{
	int sig = events_resume_prepare(e, t);

	/* ESRCH: killed meanwhile; its exit is reported later. */
	tptrace(e, t, PTRACE_CONT, 0, (void *)(long)sig);
}

static void hold(struct engine *e, struct task *t)
{
	t->state = TASK_STOPPED;
	snapshot_unpend(e, t);
}

/* Stop following a stopped thread: its exit record carries its final
 * values, and it goes on untraced (with the signal it was stopped for; in
 * a group-stop it stays stopped). */
void detach_task(struct engine *e, struct task *t)
{
	int sig = t->inject_sig;

	thread_exits(e, t, true);
	if (sig)
		e->stats.profile.signals_delivered++;
	tptrace(e, t, PTRACE_DETACH, 0, (void *)(long)sig);
	forget_task(e, t);
}

/* The target (its first process) reached a signal-delivery stop for a
 * signal the sampler forwards: tell the relay who sent it. */
static void note_target_signal(struct engine *e, const struct task *t)
{
	siginfo_t info;

	if (tptrace(e, t, PTRACE_GETSIGINFO, 0, &info) == 0)
		relay_note_target(&e->loop.relay, &info, host_now_ns());
}

/* ---- events ------------------------------------------------------------ */

/* The registers of a stopped thread, read by its tracer (*len: the bytes
 * filled), decoded (decode_regs). */
int read_regs(struct engine *e, const struct task *t, struct user_regs_struct *regs,
	      size_t *len, uint64_t *pc, bool *blocked)
{
	struct iovec iov = { regs, sizeof(*regs) };

	if (tptrace(e, t, PTRACE_GETREGSET, (void *)NT_PRSTATUS, &iov) < 0)
		return -1;
	*len = iov.iov_len;
	regs_decode(regs, *len, pc, blocked);
	return 0;
}

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

	if (e->cfg.stop_every || e->cfg.stacks || child->state != TASK_NEW ||
	    read_regs(e, parent, &regs, &len, &child->pc, &blocked) < 0)
		return;
	child->cpu_ns = 0;
	child->start_known = true;
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
	if (idmap_remove(&e->tree.orphans, (uint32_t)tid))
		return;		/* ...and it ended since: not to be adopted again */
	child = adopt(e, tid, parent->proc->pid, event == PTRACE_EVENT_CLONE);
	if (!child)
		return;
	child->tracer = parent->tracer;	/* the kernel attached it there */
	know_start(e, parent, child);
	if (!e->snap.sampling || child->state != TASK_NEW || child->pending)
		return;
	/* the snapshot includes it: where it starts, or at its first stop */
	if (child->start_known)
		snapshot_carry_new(child);
	else
		snapshot_pend(e, child, ANY_STAMP);
}

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

/* After exec the thread has the process's pid and a new image; every other
 * thread of the process is gone. */
static void on_exec(struct engine *e, struct task *t)
{
	struct process *p = t->proc;
	unsigned long former = 0;
	bool leader_returns = t->state == TASK_EXITING;
	uint64_t now;

	if (e->rounds.tracers)		/* the tid is the execing thread's now: its tracer's */
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
		pmu_set_detach(e->cfg.pmus, t->tid);
		pmu_attach(e, t);
		if (t->schedstat_fd >= 0)
			close(t->schedstat_fd);
		t->schedstat_fd = procfs_open_schedstat(p->pid, t->tid);
		if (t->stat_fd >= 0)
			close(t->stat_fd);
		t->stat_fd = -1;
		if (!e->cfg.stop_every)
			quiet_open(&t->quiet, t->tid, e->cfg.carry_preempted);
		mapwatch_drop_thread(p->watch, t->tid);	/* the leader's, gone */
		if (p->watch)
			mapwatch_add_thread(p->watch, t->tid);
		clock_attach(e, t);
	}
	t->stack.valid = false;		/* a new image */
	t->in_vfork = false;
	p->last_refresh = 0;	/* its libraries are mapped after the exec: look at once */
	emit_exec(e, p, now);
	refresh_maps(e, p, now, true);
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
	int to = e->rounds.next, rc;

	t->placed = true;
	e->rounds.next = (e->rounds.next + 1) % tracers_count(e->rounds.tracers);
	if (t->tid == t->proc->pid || to == 0)
		return false;	/* a process, or the turn of this thread's tracer */
	rc = tracers_move(e->rounds.tracers, t->tid, t->tracer, to, e->rounds.seize_options);
	if (rc == -2)
		return false;	/* still where it was */
	if (rc < 0) {
		drop_task(e, t);	/* it ended meanwhile */
		return true;
	}
	t->tracer = to;
	t->start_known = false;	/* it may have run on from where it started */
	t->look_for_strays = true;
	e->stats.moved++;
	if (e->snap.sampling && !t->pending)
		snapshot_pend(e, t, ANY_STAMP);	/* held at that stop, as it would be at this */
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
	    tracers_ptrace(e->rounds.tracers, s->mover->tracer, PTRACE_SEIZE, tid, 0,
			   (void *)e->rounds.seize_options) < 0)
		return 0;	/* ours already (its first stop is on its way), or gone */
	t = add_thread(e, tid, s->mover->proc, TASK_NEW);
	if (!t)
		return 0;
	t->tracer = s->mover->tracer;
	t->placed = true;
	tptrace(e, t, PTRACE_INTERRUPT, 0, 0);
	if (e->snap.sampling)
		snapshot_pend(e, t, ANY_STAMP);	/* recorded before the sample: in it */
	s->seized++;
	e->stats.strays++;
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

/* ---- stops ------------------------------------------------------------- */

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

	if (e->cfg.attached && !t->options_set) {	/* seized without TRACEEXIT (attach.c) */
		tptrace(e, t, PTRACE_SETOPTIONS, 0, (void *)(long)ATTACH_OPTIONS);
		t->options_set = true;
	}
	switch (event) {
	case 0:			/* signal-delivery stop: pass it on */
		t->inject_sig = sig;
		if (t->proc->pid == e->cfg.root_pid && signals_forwarded(sig))
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
		if (t->state == TASK_NEW && e->rounds.tracers && !is_stop_signal(sig)) {
			if (!t->placed && move_to_tracer(e, t))
				return;		/* its first stop there follows */
			if (t->look_for_strays)
				seize_strays(e, t);
		}
		if (t->state == TASK_NEW && t->start_known)
			quiet_stopped(&t->quiet);	/* still where it starts */
		if (is_stop_signal(sig) && !e->tree.detaching) {
			/* group-stop: stay stopped, but let SIGCONT through */
			snapshot_unpend(e, t);
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
	if (e->tree.detaching)
		detach_task(e, t);	/* a group-stop goes on once untraced */
	else if (e->snap.sampling)
		hold(e, t);
	else
		events_resume(e, t);
}

static void forget_orphans(struct engine *e, pid_t pid)
{
	size_t pos = 0;
	uint32_t tid;
	pid_t *owner;

	while ((owner = idmap_next(&e->tree.orphans, &pos, &tid)))
		if (*owner == pid && idmap_remove(&e->tree.orphans, tid))
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
	if (tid == e->cfg.root_pid) {
		e->tree.root_done = true;
		e->stats.profile.exit_status = WIFEXITED(status) ? WEXITSTATUS(status)
						      : 128 + WTERMSIG(status);
	}
}

void events_on_status(struct engine *e, pid_t tid, int status)
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
		tracers_ptrace(e->rounds.tracers, tracer_of(e, tid), PTRACE_CONT, tid, 0, 0);
		return;
	}
	on_stop(e, t, status);
}

/* Handle every event that is ready.  Returns how many there were. */
int events_drain(struct engine *e)
{
	int status, n = 0;
	pid_t tid;

	while ((tid = waitpid(-1, &status, __WALL | WNOHANG)) > 0) {
		events_on_status(e, tid, status);
		n++;
	}
	if (tid < 0 && errno == ECHILD && !e->tree.done) {
		e->tree.root_done = true;	/* nothing left to wait for */
		e->tree.done = true;
		e->tree.end_ns = host_now_ns();
	}
	return n;
}
