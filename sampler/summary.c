/* summary.c - the end of a run on stderr.
 *
 * The rate warning says what the sampler measured, so that its advice fits
 * the run.  A thread that a stop found in user code (or waiting for a CPU)
 * was running: running threads compete with a normal-priority sampler for
 * the CPUs, and lowering the target's priority (--idle, --nice) gives the
 * sampler its CPU back.  A thread that a stop found in a blocking system
 * call was blocked: it takes no CPU, but still has to wake up and report its
 * stop, so the time a sample holds the target grows with the number of
 * threads, and only fewer threads or a longer period help.  Samples late
 * though the stops were short: a sampler that used half a CPU or more
 * (--tracers spinning, say) was the load itself, and says so; else the
 * load came from elsewhere.  Where other tasks waited for a CPU (the
 * kernel's CPU pressure over the run) and the target was held 10% of the
 * time or more, the contention is named instead, rate kept or not: a
 * stopped thread that waits for a CPU reaches its stop only once it gets
 * one, and carrying it (--carry-preempted) is the fix.
 */
#include "summary.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "../common/error.h"

/* A run of fewer slots says too little about its rate (its first sample
 * comes one period after the start). */
#define RATE_MIN_SLOTS 20
/* A sample that holds the target this share of the period or more is the
 * bottleneck itself. */
#define STOP_SHARE_LIMIT 0.5
/* A sampler that used this share of one CPU over the run or more is the
 * load that made its samples late: 1 kHz on one thread costs 2-7% (20-65
 * us a sample), and two tracers on 2 CPUs took 3.1 s of CPU in 3 s. */
#define OWN_SHARE_LIMIT 0.5

/* A target held stopped this share of the time or more is slowed by the
 * sampler enough to say why (issue 47: 10% at 1 kHz)... */
#define HELD_WARN_SHARE 0.1
/* ...and when tasks waited for a CPU this share of the run (PSI), the
 * contention is the cause: a thread interrupted while it waits reaches its
 * stop only once it gets a CPU. */
#define CONTENTION_SHARE 0.2

/* What the rate warning and -d report, from the engine's counts. */
struct rate {
	double wall_s;		/* of the run */
	double achieved;	/* slots served per second */
	double threads;		/* per sample, mean */
	double running;		/* of them, not blocked in a system call at the stop */
	double stop_us;		/* per sample, mean time the target was held stopped */
	double pmu_us;		/* of it, reading the per-sample channels */
	double held_share;	/* of the run's time, the target held stopped */
	double own_share;	/* of one CPU over the run, the sampler's own CPU time */
	double own_us;		/* the sampler's own CPU time per slot */
};

static void measure(const struct engine_stats *st, struct rate *r)
{
	const struct profile_stats *p = &st->profile;
	double samples = (double)p->samples;
	double slots = (double)(p->samples + st->held_slots);

	/* the rate is the one asked for while sampling was on (windows) */
	r->wall_s = (double)st->sampled_ns / 1e9;
	/* a slot in which job control held every thread is served, too */
	r->achieved = r->wall_s > 0 ? slots / r->wall_s : 0;
	r->threads = samples > 0 ? (double)p->thread_samples / samples : 0;
	r->running = samples > 0 ?
		(double)(p->thread_samples - st->blocked_thread_samples) / samples : 0;
	r->stop_us = slots > 0 ? (double)p->latency_ns / slots / 1e3 : 0;
	r->pmu_us = slots > 0 ? (double)st->pmu_read_ns / slots / 1e3 : 0;
	r->held_share = st->sampled_ns ? (double)p->latency_ns / (double)st->sampled_ns : 0;
	r->own_share = p->wall_ns ? (double)st->own_cpu_ns / (double)p->wall_ns : 0;
	r->own_us = slots > 0 ? (double)st->own_cpu_ns / slots / 1e3 : 0;
}

/* The largest of 1, 2 and 5 times a power of ten not above x: a frequency
 * to suggest. */
static double round_down_125(double x)
{
	double p;

	if (!(x >= 1e9 / ENGINE_MAX_PERIOD_NS))
		return 1e9 / ENGINE_MAX_PERIOD_NS;
	p = pow(10, floor(log10(x)));
	return x >= 5 * p ? 5 * p : x >= 2 * p ? 2 * p : p;
}

