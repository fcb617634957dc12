/* engine.c - the ptrace sampling loop.
 *
 * Every thread is traced with PTRACE_SEIZE (children are seized
 * automatically), so the engine can stop a thread with PTRACE_INTERRUPT
 * without any signal the target could see.  On schedule, inside the
 * sampling windows, the loop takes a snapshot of every thread (snapshot.c)
 * and only then encodes the record; in between it handles the stops
 * (events.c).  The parts are listed in engine-internal.h.
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
#include "engine-internal.h"

#include <math.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/ptrace.h>
#include <time.h>
#include <unistd.h>

#include "host.h"
#include "launch.h"
#include "tune.h"

/* How long the end of an attachment waits for threads to reach a stop to
 * be detached at: one in vfork whose child is stopped, or in an
 * uninterruptible sleep, may never; the kernel detaches those when the
 * sampler exits (attached threads have no PTRACE_O_EXITKILL). */
#define DETACH_WAIT_NS 1000000000ull
/* How often (in samples) the sampler moves to its target's CPU, and how
 * many threads it looks at to find it. */
#define FOLLOW_EVERY 50
#define FOLLOW_THREADS 8
/* --precise-stops=auto turns preemptors on once this many stops found a
 * thread running and this share of them came at a system call's return
 * (examples/syscalls: 60%), sampling every 0.5 ms or slower (on the 2-CPU
 * VM 10 kHz with preemptors fell from 5 to 4 kHz, its stops no better).
 * Not lower: examples/calltree (0.4-1.4%) has a timer signal every 6 ms,
 * and under load preemptors taking the CPUs at 2 kHz moved its handler's
 * share 4.6 points from its own measure (0.3 without). */
#define PRECISE_MIN_STOPS 128
#define PRECISE_SHARE 0.05
/* counted after the first stops (the loader's system calls) */
#define PRECISE_SKIP_STOPS 32
/* ...but not on a machine busy with other work: there preemptors at
 * real-time priority on every CPU took the target's CPUs (node, java and
 * sqlite3 under load: on in 23 of 48 runs, the target held up to 90% of
 * the time).  Busy: some runnable task waited for a CPU this share of the
 * judged time (PSI; an idle machine with the target: 0-3%). */
#define PRECISE_BUSY_SHARE 0.2
#define PRECISE_MIN_PERIOD_NS 500000ull
/* Every this many samples, re-read one thread's name (round robin) to see
 * renames: a /proc read costs 3-20 us, so 8 keep it below 3 us per sample
 * on average, and a rename still shows within 8 x threads samples. */
#define NAME_EVERY 8

/* ---- sampling ---------------------------------------------------------- */

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
	if (best >= 0 && best != e->loop.cpu && tune_pin_cpu(best) == 0) {
		e->loop.cpu = best;
	}
}

static bool any_job_stopped(const struct engine *e)
{
	for (size_t i = 0; i < e->tasks.ntasks; i++)
		if (e->tasks.tasks[i]->state == TASK_GROUP_STOPPED)
			return true;
	return false;
}

/* Preemptors from the next sample on (preempt.h); refused once, not
 * asked again. */
static void start_precise(struct engine *e)
{
	if (e->loop.preempt || e->stats.precise_refused)
		return;
	e->loop.preempt = preempt_start(e->cfg.start_ns, e->cfg.period_ns);
	if (e->loop.preempt)
		e->stats.precise_from = e->stats.profile.samples + 1;
	else
		e->stats.precise_refused = true;
}

/* Did other tasks wait for a CPU since the stops began to be judged?
 * Unknown (no PSI): not busy, as before. */
static bool machine_busy(struct engine *e)
{
	long long wait_us = host_cpu_wait_us();
	uint64_t ns = host_now_ns() - e->loop.judged_ns;

	if (e->loop.judged_wait_us < 0 || wait_us < 0 || !ns)
		return false;
	/* ("some" waited at most all the time) */
	e->stats.precise_busy_share = fmin(1.0, (double)(wait_us - e->loop.judged_wait_us) * 1e3 / (double)ns);
	return e->stats.precise_busy_share >= PRECISE_BUSY_SHARE;
}

/* --precise-stops=auto: stops that land at a system call's return, where
 * a running thread gets when the stop reaches its CPU late, are more than
 * a compute-bound program spends there.  Judged as stops come; a program
 * that spends that much in short system calls gets preemptors it did not
 * need, which cost time but no accuracy. */
