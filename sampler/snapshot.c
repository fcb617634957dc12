/* snapshot.c - a sample's snapshot of every thread.
 *
 * A sample interrupts every running thread, waits until each has reported
 * a stop, reads PC, CPU time and PMU readings, and continues them all; the
 * record is encoded and the call stacks unwound only then (engine.c).  A
 * thread that has not run since its PC was last read is not stopped at
 * all (quiet.h): it cannot have moved, and is carried.
 */
#include "engine-internal.h"

#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>

#include "../common/grow.h"
#include "attach.h"
#include "host.h"
#include "regs.h"

#define STOP_WAIT_SLICES 10	/* of STOP_WAIT_SLICE_NS: a second in all */
/* How long a sample polls for stops before it sleeps.  Polling keeps the
 * sampler's CPU awake, so a stop is seen without a wake-up across cores
 * (20-40 us on a VM); but a real-time sampler that polls keeps target
 * threads that share its CPU from reaching their stop, so it polls long
 * only when the target has fewer running threads than there are CPUs. */
#define SPIN_ALONE_NS 60000
#define SPIN_SHARED_NS 20000
/* Refresh a process's maps for an unknown PC at most this often. */
#define MAP_REFRESH_EVERY 100

/* fetched_cpu of a thread whose CPU time its tracer could not read */
#define CPU_UNREAD UINT64_MAX

/* ---- waiting for stops ------------------------------------------------- */

void snapshot_unpend(struct engine *e, struct task *t)
{
	if (!t->pending)
		return;
	t->pending = false;
	e->snap.npending--;
}

/* The current snapshot waits for t's stop: it is reaped by its tid
 * (reap_pending), not found by a waitpid(-1) that looks at every tracee. */
void snapshot_pend(struct engine *e, struct task *t, uint64_t stamp)
{
	struct engine_snap *s = &e->snap;

	t->stop_stamp = stamp;
	if (GROW_ARRAY(s->waitlist, s->wait_alloc, s->nwait + 1) == 0)
		s->waitlist[s->nwait++] = t->tid;
	else
		s->wait_any = true;
	t->pending = true;
	s->npending++;
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

	for (size_t i = 0; i < e->snap.nwait; i++) {
		pid_t tid = e->snap.waitlist[i];
		struct task *t = tasks_find(&e->tasks, tid);

		if (!t || !t->pending)
			continue;
		if (!all && (t->stop_stamp == ANY_STAMP || !quiet_switched(&t->quiet, t->stop_stamp)))
			continue;	/* not switched out (into its stop) since, or not known */
		if (waitpid(tid, &status, __WALL | WNOHANG) == tid) {
			events_on_status(e, tid, status);
			n++;
		}
	}
	for (size_t i = 0; i < e->snap.nwait; i++) {
		struct task *t = tasks_find(&e->tasks, e->snap.waitlist[i]);

		if (t && t->pending)
			e->snap.waitlist[keep++] = e->snap.waitlist[i];
	}
	e->snap.nwait = keep;
	return n;
}

/* ---- stopping and carrying --------------------------------------------- */

void snapshot_carry_new(struct task *t)
{
	t->carried = true;
	t->carried_waiting = true;
}

/* Can t be sampled without a stop (quiet.h)?  Then its PC and CPU time
 * are set.  With call stacks, a thread that ran since must be blocked on
 * the stack it was last unwound from (callstack.h), read while it stayed
 * off CPU. */