static const char *fmt_hz(char *buf, size_t size, double hz)
{
	snprintf(buf, size, hz >= 100 ? "%.0f" : "%.3g", hz);
	return buf;
}

/* When CPU contention held the target: its cause and fix into out. */
static bool contention_advice(const struct engine_stats *st, const struct rate *r,
			      char *out, size_t size)
{
	const char *fix;

	if (r->held_share < HELD_WARN_SHARE || st->cpu_wait_share < CONTENTION_SHARE)
		return false;
	if (st->carry_on && st->carry_refused)
		fix = "the kernel refused the context-switch samples that would carry the threads "
		      "waiting for a CPU (they need root, CAP_PERFMON or kernel.perf_event_paranoid 1 "
		      "or lower); grant one, or use a lower -f";
	else if (!st->carry_on)
		fix = "use --carry-preempted (threads that wait for a CPU are then carried, not "
		      "stopped), or a lower -f";
	else
		fix = "the threads on a CPU are stopped, those waiting for one carried; use a lower -f, "
		      "or run the target on CPUs of its own";
	snprintf(out, size, "tasks waited for a CPU %.0f%% of the run (the kernel's CPU pressure), "
		 "and a thread interrupted while it waits reaches its stop only once it gets one; %s",
		 100 * st->cpu_wait_share, fix);
	return true;
}

/* The reason for a low rate and its fix, from what was measured. */
static void rate_advice(const struct summary_run *run, const struct engine_stats *st,
			const struct rate *r, char *out, size_t size)
{
	double period_us = 1e6 / run->hz;
	char lower[32];

	if (r->running >= st->ncpus && !run->tuned->realtime && !run->tune->idle) {
		snprintf(out, size, "%.1f running threads on %d CPUs left the sampler, at normal priority, too little CPU; run the target with %s, or the sampler as root",
			 r->running, st->ncpus,
			 run->tune->nice == TUNE_NICE_NONE ? "--idle or --nice 19" : "--idle");
	} else if (contention_advice(st, r, out, size)) {
		return;
	} else if (r->stop_us >= STOP_SHARE_LIMIT * period_us) {
		fmt_hz(lower, sizeof(lower), round_down_125(STOP_SHARE_LIMIT * 1e6 / r->stop_us));
		if (r->pmu_us >= STOP_SHARE_LIMIT * r->stop_us)
			snprintf(out, size, "reading the PMU channels took %.0f us of each %.0f us period (a slow or absent device); use -f %s or lower",
				 r->pmu_us, period_us, lower);
		else
			snprintf(out, size, "stopping %.0f thread%s took %.0f us of each %.0f us period; profile fewer threads, or use -f %s or lower",
				 r->threads, r->threads < 1.5 ? "" : "s", r->stop_us, period_us, lower);
	} else {
		fmt_hz(lower, sizeof(lower), round_down_125(r->achieved));
		if (r->own_share >= OWN_SHARE_LIMIT && st->tracers > 1)
			snprintf(out, size, "samples came late: the sampler itself used %.1f s of CPU in %.1f s, its %d tracers competing with the target for %d CPUs; use fewer --tracers, or -f %s or lower",
				 (double)st->own_cpu_ns / 1e9, (double)st->profile.wall_ns / 1e9,
				 st->tracers, st->ncpus, lower);
		else if (r->own_share >= OWN_SHARE_LIMIT)
			snprintf(out, size, "samples came late: the sampler itself used %.1f s of CPU in %.1f s (%.0f us a sample, of a %.0f us period); use -f %s or lower",
				 (double)st->own_cpu_ns / 1e9, (double)st->profile.wall_ns / 1e9,
				 r->own_us, period_us, lower);
		else if (run->tuned->realtime)
			snprintf(out, size, "samples came late though a stop took %.0f us of each %.0f us period on average (other load on the machine?); use -f %s or lower",
				 r->stop_us, period_us, lower);
		else
			snprintf(out, size, "samples came late: the sampler, at normal priority, got too little CPU; use -f %s or lower, or run the sampler as root",
				 lower);
	}
}

/* One line when the run fell short of its target frequency, like perf's
 * warning about lost samples. */