static void judge_stops(struct engine *e)
{
	const struct engine_stats *st = &e->stats;
	uint64_t running, late;

	if (e->cfg.precise != PRECISE_AUTO || e->loop.preempt || st->precise_refused ||
	    e->cfg.period_ns < PRECISE_MIN_PERIOD_NS)
		return;
	if (!e->loop.judged_from && st->running_stops >= PRECISE_SKIP_STOPS) {
		e->loop.judged_from = st->running_stops;
		e->loop.judged_syscalls = st->syscall_stops;
		e->loop.judged_wait_us = host_cpu_wait_us();
		e->loop.judged_ns = host_now_ns();
	}
	running = st->running_stops - e->loop.judged_from;
	late = st->syscall_stops - e->loop.judged_syscalls;
	if (e->loop.judged_from && running >= PRECISE_MIN_STOPS &&
	    (double)late >= PRECISE_SHARE * (double)running) {
		e->stats.precise_late_share = (double)late / (double)running;
		if (preempt_possible(e->cfg.period_ns) && machine_busy(e))	/* not asked again */
			e->stats.precise_refused = e->stats.precise_busy = true;
		else
			start_precise(e);
	}
}

static void take_sample(struct engine *e)
{
	uint64_t t0 = host_now_ns(), snap;
	size_t n = snapshot_take(e, &snap);
	uint64_t t1 = host_now_ns();
	struct profile_sample s;
	struct task *named;

	e->stats.profile.latency_ns += t1 - t0;
	e->stats.profile.hold_ns += t1 - snap;	/* what the threads spent stopped after it */
	if (n == 0) {
		/* a program held by job control is served; one whose threads
		 * are all exiting has nothing left to sample */
		if (any_job_stopped(e))
			e->stats.held_slots++;
		return;
	}
	if (e->cfg.follow_cpu && e->stats.profile.samples % FOLLOW_EVERY == 0)
		follow_target(e);
	e->stats.profile.samples++;
	e->stats.profile.thread_samples += n;
	judge_stops(e);
	snapshot_unwind(e, n, snap);
	if (!e->out.writer)
		return;
	s = (struct profile_sample){
		.time_ns = snap, .nthreads = (uint32_t)n, .threads = e->snap.ts,
		.values = e->out.values,
	};
	record_result(e, profile_write_sample(e->out.writer, &s, &e->out.write_err));
	/* Threads rename themselves after their first stop (pthread_setname_np
	 * at their start): look at one thread now and then, round robin. */
	if (e->stats.profile.samples % NAME_EVERY)
		return;
	named = e->tasks.tasks[e->stats.profile.samples / NAME_EVERY % e->tasks.ntasks];
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
	e->tree.detaching = true;
	e->tree.detach_by = host_now_ns() + DETACH_WAIT_NS;
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
	for (size_t i = 0; i < e->tasks.ntasks && now < e->tree.detach_by; i++) {
		enum task_state state = e->tasks.tasks[i]->state;

		if (state != TASK_IN_VFORK && state != TASK_EXITING)
			return false;	/* its stop is on its way */
	}
	while (e->tasks.ntasks) {
		struct task *t = e->tasks.tasks[e->tasks.ntasks - 1];

		thread_exits(e, t, true);	/* alive, or at its exit stop */
		forget_task(e, t);
	}
	e->tree.root_done = true;
	e->tree.done = true;
	e->tree.end_ns = now;
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
	if (e->cfg.attached) {
		/* not ours to signal: the signal ends the attachment */
		if (signals_ends_run(info->si_signo) && !e->tree.detaching)
			stop_following(e);
		return;
	}
	if (!e->tree.root_done)
		events_drain(e);
	if (e->tree.root_done) {
		if (signals_ends_run(info->si_signo) && !e->tree.detaching)
			stop_following(e);
		return;
	}
	if (!relay_reached_target(&e->loop.relay, info, e->cfg.root_pid, host_now_ns()))
		kill(e->cfg.root_pid, info->si_signo);
}