static bool carry(struct engine *e, struct task *t)
{
	uint64_t pc = t->pc, sp = 0, cpu = t->cpu_ns;
	enum quiet_look look;

	if (e->cfg.stop_every || t->to_handler)
		return false;
	look = quiet_look(&t->quiet, t->look_stamp, t->proc->pid, t->tid, t->schedstat_fd, &pc,
			  &sp, &cpu);
	if (look == QUIET_RAN || (e->cfg.stacks && !t->stack.valid))
		return false;
	if (look == QUIET_BLOCKED || look == QUIET_WAITING) {
		if (e->cfg.stacks &&
		    !(callstack_same(e->cfg.stacks, &t->stack, t->tid, pc, sp, &t->proc->maps) &&
		      quiet_unmoved(&t->quiet, t->proc->pid, t->tid, t->schedstat_fd)))
			return false;
		quiet_accept(&t->quiet);
	}
	t->pc = pc;
	t->cpu_ns = cpu;
	t->carried_waiting = quiet_runnable(&t->quiet);
	e->stats.carried_waiting += t->carried_waiting;
	if (look != QUIET_SAME) {
		/* read with its CPU time: it may run again before the snapshot */
		uint64_t values[PROFILE_MAX_CHANNELS];

		read_counters(e, t, values);
	}
	return true;
}

/* SAMPLER_TEST_CHECK_CARRIED=1 (tests/t1080): stop a carried thread
 * anyway and count the times its PC is not the one carried, to prove the
 * rule of quiet.h under block/wake churn without a statistical test. */
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
		events_on_status(e, t->tid, status);	/* a real event: handled as ever */
		return;
	}
	if (!quiet_straight_to_stop(&t->quiet, t->look_stamp, asked)) {
		/* it ran since the look (the checks before it let it): the
		 * carried PC was its PC then, not now */
		tptrace(e, t, PTRACE_CONT, 0, 0);
		return;
	}
	e->stats.carried_checked++;
	if (read_regs(e, t, &regs, &regs_len, &pc, &blocked) == 0) {
		if (pc != t->pc && !regs_restarting(&regs, regs_len, pc, t->pc))
			e->stats.carried_wrong++;
		if (e->cfg.stacks)
			callstack_check(e->cfg.stacks, &t->stack, t->proc->pid, t->tid, &regs, regs_len,
					&t->proc->maps);
	}
	tptrace(e, t, PTRACE_CONT, 0, 0);
}

/* Interrupt t, which ran since the last sample (or is new); the snapshot
 * waits for its stop.  Returns 1 if it was on a CPU, -1 if it is gone.
 * With several tracers the interrupt is only marked: send_interrupts(). */
static int interrupt(struct engine *e, struct task *t)
{
	uint64_t stamp = ANY_STAMP;

	if (t->state == TASK_RUNNING) {
		stamp = t->look_stamp;
		if (e->rounds.tracers) {
			t->to_interrupt = true;
			e->rounds.marked++;
			e->rounds.round[t->tracer] = 1;
		} else if (ptrace(PTRACE_INTERRUPT, t->tid, 0, 0) < 0)
			return -1;	/* gone: its exit follows */
	}
	e->stats.stops++;
	snapshot_pend(e, t, stamp);
	return t->state == TASK_RUNNING && quiet_on_cpu(&t->quiet, stamp);
}