static bool warn_rate(const char *prog, const struct summary_run *run,
		      const struct engine_stats *st)
{
	char advice[512], achieved[32], target[32];
	struct rate r;

	measure(st, &r);
	if (run->failed || r.wall_s * run->hz < RATE_MIN_SLOTS ||
	    r.achieved >= SUMMARY_RATE_WARN_SHARE * run->hz)
		return false;
	rate_advice(run, st, &r, advice, sizeof(advice));
	warn_print(prog, "sampled at %s Hz, %.0f%% of the %s Hz asked (per sample: %.1f threads, %.1f running and %.1f blocked, held stopped %.0f us; the target was held stopped %.0f%% of the time): %s",
		   fmt_hz(achieved, sizeof(achieved), r.achieved), 100 * r.achieved / run->hz,
		   fmt_hz(target, sizeof(target), run->hz), r.threads, r.running,
		   r.threads - r.running, r.stop_us, 100 * r.held_share, advice);
	return true;
}

/* The rate kept, but the target held stopped much of the time under CPU
 * contention: one line with the cause measured and the fix. */
static void warn_held(const char *prog, const struct summary_run *run,
		      const struct engine_stats *st)
{
	char advice[512];
	struct rate r;

	measure(st, &r);
	if (run->failed || r.wall_s * run->hz < RATE_MIN_SLOTS ||
	    !contention_advice(st, &r, advice, sizeof(advice)))
		return;
	warn_print(prog, "the target was held stopped %.0f%% of the time (%.0f us per sample): %s",
		   100 * r.held_share, r.stop_us, advice);
}

/* What --carry-preempted auto chose, where it carried a share of the
 * thread-samples worth a line (a thread preempted once at its start is
 * not): one line.  -d says it for every run. */
#define CARRY_SAY_SHARE 0.1

static void say_carry(const char *prog, const struct engine_stats *st)
{
	char why[128];

	if (!st->carry_auto || st->carry_refused ||
	    (double)st->carried_waiting < CARRY_SAY_SHARE * (double)st->profile.thread_samples)
		return;
	if (st->carry_busy_share >= 0)
		snprintf(why, sizeof(why), "other tasks waited for a CPU %.0f%% of the 10 s before the "
			 "start, %d ran on the %d CPUs", 100 * st->carry_busy_share, st->carry_runnable,
			 st->ncpus);
	else
		snprintf(why, sizeof(why), "%d other tasks ran on the %d CPUs at the start",
			 st->carry_runnable, st->ncpus);
	fprintf(stderr, "%s: %" PRIu64 " thread-samples of threads that waited for a CPU carried, "
		"not stopped: %s (--carry-preempted auto; =never stops them)\n", prog,
		st->carried_waiting, why);
}

/* A source that stops answering or disappears mid-run does not stop the run
 * (its samples carry NaN); say so once per channel. */
static void warn_readings(const char *prog, const struct summary_run *run,
			  const struct engine_stats *st)
{
	const struct profile_info *info = run->info;

	if (st->pmu_failed)
		warn_print(prog, "PMU readings missing: %s", st->pmu_err.msg);
	for (uint32_t i = 0; i < info->nchannels; i++) {
		const struct channel_desc *c = &info->channels[i];

		if (c->scope == CHANNEL_PER_SAMPLE && st->channel_missing[i])
			warn_print(prog, "%s: channel '%s': %" PRIu64 " of %" PRIu64
				   " readings missing (the device did not answer in time, sent no usable "
				   "reading or went away; those samples carry no value, see stats missing=)",
				   c->source, c->name, st->channel_missing[i], st->profile.samples);
	}
	for (uint32_t i = 0; i < info->nchannels; i++) {
		char line[512];

		channel_refused_warning(&info->channels[i], &st->channel_refused[i], line,
					sizeof(line));
		if (line[0])
			warn_print(prog, "%s", line);
	}
}

/* The sampler ran out of file descriptors (a low ulimit -n): one line
 * with what it cost and the fix.  A CPU-time reading that failed kept the
 * thread's previous value, so those thread-samples count no CPU time. */
