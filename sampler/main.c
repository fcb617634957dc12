/* main.c - sampler: command line, set-up, exit status.
 *
 *   sampler [options] -- command [arguments]
 *   sampler top [options] -- command [arguments]   (top/top.h)
 *
 * Exit status: the target's own; 128+N when it died of signal N; 125 for the
 * sampler's own failure; 126 command not executable; 127 command not found.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../common/error.h"
#include "../common/outfile.h"
#include "../common/parseopt.h"
#include "../common/stdfds.h"
#include "../pmu/pmu.h"
#include "../profile/profile.h"
#include "../top/top.h"
#include "callstack.h"
#include "cpuclock.h"
#include "engine.h"
#include "attach.h"
#include "host.h"
#include "job.h"
#include "launch.h"
#include "signals.h"
#include "summary.h"
#include "tune.h"
#include "tracers.h"
#include "window.h"

#define PROG "sampler"
#define EXIT_SAMPLER_FAILED 125

struct options {
	const char *output;
	bool force;			/* --force: no OUTPUT.old */
	double hz;
	const char *pmu_specs[PMU_SET_MAX];
	size_t npmu;
	bool debug;
	bool stop_all;
	enum engine_carry carry;
	bool no_cpu_clock;
	enum engine_precise precise;
	int tracers;
	enum profile_format format;
	struct tune tune;
	struct window_options window;
	pid_t attach_ids[ATTACH_MAX_IDS];	/* --pid or --tid */
	size_t nattach;
	bool attach_threads;		/* --tid */
	struct callstack_options stacks;
	char **command;
};

/* Everything main owns during a run. */
struct context {
	struct options opt;
	struct pmu_set pmus;
	struct callstack *stacks;	/* -g: NULL without */
	struct profile_info info;
	struct outfile *out;		/* opened before the target starts */
	struct job job;
	char *output;			/* opt.output with its patterns expanded */
	struct window window;
	struct attach_list attached;	/* --pid/--tid: what was seized */
	struct profile_writer *writer;	/* until the engine takes it */
	struct tune_state tuned;
	pid_t target;
	int argc;
	char **argv;
};

/* ---- the command line (common/parseopt.h) ------------------------------- */

#define STR_(x) #x
#define STR(x) STR_(x)

static int opt_frequency(const struct parseopt *o, const char *arg, void *ctx, struct error *err)
{
	struct options *opt = ctx;
	char *end;
	double v;

	(void)o;
	errno = 0;
	v = strtod(arg, &end);
	if (errno || end == arg || *end || engine_period_ns(v) == 0)
		return error_set(err, "bad frequency '%s' (use a number of Hz from %g to %g, e.g. -f 1000)",
				 arg, 1e9 / ENGINE_MAX_PERIOD_NS, 1e9 / ENGINE_MIN_PERIOD_NS);
	opt->hz = v;
	return 0;
}

/* perf record's -F is our -f: say so, with the value given. */
static int opt_perf_frequency(const struct parseopt *o, const char *arg, void *ctx,
			      struct error *err)
{
	(void)o;
	(void)ctx;
	return error_set(err, "unknown option '-F': the sampling frequency is -f (use -f %s)",
			 arg ? arg : "HZ");
}

static int opt_pmu(const struct parseopt *o, const char *arg, void *ctx, struct error *err)
{
	struct options *opt = ctx;

	(void)o;
	if (strcmp(arg, "help") == 0) {
		pmu_print_help(stdout);
		return 1;
	}
	if (strncmp(arg, "help=", 5) == 0)
		return pmu_check(arg + 5, stdout, err) < 0 ? -1 : 1;
	if (arg[strspn(arg, "0123456789")] == '\0')
		return error_set(err, "-p %s: -p names a PMU plug-in, not a process (to attach, use --pid %s)",
				 arg, arg);
	if (opt->npmu >= PMU_SET_MAX)
		return error_set(err, "too many -p options (at most %d)", PMU_SET_MAX);
	opt->pmu_specs[opt->npmu++] = arg;
	return 0;
}

static int opt_stacks(const struct parseopt *o, const char *arg, void *ctx, struct error *err)
{
	struct options *opt = ctx;

	if (o->short_name == 'g') {
		callstack_enable(&opt->stacks);
		return 0;
	}
	if (strcmp(o->long_name, "max-stack") == 0)
		return callstack_parse_max_stack(&opt->stacks, arg, err);
	return callstack_parse_mode(&opt->stacks, arg, err);
}