/* Wait until due for an event or a signal; act on the signals due. */
static void wait_until(struct engine *e, uint64_t due)
{
	uint64_t now = host_now_ns(), held = relay_next_due(&e->loop.relay);
	struct timespec wait = { 0, 0 };
	siginfo_t info;
	int sig;

	if (held && held < due)
		due = held;
	if (due > now) {
		wait.tv_sec = (time_t)((due - now) / 1000000000u);
		wait.tv_nsec = (long)((due - now) % 1000000000u);
	}
	sig = sigtimedwait(&e->loop.wait_set, &info, &wait);
	if (sig > 0 && signals_forwarded(sig))
		relay_hold(&e->loop.relay, &info, host_now_ns());
	while (relay_take_due(&e->loop.relay, host_now_ns(), &info))
		on_signal(e, &info);
}

/* Switch sampling on or off as the window wants, recording the switch; a
 * window starts with a sample (its baseline: see struct profile_window).
 * Returns the next instant the window may change by itself. */
static uint64_t follow_window(struct engine *e, uint64_t now)
{
	struct profile_window rec = { .time_ns = now };
	bool want;

	if (!e->cfg.window)
		return WINDOW_NEVER;
	window_poll(e->cfg.window);
	want = window_wanted(e->cfg.window, now) && !e->tree.detaching;
	if (want != e->loop.enabled) {
		e->loop.enabled = want;
		rec.enabled = want;
		if (want)
			e->loop.enabled_at = now;
		else
			e->stats.sampled_ns += now - e->loop.enabled_at;
		if (e->out.writer && e->cfg.window->used)
			record_result(e, profile_write_window(e->out.writer, &rec, &e->out.write_err));
		if (want) {
			e->loop.baseline = true;
			take_sample(e);
			e->loop.baseline = false;
		}
	}
	/* attached: the end of --duration ends the attachment */
	if (e->cfg.attached && !e->tree.detaching && window_over(e->cfg.window, now))
		stop_following(e);
	return window_next_change(e->cfg.window, now);
}

/* The CPU time of the sampler (CLOCK_PROCESS_CPUTIME_ID: every tracer)
 * or of this thread (CLOCK_THREAD_CPUTIME_ID: the serial part). */
static uint64_t own_cpu_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Of the time since t0, the share in which some task waited for a CPU
 * (PSI; "some" waited at most all the time), or -1 where unknown. */
static double cpu_wait_share(long long wait0_us, uint64_t t0)
{
	long long wait_us = host_cpu_wait_us();
	uint64_t ns = host_now_ns() - t0;

	if (wait0_us < 0 || wait_us < wait0_us || !ns)
		return -1;
	return fmin(1.0, (double)(wait_us - wait0_us) * 1e3 / (double)ns);
}

void engine_run(struct engine *e)
{
	uint64_t period = e->cfg.period_ns, slot = 1;
	uint64_t cpu0 = own_cpu_ns(CLOCK_PROCESS_CPUTIME_ID), thread0 = own_cpu_ns(CLOCK_THREAD_CPUTIME_ID);
	long long wait0 = host_cpu_wait_us();
	uint64_t t0 = host_now_ns();

	e->loop.enabled = !e->cfg.window;
	if (e->cfg.precise == PRECISE_ALWAYS)
		start_precise(e);
	if (e->cfg.window && e->out.writer && e->cfg.window->used &&
	    !window_wanted(e->cfg.window, host_now_ns())) {
		/* what happens before the first window (an exit, say) counts nothing */
		struct profile_window off = { .time_ns = e->cfg.start_ns, .enabled = false };

		record_result(e, profile_write_window(e->out.writer, &off, &e->out.write_err));
	}
	while (!e->tree.done) {
		uint64_t now, due, change;
		bool was_enabled;

		events_drain(e);
		if (e->tree.done || (e->cfg.attached && e->tree.detaching && let_go_rest(e, host_now_ns())))
			break;
		now = host_now_ns();
		was_enabled = e->loop.enabled;
		change = follow_window(e, now);
		preempt_enable(e->loop.preempt, e->loop.enabled && !e->tree.detaching);
		/* a window's first sample was just taken: the next is a period on */
		if (e->loop.enabled && !was_enabled)
			slot = (host_now_ns() - e->cfg.start_ns) / period + 1;
		due = e->cfg.start_ns + slot * period;
		if (e->tree.detaching) {
			due = now + STOP_WAIT_SLICE_NS;	/* no more samples */
		} else if (!e->loop.enabled) {
			/* no slot is missed while sampling is off */
			if (now >= due)
				slot = (now - e->cfg.start_ns) / period + 1;
			due = change != WINDOW_NEVER ? change : now + 1000000000ull;
		} else if (now >= due) {
			uint64_t next;

			take_sample(e);
			now = host_now_ns();
			next = (now - e->cfg.start_ns) / period + 1;
			if (next > slot + 1)
				e->stats.profile.missed_slots += next - slot - 1;
			slot = next > slot ? next : slot + 1;
			continue;
		} else if (change < due) {
			due = change;
		}
		wait_until(e, due);
	}
	e->stats.precise_holds = preempt_holds(e->loop.preempt);
	e->stats.precise_timeouts = preempt_timeouts(e->loop.preempt);
	preempt_stop(e->loop.preempt);
	e->loop.preempt = NULL;
	e->stats.own_cpu_ns = own_cpu_ns(CLOCK_PROCESS_CPUTIME_ID) - cpu0;
	e->stats.engine_cpu_ns = own_cpu_ns(CLOCK_THREAD_CPUTIME_ID) - thread0;
	e->stats.cpu_wait_share = cpu_wait_share(wait0, t0);
}