static void warn_descriptors(const char *prog, const struct engine_stats *st)
{
	char limit[32] = "", cpu[128] = "", files[160] = "";
	struct rlimit lim;

	if (!st->cpu_unread_fds && !st->stacks_short)
		return;
	if (getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY)
		snprintf(limit, sizeof(limit), " (limit %llu)", (unsigned long long)lim.rlim_cur);
	if (st->cpu_unread_fds)
		snprintf(cpu, sizeof(cpu), "%" PRIu64 " CPU-time readings failed (those thread-samples "
			 "count no CPU time)%s", st->cpu_unread_fds, st->stacks_short ? ", " : "");
	if (st->stacks_short)
		snprintf(files, sizeof(files), "%" PRIu64 " of %" PRIu64 " call stacks end at a "
			 "file it could not keep open (their outer frames are unknown)",
			 st->stacks_short, st->stacks);
	warn_print(prog, "out of file descriptors%s: %s%s; raise the limit, e.g. ulimit -n 4096",
		   limit, cpu, files);
}

static void print_debug(const struct summary_run *run, const struct engine_stats *st)
{
	const struct profile_stats *p = &st->profile;
	double hz = run->hz;
	struct rate r;

	measure(st, &r);
	fprintf(stderr,
		"sampler: wall time: %.6f s actual, %.6f s ideal (samples / frequency)\n"
		"sampler: samples: %" PRIu64 " actual, %.0f ideal (wall time x frequency), %" PRIu64 " missed slots\n"
		"sampler: frequency: %.3f Hz target, %.3f Hz achieved (%.1f%%)\n"
		"sampler: stop latency: %.6f s total, %.2f us per sample (mean, %.2f us of it reading PMU channels); target held stopped %.1f%% of the time\n"
		"sampler: threads: %" PRIu32 " seen, %" PRIu64 " thread-samples; processes: %" PRIu32 " seen\n"
		"sampler: threads per sample: %.1f, %.1f running and %.1f blocked (in a system call at the stop)\n"
		"sampler: stops: %" PRIu64 " threads stopped, %" PRIu64 " thread-samples taken without a stop"
		" (%" PRIu64 " checked, %" PRIu64 " wrong)\n"
		"sampler: own CPU time: %.6f s, %.1f us per sample, %.2f us per thread stopped; on the engine's thread %.2f us per thread stopped (the cost model of docs/SCALING.md)\n"
		"sampler: tracers: %d, threads moved to another at their first stop: %" PRIu64
		" (threads they started untraced meanwhile, seized: %" PRIu64 ")\n"
		"sampler: signals delivered to the target: %" PRIu64 "\n"
		"sampler: profile: %" PRIu64 " bytes, %.2f bytes per thread-sample%s\n"
		"sampler: scheduling: %s\n",
		r.wall_s, (double)p->samples / hz,
		p->samples, r.wall_s * hz, p->missed_slots,
		hz, r.achieved, 100.0 * r.achieved / hz,
		(double)p->latency_ns / 1e9, r.stop_us, r.pmu_us, 100 * r.held_share,
		p->threads_seen, p->thread_samples, p->processes_seen,
		r.threads, r.running, r.threads - r.running,
		st->stops, st->carried, st->carried_checked, st->carried_wrong,
		(double)st->own_cpu_ns / 1e9,
		p->samples ? (double)st->own_cpu_ns / 1e3 / (double)p->samples : 0,
		st->stops ? (double)st->own_cpu_ns / 1e3 / (double)st->stops : 0,
		st->stops ? (double)st->engine_cpu_ns / 1e3 / (double)st->stops : 0,
		st->tracers, st->moved, st->strays,
		p->signals_delivered,
		run->bytes, p->thread_samples ? (double)run->bytes / (double)p->thread_samples : 0,
		run->written ? "" : " (no -o: nothing written)",
		run->tuned->summary);
	if (st->sampled_ns != p->wall_ns)
		fprintf(stderr, "sampler: sampling windows: %.6f s of the run's %.6f s (the times and rates above are within them)\n",
			(double)st->sampled_ns / 1e9, (double)p->wall_ns / 1e9);
	if (st->held_slots)
		fprintf(stderr, "sampler: slots in which job control held every thread (served): %" PRIu64 "\n",
			st->held_slots);
	if (st->cpu_unread)
		fprintf(stderr, "sampler: CPU-time readings that failed (the previous value kept): %" PRIu64
			", %" PRIu64 " of them for want of a descriptor\n", st->cpu_unread, st->cpu_unread_fds);
	if (st->stuck_samples)
		fprintf(stderr, "sampler: samples that left out a thread which did not stop within 1 s: %" PRIu64 "\n",
			st->stuck_samples);
	fprintf(stderr, "sampler: stops of running threads: %" PRIu64 ", %" PRIu64
		" of them at a system call's return (%.1f%%)\n", st->running_stops, st->syscall_stops,
		st->running_stops ? 100.0 * (double)st->syscall_stops / (double)st->running_stops : 0);
	if (run->info->clock)
		fprintf(stderr, "sampler: clock samples: %" PRIu64 " (every %.0f us of a thread's CPU time), "
			"%" PRIu64 " thread-samples lost theirs, %" PRIu64 " threads refused\n",
			st->clock_samples, (double)run->info->clock_period_ns / 1e3, st->clock_lost,
			st->clock_refused);
	fprintf(stderr, "sampler: threads waiting for a CPU: %s, %" PRIu64 " thread-samples of them carried\n",
		!st->carry_on ? "stopped" : st->carry_refused ? "stopped (the kernel refused their switch samples)" :
		st->carry_auto ? "carried (auto: the machine was busy)" : "carried", st->carried_waiting);
	if (st->precise_from)
		fprintf(stderr, "sampler: precise stops: on from sample %" PRIu64 " (CPUs held %" PRIu64
			" times, %" PRIu64 " of them let go unreleased)\n",
			st->precise_from, st->precise_holds, st->precise_timeouts);
	else
		fprintf(stderr, "sampler: precise stops: %s\n", st->precise_busy ?
			"left off (the machine was busy)" : st->precise_refused ?
			"refused (not at real-time priority, or one CPU)" : "off");
}