static int opt_format(const struct parseopt *o, const char *arg, void *ctx, struct error *err)
{
	struct options *opt = ctx;

	(void)o;
	if (strcmp(arg, "native") == 0)
		opt->format = PROFILE_FORMAT_NATIVE;
	else if (strcmp(arg, "pperf") == 0)
		opt->format = PROFILE_FORMAT_PPERF;
	else
		return error_set(err, "unknown profile format '%s' (use --format native or --format pperf)",
				 arg);
	return 0;
}

/* --fifo PRIO, --rr PRIO, --no-realtime */
static int opt_sched(const struct parseopt *o, const char *arg, void *ctx, struct error *err)
{
	struct options *opt = ctx;

	opt->tune.sched = (enum tune_sched)o->value;
	return arg ? tune_parse_prio(arg, &opt->tune.prio, err) : 0;
}

static int opt_cpu(const struct parseopt *o, const char *arg, void *ctx, struct error *err)
{
	(void)o;
	return tune_parse_cpu(arg, &((struct options *)ctx)->tune.cpu, err);
}

static int opt_qos(const struct parseopt *o, const char *arg, void *ctx, struct error *err)
{
	(void)arg;
	(void)err;
	((struct options *)ctx)->tune.qos = (enum tune_qos)o->value;
	return 0;
}

static int opt_idle(const struct parseopt *o, const char *arg, void *ctx, struct error *err)
{
	(void)o;
	(void)arg;
	(void)err;
	((struct options *)ctx)->tune.idle = 1;
	return 0;
}

static int opt_nice(const struct parseopt *o, const char *arg, void *ctx, struct error *err)
{
	(void)o;
	return tune_parse_nice(arg, &((struct options *)ctx)->tune.nice, err);
}

static int opt_carry(const struct parseopt *o, const char *arg, void *ctx, struct error *err)
{
	static const char *const names[] = {
		[CARRY_AUTO] = "auto", [CARRY_ALWAYS] = "always", [CARRY_NEVER] = "never",
	};

	(void)o;
	if (!arg)
		arg = "always";
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i] && strcmp(arg, names[i]) == 0) {
			((struct options *)ctx)->carry = (enum engine_carry)i;
			return 0;
		}
	return error_set(err, "bad --carry-preempted '%s' (use auto, always or never)", arg);
}

static int opt_precise(const struct parseopt *o, const char *arg, void *ctx, struct error *err)
{
	static const char *const names[] = {
		[PRECISE_AUTO] = "auto", [PRECISE_ALWAYS] = "always", [PRECISE_NEVER] = "never",
	};

	(void)o;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i] && strcmp(arg, names[i]) == 0) {
			((struct options *)ctx)->precise = (enum engine_precise)i;
			return 0;
		}
	return error_set(err, "bad --precise-stops '%s' (use auto, always or never)", arg);
}

static int opt_tracers(const struct parseopt *o, const char *arg, void *ctx, struct error *err)
{
	(void)o;
	return tracers_parse(arg, &((struct options *)ctx)->tracers, err);
}

/* --delay, --duration */
static int opt_window(const struct parseopt *o, const char *arg, void *ctx, struct error *err)
{
	struct window_options *w = &((struct options *)ctx)->window;
	bool delay = strcmp(o->long_name, "delay") == 0;

	return window_parse_seconds(delay ? "--delay" : "--duration", arg, delay,
				    delay ? &w->delay_s : &w->duration_s, err);
}

/* --pid, --tid (value: threads only) */
static int opt_attach(const struct parseopt *o, const char *arg, void *ctx, struct error *err)
{
	struct options *opt = ctx;

	if (opt->nattach)
		return error_set(err, "give one --pid or --tid list (comma-separated ids)");
	opt->attach_threads = o->value;
	return attach_parse_ids(o->value ? "--tid" : "--pid", arg, opt->attach_ids, &opt->nattach,
				err);
}