/* ---- set-up and results ------------------------------------------------ */

/* Threads attach_seize took: seized, not stopped (the first sample
 * interrupts them); what they did before is in no delta (the run is one
 * window that starts with the attachment). */
static int adopt_attached(struct engine *e, const struct attach_list *l, struct error *err)
{
	e->cfg.attached = true;
	e->cfg.root_pid = 0;	/* no command of ours: its status is not ours */
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
	if (e->stats.pmu_failed) {
		*err = e->stats.pmu_err;
		return error_prefix(err, "cannot follow the target");
	}
	return 0;
}

uint64_t engine_period_ns(double hz)
{
	uint64_t period = profile_period_ns(hz);

	/* the bounds hold for the exact period: 100001 Hz is refused, though
	 * its period rounds to 10 us */
	if (!period || 1e9 / hz < (double)ENGINE_MIN_PERIOD_NS ||
	    1e9 / hz > (double)ENGINE_MAX_PERIOD_NS)
		return 0;
	return period;
}

static bool realtime(void)
{
	int policy = sched_getscheduler(0);

	return policy == SCHED_FIFO || policy == SCHED_RR;
}

/* --carry-preempted auto: carry the threads that wait for a CPU when other
 * tasks waited for one before the start (PSI), or as many tasks as CPUs
 * run now (the target will wait beside them; two busy loops on 2 idle CPUs
 * make no pressure until it starts).  There, a thread interrupted while it
 * waits reaches its stop only once it gets a CPU, and every thread
 * already stopped waits with it (two busy loops beside 1 busy thread:
 * held 2,017 us per sample, 75% of the time; carried, 11 us, 1%). */
static bool carry_preempted(struct engine *e, const struct engine_config *cfg)
{
	int runnable;

	if (cfg->stop_every || cfg->carry == CARRY_NEVER)
		return false;
	if (cfg->carry == CARRY_ALWAYS)
		return true;
	/* not with call stacks: there its profiles leaned most (calltree -g
	 * under load, CPU-weighted paths up to 7 points off; docs/SCALING.md) */
	if (cfg->stacks)
		return false;
	e->stats.carry_busy_share = host_cpu_busy_share();
	runnable = host_runnable_tasks();
	e->stats.carry_runnable = runnable > 0 ? runnable - 1 : 0;	/* not this one */
	e->stats.carry_auto = e->stats.carry_busy_share >= PRECISE_BUSY_SHARE ||
			      e->stats.carry_runnable >= e->stats.ncpus;
	return e->stats.carry_auto;
}