/* What --precise-stops auto chose, when it chose: one line, -d or not. */
static void say_precise(const char *prog, const struct engine_stats *st)
{
	if (!st->precise_late_share)
		return;
	if (st->precise_from)
		fprintf(stderr, "%s: precise stops on from sample %" PRIu64 ": %.0f%% of the stops of "
			"running threads came at a system call's return, late (--precise-stops auto; "
			"never keeps them off)\n", prog, st->precise_from,
			100 * st->precise_late_share);
	else if (st->precise_busy)
		fprintf(stderr, "%s: precise stops left off: %.0f%% of the stops of running threads came "
			"at a system call's return, late, but other tasks waited for a CPU %.0f%% of the "
			"time, where taking every CPU would hold the target (--precise-stops always "
			"forces them)\n", prog, 100 * st->precise_late_share,
			100 * st->precise_busy_share);
}

void summary_print(const char *prog, const struct summary_run *run,
		   const struct engine_stats *st)
{
	warn_readings(prog, run, st);
	warn_descriptors(prog, st);
	if (st->carry_refused && !st->carry_auto)
		warn_print(prog, "--carry-preempted: the kernel refused the context-switch samples "
			   "(they need root, CAP_PERFMON or kernel.perf_event_paranoid 1 or lower); "
			   "threads that waited for a CPU were stopped");
	if (st->clock_refused)
		warn_print(prog, "the kernel refused to sample %" PRIu64 " thread%s on its CPU clock (%s; "
			   "kernel.perf_event_paranoid 3, or the perf mlock budget, "
			   "kernel.perf_event_mlock_kb, spent by many threads): their CPU time is charged "
			   "where the samples found them, as with --no-cpu-clock",
			   st->clock_refused, st->clock_refused == 1 ? "" : "s", strerror(st->clock_errno));
	if (st->tracers_refused)
		warn_print(prog, "--tracers: the sampler does not run at real-time priority (as root it does "
			   "unless --no-realtime), so one tracer followed every thread: a thread that moves "
			   "to another tracer runs untraced meanwhile, which only real-time priority keeps "
			   "short enough");
	say_precise(prog, st);
	say_carry(prog, st);
	if (!warn_rate(prog, run, st))
		warn_held(prog, run, st);
	if (run->debug)
		print_debug(run, st);
}