static const struct parseopt sampler_opts[] = {
	OPT_STRING('o', "output", "FILE", struct options, output,
		   "write the profile to FILE (FILE.bz2: compressed; -: stdout,\n"
		   "and the command's stdout then goes to stderr); an existing\n"
		   "FILE is kept as FILE.old; without -o nothing is written.\n"
		   "In FILE, %r is the MPI/Slurm rank (needed under a launcher),\n"
		   "%h the host, %p the sampler's pid, %t the start time\n"
		   "(UTC), %% a percent sign"),
	OPT_BOOL(0, "force", struct options, force, true, "replace FILE without keeping FILE.old"),
	OPT_CALL('f', "frequency", "HZ", opt_frequency, 0,
		 "samples per second, 0.001 to 100000 (default 1000)"),
	OPT_CALL('p', "pmu-arg", "SPEC", opt_pmu, 0,
		 "PMU plug-in NAME[:ARGS], repeatable (-p help lists them)"),
	OPT_BOOL('d', "debug", struct options, debug, true, "print run statistics on stderr at the end"),
	OPT_CALL('g', NULL, NULL, opt_stacks, 0, "record call stacks (--call-graph dwarf)"),
	OPT_CALL(0, "call-graph", "MODE[,SIZE]", opt_stacks, 0,
		 "record call stacks, unwound with frame\n"
		 "pointers (fp) or with CFI (dwarf) from SIZE bytes of\n"
		 "stack copied per thread (default " STR(CALLSTACK_DEFAULT_SIZE) ", at most "
		 STR(CALLSTACK_MAX_SIZE) ")"),
	OPT_CALL(0, "max-stack", "N", opt_stacks, 0,
		 "at most N frames per stack (default " STR(CALLSTACK_DEFAULT_MAX_STACK) ")"),
	OPT_CALL(0, "format", "FORMAT", opt_format, 0,
		 "native (default) or pperf (the original tool's layout)"),
	OPT_CALL(0, "fifo", "PRIO", opt_sched, TUNE_SCHED_FIFO,
		 "run the sampler at SCHED_FIFO PRIO (default when permitted: "
		 STR(TUNE_DEFAULT_PRIO) ")"),
	OPT_CALL(0, "rr", "PRIO", opt_sched, TUNE_SCHED_RR, "run the sampler at SCHED_RR PRIO"),
	OPT_CALL(0, "no-realtime", NULL, opt_sched, TUNE_SCHED_OTHER,
		 "keep the sampler at normal priority"),
	OPT_CALL(0, "cpu", "N|auto|none", opt_cpu, 0,
		 "pin the sampler to CPU N, or follow the target's\n"
		 "threads (auto); default none"),
	OPT_CALL(0, "latency-qos", NULL, opt_qos, TUNE_QOS_ON,
		 "keep idle CPUs awake (CPU latency request 0) while\n"
		 "sampling; default when permitted (root)"),
	OPT_CALL(0, "no-latency-qos", NULL, opt_qos, TUNE_QOS_OFF, "do not"),
	OPT_BOOL(0, "stop-all", struct options, stop_all, true,
		 "stop every thread at every sample; by default a thread\n"
		 "that has not run since the previous sample is not\n"
		 "stopped (its PC and CPU time cannot have changed)"),
	{ .kind = PARSEOPT_CALL, .long_name = "carry-preempted", .argh = "auto|always|never",
	  .fn = opt_carry, .flags = PARSEOPT_ATTACHED,
	  .help = "do not stop threads that wait\n"
		  "for a CPU either: take their PC from the kernel's\n"
		  "sample at their switch out (needs root, CAP_PERFMON\n"
		  "or perf_event_paranoid <= 1); auto (the default):\n"
		  "when other tasks waited for a CPU at the start\n"
		  "(docs/SCALING.md); alone: always" },
	OPT_BOOL(0, "no-cpu-clock", struct options, no_cpu_clock, true,
		 "charge a thread's CPU time to where the samples find\n"
		 "it, not to where the kernel's samples of its own CPU\n"
		 "clock found it running (the default: README.md)"),
	OPT_CALL(0, "precise-stops", "auto|always|never", opt_precise, 0,
		 "take each CPU that may run the\n"
		 "target with a thread of the sampler just before a\n"
		 "sample, so that a stop finds a thread where it was,\n"
		 "not at its next system call (real-time priority;\n"
		 "auto: at 2 kHz or slower, once 5% of the stops\n"
		 "land at one; default)"),
	OPT_CALL(0, "tracers", "N|auto", opt_tracers, 0,
		 "share the command's threads among N tracing threads\n"
		 "(auto: one per CPU; default 1), which stop, read and\n"
		 "continue them in parallel (many cores; docs/SCALING.md)"),
	OPT_CALL(0, "pid", "PID[,PID...]", opt_attach, false,
		 "attach to running processes (all their threads, and\n"
		 "the threads and children they create) until they exit,\n"
		 "Ctrl-C or --duration; then detach, leaving them running"),
	OPT_CALL(0, "tid", "TID[,TID...]", opt_attach, true, "attach to these threads only"),
	OPT_CALL(0, "delay", "SECONDS", opt_window, 0,
		 "sample only after SECONDS (the program runs meanwhile);\n"
		 "-1: only once enabled through --control"),
	OPT_CALL(0, "duration", "SECONDS", opt_window, 0,
		 "stop sampling SECONDS after it began (a command\n"
		 "runs on to its end; an attached one is let go)"),
	OPT_STRING(0, "control", "FIFO", struct options, window.control,
		   "'enable' and 'disable' lines written to FIFO switch\n"
		   "sampling on and off (like perf record --control)"),
	OPT_CALL(0, "idle", NULL, opt_idle, 0, "run the command at SCHED_IDLE (like chrt --idle 0)"),
	OPT_CALL(0, "nice", "N", opt_nice, 0,
		 "add N to the command's nice value (like nice -n N)\n"
		 "(without privileges, either keeps the sampling rate\n"
		 "with more busy threads than CPUs)"),
	OPT_HELP('h', "help", "show this help"),
	OPT_VERSION('V', "version", "show the version"),
	{ .kind = PARSEOPT_CALL, .short_name = 'F', .argh = "HZ", .fn = opt_perf_frequency,
	  .flags = PARSEOPT_OPTARG | PARSEOPT_HIDDEN },
	OPT_END(),
};