/* The tracers with threads marked do their share at once (tracers.h). */
static void run_round(struct engine *e, void (*share)(void *arg, int tracer))
{
	tracers_each(e->rounds.tracers, share, e, e->rounds.round);
	memset(e->rounds.round, 0, (size_t)tracers_count(e->rounds.tracers));
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
	if (!e->rounds.marked)
		return;
	e->rounds.marked = 0;
	run_round(e, interrupt_share);
	for (size_t i = 0; i < e->tasks.ntasks; i++) {
		struct task *t = e->tasks.tasks[i];

		if (t->to_interrupt) {
			t->to_interrupt = false;
			snapshot_unpend(e, t);
			e->stats.stops--;
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
	e->snap.look_ns = host_now_ns();
	for (size_t i = 0; i < e->tasks.ntasks; i++) {
		struct task *t = e->tasks.tasks[i];
		int r;

		if (t->state == TASK_RUNNING && !e->cfg.stop_every &&
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
			snapshot_carry_new(t);
			continue;
		}
		if (t->state != TASK_RUNNING || t->pending)
			continue;
		if (carry(e, t)) {
			t->carried = true;
			if (e->cfg.check_carried)
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
	snapshot_unpend(e, t);
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
		(!on_cpu ? 0 : running < e->stats.ncpus ? SPIN_ALONE_NS : SPIN_SHARED_NS);

	while (e->snap.npending) {
		struct timespec slice = { 0, STOP_WAIT_SLICE_NS };

		if (e->snap.wait_any ? events_drain(e) : reap_pending(e, false))
			continue;
		if (e->tree.root_done && e->tasks.ntasks == 0)
			break;
		if (host_now_ns() < spin_until)
			continue;
		if (sigtimedwait(&e->snap.chld_set, NULL, &slice) < 0) {
			if (errno == EAGAIN && slices == 0 && carry_vforks(e))
				continue;
			if (errno == EAGAIN && ++slices >= STOP_WAIT_SLICES) {
				e->stats.stuck_samples++;
				break;
			}
		} else if (!reap_pending(e, true)) {
			events_drain(e);	/* a stop of a thread not waited for */
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

	e->snap.sampling = true;
	e->snap.npending = 0;
	interrupt_on_cpu(e, &running, &on_cpu);
	carry_rest(e, &running, &on_cpu);
	preempt_release(e->loop.preempt);
	wait_stops(e, running, on_cpu);
	for (size_t i = 0; i < e->tasks.ntasks; i++)
		e->tasks.tasks[i]->pending = false;
	e->snap.npending = 0;
	e->snap.nwait = 0;
	e->snap.wait_any = false;
	e->snap.sampling = false;
}

/* ---- reading and continuing -------------------------------------------- */

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
		if (!e->rounds.tracers) {
			events_resume(e, t);
			continue;
		}
		t->cont_sig = events_resume_prepare(e, t);
		t->to_continue = true;
		e->rounds.marked++;
		e->rounds.round[t->tracer] = 1;
	}
	if (e->rounds.marked) {
		e->rounds.marked = 0;
		run_round(e, continue_share);	/* each its own, at once */
	}
}

static int grow_snapshot(struct engine *e)
{
	size_t want = e->tasks.ntasks, nc = e->tasks.ncounters ? e->tasks.ncounters : 1;

	if (e->cfg.stacks && callstack_reserve(e->cfg.stacks, want) < 0)
		return -1;
	if (GROW_ARRAY(e->snap.ts, e->snap.ts_alloc, want) < 0 ||
	    GROW_ARRAY(e->snap.counters, e->snap.counters_alloc, want * nc) < 0)
		return -1;
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
		e->stats.carried++;
		blocked = !t->carried_waiting;
	} else if (t->fetched) {	/* by its tracer (fetch_share) */
		if (t->fetch_rc < 0)
			return -1;
		rp = &t->regs;
		regs_len = t->regs_len;
		regs_decode(rp, regs_len, &t->pc, &blocked);
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
	if (regs_len && !blocked) {	/* a running thread, stopped: where? */
		e->stats.running_stops++;
		e->stats.syscall_stops += regs_syscall_return(rp, regs_len);
	}
	if (e->cfg.stacks && t->carried)
		callstack_capture_carried(e->cfg.stacks, slot);
	else if (e->cfg.stacks)
		callstack_capture(e->cfg.stacks, slot, t->tid, regs_len ? rp : NULL, regs_len,
				  &t->proc->maps);
	if (blocked)
		e->stats.blocked_thread_samples++;
	if (t->carried)	/* as read with its CPU time (carry()), or unchanged */
		memcpy(counters, t->counters, e->tasks.ncounters * sizeof(*counters));
	else
		read_counters(e, t, counters);
	*out = (struct profile_thread_sample){
		.tid = t->tid, .pid = t->proc->pid, .pc = t->pc, .cpu_ns = recorded_cpu(t, t->cpu_ns),
		.counters = counters,
	};
	quiet_runs(&t->quiet, t->look_stamp, e->snap.prev_ns, e->snap.look_ns, e->snap.time_ns,
		   &out->run_from_ns, &out->run_to_ns);
	return 0;
}

size_t snapshot_take(struct engine *e, uint64_t *when)
{
	size_t n = 0, nc = e->tasks.ncounters ? e->tasks.ncounters : 1;

	stop_all(e);
	*when = e->snap.time_ns = host_now_ns();
	if (e->rounds.tracers) {
		for (size_t i = 0; i < e->tasks.ntasks; i++)
			if (e->tasks.tasks[i]->state == TASK_STOPPED)
				e->rounds.round[e->tasks.tasks[i]->tracer] = 1;
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
			    snap_thread(e, t, n, &e->snap.ts[n], e->snap.counters + n * nc) == 0)
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

		e->snap.prev_ns = *when;	/* where the next one's runs begin */
		read_sample_channels(e);
		e->stats.pmu_read_ns += host_now_ns() - r0;
	}
	resume_all(e);
	return n;
}

/* ---- the hand-off ------------------------------------------------------ */

/* An address outside every known map of p: something was mapped since
 * (the libraries the loader maps after exec, dlopen, JIT).  Re-read the
 * maps, at most once every MAP_REFRESH_EVERY samples; true if they changed. */
static bool refresh_unknown(struct engine *e, struct process *p, uint64_t now)
{
	if (p->last_refresh && e->stats.profile.samples + 1 - p->last_refresh < MAP_REFRESH_EVERY)
		return false;
	p->last_refresh = e->stats.profile.samples + 1;
	return refresh_maps(e, p, now, false);
}

static void check_maps(struct engine *e, const struct profile_thread_sample *ts,
		       size_t n, uint64_t now)
{
	for (size_t i = 0; i < n; i++) {
		struct task *t = tasks_find(&e->tasks, (pid_t)ts[i].tid);
		struct process *p = t ? t->proc : NULL;

		if (p)
			follow_maps(e, p, now);
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
		struct process *p = tasks_find_process(&e->tasks, (pid_t)e->snap.ts[i].pid);
		struct task *t = tasks_find(&e->tasks, (pid_t)e->snap.ts[i].tid);
		struct callstack_memo *memo = t ? &t->stack : NULL;

		if (!p) {
			e->snap.ts[i].stack_end = PROFILE_STACK_UNREADABLE;
			continue;
		}
		callstack_unwind(e->cfg.stacks, i, p->pid, &p->maps, &e->snap.ts[i], memo);
		if (e->snap.ts[i].stack_end == PROFILE_STACK_UNKNOWN_MAP && refresh_unknown(e, p, now))
			callstack_unwind(e->cfg.stacks, i, p->pid, &p->maps, &e->snap.ts[i], memo);
	}
}

/* ---- clock samples (cpuclock.h) ---------------------------------------- */

struct clock_drain {
	struct engine *e;
	const struct process *p;
};

/* The stack of a clock sample, unwound into the snapshot's clock frames.
 * Those may move as they grow: until every thread is drained the sample's
 * chain holds where its frames begin (point_clock_frames). */
static void clock_stack(struct engine *e, const struct process *p, const struct cpuclock_sample *s,
			struct profile_clock_sample *cs)
{
	struct engine_snap *sn = &e->snap;
	uint32_t max = callstack_max_callers(e->cfg.stacks);
	struct unwind_stack stack = s->stack;
	const struct map_entry *m = map_list_find(&p->maps, stack.start);
	enum profile_stack_end end = PROFILE_STACK_UNREADABLE;

	cs->stack_end = PROFILE_STACK_UNREADABLE;
	if (!s->has_regs || !stack.len ||
	    GROW_ARRAY(sn->clock_frames, sn->clock_frames_alloc, sn->nclock_frames + max) < 0)
		return;
	if (m) {	/* the copy ends where the stack's mapping does */
		stack.end = m->end;
		if (stack.len > m->end - stack.start)
			stack.len = m->end - stack.start;
	}
	cs->nframes = callstack_unwind_copy(e->cfg.stacks, p->pid, &p->maps, &s->regs, &stack,
					    sn->clock_frames + sn->nclock_frames, &end);
	cs->stack_end = (uint8_t)end;
	cs->chain = (uint32_t)sn->nclock_frames;
	sn->nclock_frames += cs->nframes;
}

static void take_clock_sample(void *arg, const struct cpuclock_sample *s)
{
	struct clock_drain *d = arg;
	struct engine_snap *sn = &d->e->snap;
	struct profile_clock_sample *cs;

	if (GROW_ARRAY(sn->clock, sn->clock_alloc, sn->nclock + 1) < 0)
		return;		/* (the thread-sample is then not clocked) */
	cs = &sn->clock[sn->nclock++];
	*cs = (struct profile_clock_sample){ .pc = s->pc };
	if (d->e->cfg.stacks)
		clock_stack(d->e, d->p, s, cs);
}

/* Point the thread-samples at their clock samples, and those at their
 * frames, now that neither array moves. */
static void point_clock(struct engine *e, size_t n)
{
	struct engine_snap *sn = &e->snap;
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		struct profile_thread_sample *ts = &sn->ts[i];

		ts->clock = ts->nclock ? sn->clock + k : NULL;
		for (uint32_t j = 0; j < ts->nclock; j++, k++) {
			struct profile_clock_sample *cs = &sn->clock[k];

			cs->frames = cs->nframes ? sn->clock_frames + cs->chain : NULL;
			cs->chain = 0;
		}
	}
}

/* Each thread's clock samples up to this sample's time.  A thread whose
 * ring lost some (or that has none) is not clocked in this sample: its CPU
 * time goes to its PC. */
static void drain_clock(struct engine *e, size_t n)
{
	struct engine_snap *sn = &e->snap;
	size_t want = cpuclock_record_max(e->cfg.stacks ? callstack_copy_size(e->cfg.stacks) : 0);

	if (!e->cfg.clock_period_ns)
		return;
	if (GROW_ARRAY(sn->clock_buf, sn->clock_buf_len, want) < 0)
		return;		/* none clocked: ts[] were zeroed so */
	sn->nclock = sn->nclock_frames = 0;
	for (size_t i = 0; i < n; i++) {
		struct profile_thread_sample *ts = &sn->ts[i];
		struct task *t = tasks_find(&e->tasks, (pid_t)ts->tid);
		struct clock_drain d = { .e = e, .p = t ? t->proc : NULL };
		size_t first = sn->nclock, frames = sn->nclock_frames;

		if (!t || !cpuclock_on(&t->clock))
			continue;
		ts->clocked = cpuclock_drain(&t->clock, sn->time_ns, sn->clock_buf,
					     sn->clock_buf_len, take_clock_sample, &d);
		if (!ts->clocked) {
			e->stats.clock_lost++;
			sn->nclock = first;
			sn->nclock_frames = frames;
		}
		ts->nclock = (uint32_t)(sn->nclock - first);
		e->stats.clock_samples += ts->nclock;
	}
	point_clock(e, n);
}

void snapshot_unwind(struct engine *e, size_t n, uint64_t now)
{
	check_maps(e, e->snap.ts, n, now);
	if (e->cfg.stacks)
		unwind_all(e, n, now);
	drain_clock(e, n);
}

void snapshot_free(struct engine *e)
{
	free(e->snap.ts);
	free(e->snap.counters);
	free(e->snap.waitlist);
	free(e->snap.clock);
	free(e->snap.clock_frames);
	free(e->snap.clock_buf);
}