static int engine_start(struct engine *e, const struct engine_config *cfg, struct error *err)
{
	struct process *p;
	struct task *t;
	uint64_t cpu0 = 0;

	e->cfg.period_ns = engine_period_ns(cfg->hz);
	e->cfg.start_ns = cfg->start_ns;
	e->cfg.pmus = cfg->pmus;
	e->cfg.stacks = cfg->stacks;
	e->cfg.window = cfg->window;
	e->cfg.root_pid = cfg->root;
	e->cfg.follow_cpu = cfg->follow_cpu;
	e->cfg.stop_every = cfg->stop_every;
	e->cfg.clock_period_ns = cfg->clock_period_ns;
	e->cfg.precise = cfg->precise;
	e->cfg.check_carried = cfg->check_carried;
	e->out.writer = cfg->writer;
	e->loop.cpu = -1;
	e->stats.ncpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
	e->cfg.carry_preempted = e->stats.carry_on = carry_preempted(e, cfg);
	tasks_init(&e->tasks, e->cfg.pmus->nthread);
	idmap_init(&e->tree.orphans, sizeof(pid_t));
	if (!e->cfg.period_ns)
		return error_set(err, "bad frequency %g Hz (use %g to %g Hz)", cfg->hz,
				 1e9 / ENGINE_MAX_PERIOD_NS, 1e9 / ENGINE_MIN_PERIOD_NS);
	procfs_raise_fd_limit();
	sigemptyset(&e->snap.chld_set);
	sigaddset(&e->snap.chld_set, SIGCHLD);
	signals_wait_set(&e->loop.wait_set);
	if (record_init(e, err) < 0)
		return -1;
	if (cfg->attached)
		return adopt_attached(e, cfg->attached, err);
	/* Only for a command of ours: its every thread is ours, so a thread
	 * found untraced in its process after a move is one to seize
	 * (seize_strays).  And only at real-time priority, where the tracer
	 * that seizes a moving thread cannot be kept off its CPU by the target
	 * while that thread runs untraced. */
	if (cfg->tracers > 1 && !realtime())
		e->stats.tracers_refused = true;
	else if (cfg->tracers > 1 && !(e->rounds.tracers = tracers_new(cfg->tracers, err)))
		return -1;
	if (!(e->rounds.round = calloc((size_t)tracers_count(e->rounds.tracers), 1)))
		return error_set(err, "out of memory");
	e->rounds.next = 1 % tracers_count(e->rounds.tracers);
	e->rounds.seize_options = LAUNCH_PTRACE_OPTIONS;
	p = add_process(e, cfg->root, 0);
	t = p ? add_thread(e, cfg->root, p, TASK_STOPPED) : NULL;
	if (!t)
		return error_set(err, "out of memory");
	if (e->stats.pmu_failed) {
		*err = e->stats.pmu_err;
		return error_prefix(err, "cannot follow the target");
	}
	/* Its CPU time counts from here, as its counters do: what the child
	 * spent before (the sampler's fork, the execve) is not the program's. */
	read_cpu(e, t, &cpu0);
	t->cpu_offset = -(int64_t)cpu0;
	events_resume(e, t);		/* out of its exec stop: the run begins */
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

/* The statistics are counted in place (struct engine): what is left is
 * what only the end knows, and the profile's stats record. */
int engine_finish(struct engine *e, struct engine_stats *stats, struct error *err)
{
	struct engine_stats *st = &e->stats;
	uint64_t end = e->tree.end_ns;

	st->profile.wall_ns = end > e->cfg.start_ns ? end - e->cfg.start_ns : 0;
	channel_totals(e);
	st->tracers = tracers_count(e->rounds.tracers);
	if (!e->cfg.window)
		st->sampled_ns = st->profile.wall_ns;
	else if (e->loop.enabled && end > e->loop.enabled_at)
		st->sampled_ns += end - e->loop.enabled_at;	/* the window still open */
	if (e->cfg.stacks) {
		st->stacks = callstack_stats(e->cfg.stacks)->stacks;
		st->stacks_short = callstack_stats(e->cfg.stacks)->short_of_files;
	}
	if (e->out.writer) {
		struct profile_writer *w = e->out.writer;

		e->out.writer = NULL;
		if (profile_writer_finish(w, &st->profile, &st->profile_bytes, &e->out.write_err) < 0)
			e->out.write_failed = true;
	}
	*stats = *st;
	if (e->out.write_failed) {
		*err = e->out.write_err;
		return -1;
	}
	return 0;
}

void engine_free(struct engine *e)
{
	if (!e)
		return;
	tasks_free(&e->tasks);
	idmap_free(&e->tree.orphans);
	tracers_free(e->rounds.tracers);	/* nothing is traced by now */
	free(e->rounds.round);
	snapshot_free(e);
	record_free(e);
	free(e);
}