static const struct parseopt_cmd sampler_cmd = {
	.prog = PROG,
	.usage = "usage: sampler [options] -- command [arguments]\n"
		 "       sampler [options] --pid PID[,PID...] | --tid TID[,TID...]\n"
		 "       sampler top [options] ...   (a live view: sampler top --help)\n"
		 "Run command and stop all its threads together at a fixed frequency, recording\n"
		 "per thread its TID, PC and CPU time plus PMU readings.\n"
		 "\n",
	.footer = "\n"
		  "Exit status: the command's own, 128+N if it died of signal N, 125 if the\n"
		  "sampler failed, 126 if the command is not executable, 127 if not found.\n",
	.flags = PARSEOPT_STOP_AT_ARG,
	.opts = sampler_opts,
};

/* What the options say together, and the command. */
static int check_options(struct options *opt, const struct parseopt_rest *rest, struct error *err)
{
	if (opt->stacks.enabled && opt->format == PROFILE_FORMAT_PPERF)
		return error_set(err, "--format pperf keeps no call stacks (drop -g or --call-graph, or use the native format)");
	if (opt->nattach) {
		if (rest->nargs)
			return error_set(err, "both --pid/--tid and a command '%s' given (profile either a running process or a new command)",
					 rest->args[0]);
		if (opt->tune.idle || opt->tune.nice != TUNE_NICE_NONE)
			return error_set(err, "--idle and --nice apply to a command the sampler starts (for a running process use chrt or renice)");
		if (opt->tracers > 1)
			return error_set(err, "--tracers applies to a command the sampler starts (attached threads stay with one tracer; drop --tracers)");
		return 0;
	}
	if (!rest->nargs)
		return error_set(err, "no command to profile (usage: sampler [options] -- command [arguments], or --pid PID)");
	opt->command = rest->args;
	return 0;
}

/* 0: run; 1: done (help, version); -1: bad command line. */
static int parse_options(struct options *opt, int argc, char **argv, struct error *err)
{
	struct parseopt_rest rest;
	int rc;

	opt->hz = 1000;
	opt->format = PROFILE_FORMAT_NATIVE;
	tune_default(&opt->tune);
	callstack_default(&opt->stacks);
	rc = parseopt_parse(&sampler_cmd, argc, argv, opt, &rest, err);
	return rc ? rc : check_options(opt, &rest, err);
}

static int setup_pmus(struct context *ctx, struct error *err)
{
	if (ctx->opt.npmu == 0)
		ctx->opt.pmu_specs[ctx->opt.npmu++] = "none";
	for (size_t i = 0; i < ctx->opt.npmu; i++)
		if (pmu_set_add(&ctx->pmus, ctx->opt.pmu_specs[i], err) < 0)
			return -1;
	return 0;
}

/* The rank, job and host of this run, and -o with its patterns expanded:
 * launchers start one sampler per rank, each naming its own profile. */
static int name_output(struct context *ctx, struct error *err)
{
	struct timespec now;

	if (job_detect(&ctx->job, err) < 0)
		return -1;
	if (!ctx->opt.output)
		return 0;
	clock_gettime(CLOCK_REALTIME, &now);
	ctx->output = job_expand_output(ctx->opt.output, &ctx->job, getpid(),
					(uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec, err);
	return ctx->output ? 0 : -1;
}

/* --pid/--tid: seize them all, or none. */
static int attach_all(struct context *ctx, struct error *err)
{
	for (size_t i = 0; i < ctx->opt.nattach; i++)
		if (attach_seize(&ctx->attached, ctx->opt.attach_ids[i], !ctx->opt.attach_threads,
				 err) < 0) {
			attach_release(&ctx->attached);
			return -1;
		}
	ctx->target = ctx->opt.attach_ids[0];
	if (ctx->opt.debug)
		fprintf(stderr, "sampler: attach: %zu threads seized, %zu skipped (exited or exiting meanwhile)\n",
			ctx->attached.n, ctx->attached.skipped);
	/* What the threads did before the attachment is in no delta: the run
	 * is one window that starts with the attachment. */
	ctx->window.used = true;
	return 0;
}

/* Before the engine took over: a launched target must not go on, an
 * attached one goes on as it was. */
static void let_go(struct context *ctx)
{
	if (ctx->opt.nattach)
		attach_release(&ctx->attached);
	else
		launch_kill(ctx->target);
}

/* Where each thread ran in each interval is recorded for the energy
 * estimate (docs/ENERGY.md, "Where in its interval a thread ran"): with
 * a meter read per sample, from the switch rings, which --stop-all has
 * not.  It costs 2-3 bytes per thread-sample that ran (docs/FORMAT.md). */
static bool has_meter(const struct profile_info *info)
{
	for (uint32_t k = 0; k < info->nsample_channels; k++) {
		enum channel_kind kind = info->channels[info->sample_channel[k]].kind;

		if (kind == CHANNEL_ENERGY || kind == CHANNEL_POWER)
			return true;
	}
	return false;
}

static int open_writer(struct context *ctx, struct error *err)
{
	struct profile_info *info = &ctx->info;

	host_fill(&info->host, ctx->argc, ctx->argv, ctx->opt.hz);
	info->host.start_ns = host_now_ns();
	info->format = ctx->opt.format;
	info->stacks = ctx->opt.stacks.enabled;
	info->nchannels = (uint32_t)pmu_set_channels(&ctx->pmus, info->channels, PROFILE_MAX_CHANNELS);
	profile_info_index_channels(info);
	info->runs = ctx->opt.format == PROFILE_FORMAT_NATIVE && !ctx->opt.stop_all &&
		     has_meter(info);
	info->clock = ctx->opt.format == PROFILE_FORMAT_NATIVE && !ctx->opt.no_cpu_clock;
	if (info->clock)
		info->clock_period_ns = cpuclock_period_ns(profile_period_ns(ctx->opt.hz));
	memcpy(info->host.rank, ctx->job.rank, sizeof(info->host.rank));
	memcpy(info->host.job_id, ctx->job.job_id, sizeof(info->host.job_id));
	if (!ctx->out)
		return 0;
	ctx->writer = profile_writer_open_out(ctx->out, ctx->opt.format, info, err);
	ctx->out = NULL;	/* the writer owns it */
	return ctx->writer ? 0 : -1;
}

/* Before the target starts (and after the -o patterns are expanded, by
 * name_output): a FIFO nobody reads, a directory or a bad path
 * is an error now, not a hang or a lost run.  With -o - the profile takes
 * stdout, and the command writes its own stdout to stderr instead, so that
 * the two cannot mix in the pipe. */
static int open_output(struct context *ctx, struct error *err)
{
	if (!ctx->output)
		return 0;
	ctx->out = outfile_open(ctx->output, 0666, ctx->opt.force ? OUTFILE_FORCE : 0, err);
	if (!ctx->out)
		return -1;
	if (strcmp(ctx->output, "-") == 0 && dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
		close(STDOUT_FILENO);
	return 0;
}

/* Sample the launched target to its end and complete the profile. */
static int run(struct context *ctx)
{
	struct engine_config cfg = {
		.root = ctx->target, .hz = ctx->opt.hz, .start_ns = ctx->info.host.start_ns,
		.pmus = &ctx->pmus, .writer = ctx->writer,
		.follow_cpu = tune_follows_target(&ctx->opt.tune),
		/* a stack needs the thread's registers: no thread is carried */
		.stop_every = ctx->opt.stop_all,
		.carry = ctx->opt.carry,
		.precise = ctx->opt.precise,
		.tracers = ctx->opt.tracers,
		.check_carried = getenv("SAMPLER_TEST_CHECK_CARRIED") != NULL,
		.attached = ctx->opt.nattach ? &ctx->attached : NULL,
		.window = ctx->window.used ? &ctx->window : NULL,
		.stacks = ctx->stacks,
		.clock_period_ns = ctx->info.clock ? ctx->info.clock_period_ns : 0,
	};
	struct summary_run sum = {
		.hz = ctx->opt.hz, .info = &ctx->info, .tune = &ctx->opt.tune,
		.tuned = &ctx->tuned, .written = ctx->output != NULL, .debug = ctx->opt.debug,
	};
	struct engine_stats st;
	struct engine *engine;
	struct error err;

	if (cfg.window)
		window_start(&ctx->window, ctx->info.host.start_ns);
	engine = engine_new(&cfg, &err);
	ctx->writer = NULL;	/* the engine owns it now */
	if (!engine) {
		let_go(ctx);
		error_print(PROG, &err);
		return EXIT_SAMPLER_FAILED;
	}
	engine_run(engine);
	sum.failed = engine_finish(engine, &st, &err) < 0;
	engine_free(engine);
	sum.bytes = st.profile_bytes;	/* (a pipe too: -o -, sampler top -o) */
	summary_print(PROG, &sum, &st);
	if (ctx->opt.debug && ctx->stacks)
		callstack_print_stats(ctx->stacks, stderr);
	if (sum.failed) {
		error_print(PROG, &err);
		return EXIT_SAMPLER_FAILED;
	}
	/* attached: the program was not ours to end; its status is not ours */
	return ctx->opt.nattach ? 0 : st.profile.exit_status;
}

static int record_main(int argc, char **argv)
{
	struct context ctx = { .argc = argc, .argv = argv, .tuned = { .qos_fd = -1 },
			       .window = { .fd = -1, .wfd = -1 } };
	int closed_fds = stdfds_open();
	struct error err;
	sigset_t old;
	int rc, status;

	if (closed_fds < 0)
		return EXIT_SAMPLER_FAILED;	/* no /dev/null: nowhere safe to write */
	rc = parse_options(&ctx.opt, argc, argv, &err);
	if (rc)
		goto out_options;
	if (setup_pmus(&ctx, &err) < 0 || name_output(&ctx, &err) < 0 ||
	    open_output(&ctx, &err) < 0)
		goto out_fail;
	if (ctx.opt.stacks.enabled && !(ctx.stacks = callstack_new(&ctx.opt.stacks, &err)))
		goto out_fail;
	/* The target starts with the mask and dispositions the sampler was
	 * given (signals.h says what the sampler does with each signal). */
	signals_block(&old);
	if (window_open(&ctx.window, &ctx.opt.window, &err) < 0)
		goto out_fail;
	if (ctx.opt.nattach) {
		if (attach_all(&ctx, &err) < 0)
			goto out_fail;
	} else if (launch_target(ctx.opt.command, &old, closed_fds, &ctx.target, &status, &err) < 0) {
		error_print(PROG, &err);
		outfile_abandon(ctx.out);
		window_close(&ctx.window);
		callstack_free(ctx.stacks);
		pmu_set_release(&ctx.pmus);
		free(ctx.output);
		return status;
	}
	if (tune_apply(&ctx.opt.tune, ctx.target, &ctx.tuned, &err) < 0 ||
	    open_writer(&ctx, &err) < 0) {
		let_go(&ctx);
		goto out_fail;
	}
	status = run(&ctx);
	attach_free(&ctx.attached);
	window_close(&ctx.window);
	free(ctx.output);
	callstack_free(ctx.stacks);
	pmu_set_release(&ctx.pmus);
	if (ctx.tuned.qos_fd >= 0)
		close(ctx.tuned.qos_fd);
	return status;

out_options:
	if (rc > 0)
		return 0;
out_fail:
	error_print(PROG, &err);
	outfile_abandon(ctx.out);
	attach_free(&ctx.attached);
	window_close(&ctx.window);
	free(ctx.output);
	callstack_free(ctx.stacks);
	pmu_set_release(&ctx.pmus);
	return EXIT_SAMPLER_FAILED;
}

/* sampler top: the live view (top/top.h) runs this recorder in a child. */
int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "top") == 0)
		return top_main(argc - 1, argv + 1, record_main);
	return record_main(argc, argv);
}
