/* main.c - sampler: command line, set-up, exit status.
 *
 *   sampler [options] -- command [arguments]
 *   sampler top [options] -- command [arguments]   (top/top.h)
 *
 * Exit status: the target's own; 128+N when it died of signal N; 125 for the
 * sampler's own failure; 126 command not executable; 127 command not found.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../common/error.h"
#include "../common/outfile.h"
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

static void usage(FILE *out)
{
	fprintf(out,
		"usage: sampler [options] -- command [arguments]\n"
		"       sampler [options] --pid PID[,PID...] | --tid TID[,TID...]\n"
		"       sampler top [options] ...   (a live view: sampler top --help)\n"
		"Run command and stop all its threads together at a fixed frequency, recording\n"
		"per thread its TID, PC and CPU time plus PMU readings.\n"
		"\n"
		"  -o, --output FILE     write the profile to FILE (FILE.bz2: compressed; -: stdout,\n"
		"                        and the command's stdout then goes to stderr); an existing\n"
		"                        FILE is kept as FILE.old; without -o nothing is written.\n"
		"                        In FILE, %%r is the MPI/Slurm rank (needed under a launcher),\n"
		"                        %%h the host, %%p the sampler's pid, %%t the start time\n"
		"                        (UTC), %%%% a percent sign\n"
		"      --force           replace FILE without keeping FILE.old\n"
		"  -f, --frequency HZ    samples per second, 0.001 to 100000 (default 1000)\n"
		"  -p, --pmu-arg SPEC    PMU plug-in NAME[:ARGS], repeatable (-p help lists them)\n"
		"  -d, --debug           print run statistics on stderr at the end\n"
		"  -g                    record call stacks (--call-graph dwarf)\n"
		"      --call-graph MODE[,SIZE]  record call stacks, unwound with frame\n"
		"                        pointers (fp) or with CFI (dwarf) from SIZE bytes of\n"
		"                        stack copied per thread (default %d, at most %d)\n"
		"      --max-stack N     at most N frames per stack (default %d)\n"
		"      --format FORMAT   native (default) or pperf (the original tool's layout)\n"
		"      --fifo PRIO       run the sampler at SCHED_FIFO PRIO (default when permitted: %d)\n"
		"      --rr PRIO         run the sampler at SCHED_RR PRIO\n"
		"      --no-realtime     keep the sampler at normal priority\n"
		"      --cpu N|auto|none pin the sampler to CPU N, or follow the target's\n"
		"                        threads (auto); default none\n"
		"      --latency-qos     keep idle CPUs awake (CPU latency request 0) while\n"
		"                        sampling; default when permitted (root)\n"
		"      --no-latency-qos  do not\n"
		"      --stop-all        stop every thread at every sample; by default a thread\n"
		"                        that has not run since the previous sample is not\n"
		"                        stopped (its PC and CPU time cannot have changed)\n"
		"      --carry-preempted[=auto|always|never]  do not stop threads that wait\n"
		"                        for a CPU either: take their PC from the kernel's\n"
		"                        sample at their switch out (needs root, CAP_PERFMON\n"
		"                        or perf_event_paranoid <= 1); auto (the default):\n"
		"                        when other tasks waited for a CPU at the start\n"
		"                        (docs/SCALING.md)\n"
		"      --no-cpu-clock    charge a thread's CPU time to where the samples find\n"
		"                        it, not to where the kernel's samples of its own CPU\n"
		"                        clock found it running (the default: README.md)\n"
		"      --precise-stops auto|always|never  take each CPU that may run the\n"
		"                        target with a thread of the sampler just before a\n"
		"                        sample, so that a stop finds a thread where it was,\n"
		"                        not at its next system call (real-time priority;\n"
		"                        auto: at 2 kHz or slower, once 5%% of the stops\n"
		"                        land at one; default)\n"
		"      --tracers N|auto  share the command's threads among N tracing threads\n"
		"                        (auto: one per CPU; default 1), which stop, read and\n"
		"                        continue them in parallel (many cores; docs/SCALING.md)\n"
		"      --pid PID[,PID...]  attach to running processes (all their threads, and\n"
		"                        the threads and children they create) until they exit,\n"
		"                        Ctrl-C or --duration; then detach, leaving them running\n"
		"      --tid TID[,TID...]  attach to these threads only\n"
		"      --delay SECONDS   sample only after SECONDS (the program runs meanwhile);\n"
		"                        -1: only once enabled through --control\n"
		"      --duration SECONDS  stop sampling SECONDS after it began (a command\n"
		"                        runs on to its end; an attached one is let go)\n"
		"      --control FIFO    'enable' and 'disable' lines written to FIFO switch\n"
		"                        sampling on and off (like perf record --control)\n"
		"      --idle            run the command at SCHED_IDLE (like chrt --idle 0)\n"
		"      --nice N          add N to the command's nice value (like nice -n N)\n"
		"                        (without privileges, either keeps the sampling rate\n"
		"                        with more busy threads than CPUs)\n"
		"  -h, --help            show this help\n"
		"  -V, --version         show the version\n"
		"\n"
		"Exit status: the command's own, 128+N if it died of signal N, 125 if the\n"
		"sampler failed, 126 if the command is not executable, 127 if not found.\n",
		CALLSTACK_DEFAULT_SIZE, CALLSTACK_MAX_SIZE, CALLSTACK_DEFAULT_MAX_STACK,
		TUNE_DEFAULT_PRIO);
}

static int parse_hz(const char *arg, double *hz, struct error *err)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (errno || end == arg || *end || engine_period_ns(v) == 0)
		return error_set(err, "bad frequency '%s' (use a number of Hz from %g to %g, e.g. -f 1000)",
				 arg, 1e9 / ENGINE_MAX_PERIOD_NS, 1e9 / ENGINE_MIN_PERIOD_NS);
	*hz = v;
	return 0;
}

static int parse_format(const char *arg, enum profile_format *format, struct error *err)
{
	if (strcmp(arg, "native") == 0)
		*format = PROFILE_FORMAT_NATIVE;
	else if (strcmp(arg, "pperf") == 0)
		*format = PROFILE_FORMAT_PPERF;
	else
		return error_set(err, "unknown profile format '%s' (use --format native or --format pperf)",
				 arg);
	return 0;
}

/* The argument that holds the option getopt just refused: one in the
 * middle of a cluster (-F1000, -dx1) leaves optind on its own element. */
static const char *refused_arg(int argc, char **argv)
{
	const char *cur = optind < argc ? argv[optind] : NULL;

	if (optopt && cur && cur[0] == '-' && cur[1] != '-' && strchr(cur + 1, optopt))
		return cur;
	return argv[optind - 1];
}

/* perf record's -F is our -f: say so, with the value given. */
static int frequency_hint(int argc, char **argv, struct error *err)
{
	const char *arg = refused_arg(argc, argv), *value = strchr(arg, 'F') + 1;

	if (!*value && arg == argv[optind - 1] && optind < argc && argv[optind][0] != '-')
		value = argv[optind];
	return error_set(err, "unknown option '-F': the sampling frequency is -f (use -f %s)",
			 *value ? value : "HZ");
}

enum { OPT_FORMAT = 256, OPT_FIFO, OPT_RR, OPT_NO_RT, OPT_CPU, OPT_QOS, OPT_NO_QOS, OPT_NICE, OPT_IDLE,
       OPT_FORCE, OPT_STOP_ALL, OPT_CARRY_PREEMPTED, OPT_NO_CPU_CLOCK, OPT_DELAY, OPT_DURATION, OPT_CONTROL, OPT_PID, OPT_TID,
       OPT_CALL_GRAPH, OPT_MAX_STACK, OPT_TRACERS, OPT_PRECISE };

/* 0: run; 1: done (help, version); -1: bad command line. */
static int parse_options(struct options *opt, int argc, char **argv, struct error *err)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "frequency", required_argument, NULL, 'f' },
		{ "pmu-arg", required_argument, NULL, 'p' },
		{ "debug", no_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "fifo", required_argument, NULL, OPT_FIFO },
		{ "rr", required_argument, NULL, OPT_RR },
		{ "no-realtime", no_argument, NULL, OPT_NO_RT },
		{ "cpu", required_argument, NULL, OPT_CPU },
		{ "latency-qos", no_argument, NULL, OPT_QOS },
		{ "no-latency-qos", no_argument, NULL, OPT_NO_QOS },
		{ "nice", required_argument, NULL, OPT_NICE },
		{ "idle", no_argument, NULL, OPT_IDLE },
		{ "force", no_argument, NULL, OPT_FORCE },
		{ "stop-all", no_argument, NULL, OPT_STOP_ALL },
		{ "carry-preempted", optional_argument, NULL, OPT_CARRY_PREEMPTED },
		{ "no-cpu-clock", no_argument, NULL, OPT_NO_CPU_CLOCK },
		{ "precise-stops", required_argument, NULL, OPT_PRECISE },
		{ "delay", required_argument, NULL, OPT_DELAY },
		{ "duration", required_argument, NULL, OPT_DURATION },
		{ "control", required_argument, NULL, OPT_CONTROL },
		{ "pid", required_argument, NULL, OPT_PID },
		{ "tid", required_argument, NULL, OPT_TID },
		{ "call-graph", required_argument, NULL, OPT_CALL_GRAPH },
		{ "max-stack", required_argument, NULL, OPT_MAX_STACK },
		{ "tracers", required_argument, NULL, OPT_TRACERS },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	opt->hz = 1000;
	opt->format = PROFILE_FORMAT_NATIVE;
	tune_default(&opt->tune);
	callstack_default(&opt->stacks);
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:o:f:p:dghV", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			opt->output = optarg;
			break;
		case 'f':
			if (parse_hz(optarg, &opt->hz, err) < 0)
				return -1;
			break;
		case 'p':
			if (strcmp(optarg, "help") == 0) {
				pmu_print_help(stdout);
				return 1;
			}
			if (strncmp(optarg, "help=", 5) == 0)
				return pmu_check(optarg + 5, stdout, err) < 0 ? -1 : 1;
			if (optarg[strspn(optarg, "0123456789")] == '\0')
				return error_set(err, "-p %s: -p names a PMU plug-in, not a process (to attach, use --pid %s)",
						 optarg, optarg);
			if (opt->npmu >= PMU_SET_MAX)
				return error_set(err, "too many -p options (at most %d)", PMU_SET_MAX);
			opt->pmu_specs[opt->npmu++] = optarg;
			break;
		case 'd':
			opt->debug = true;
			break;
		case 'g':
			callstack_enable(&opt->stacks);
			break;
		case OPT_CALL_GRAPH:
			if (callstack_parse_mode(&opt->stacks, optarg, err) < 0)
				return -1;
			break;
		case OPT_MAX_STACK:
			if (callstack_parse_max_stack(&opt->stacks, optarg, err) < 0)
				return -1;
			break;
		case 'h':
			usage(stdout);
			return 1;
		case 'V':
			printf("sampler %s\n", SAMPLER_VERSION);
			return 1;
		case OPT_FORMAT:
			if (parse_format(optarg, &opt->format, err) < 0)
				return -1;
			break;
		case OPT_FIFO:
		case OPT_RR:
			opt->tune.sched = c == OPT_FIFO ? TUNE_SCHED_FIFO : TUNE_SCHED_RR;
			if (tune_parse_prio(optarg, &opt->tune.prio, err) < 0)
				return -1;
			break;
		case OPT_NO_RT:
			opt->tune.sched = TUNE_SCHED_OTHER;
			break;
		case OPT_CPU:
			if (tune_parse_cpu(optarg, &opt->tune.cpu, err) < 0)
				return -1;
			break;
		case OPT_QOS:
		case OPT_NO_QOS:
			opt->tune.qos = c == OPT_QOS ? TUNE_QOS_ON : TUNE_QOS_OFF;
			break;
		case OPT_NICE:
			if (tune_parse_nice(optarg, &opt->tune.nice, err) < 0)
				return -1;
			break;
		case OPT_IDLE:
			opt->tune.idle = 1;
			break;
		case OPT_FORCE:
			opt->force = true;
			break;
		case OPT_STOP_ALL:
			opt->stop_all = true;
			break;
		case OPT_NO_CPU_CLOCK:
			opt->no_cpu_clock = true;
			break;
		case OPT_CARRY_PREEMPTED:
			if (!optarg || !strcmp(optarg, "always"))
				opt->carry = CARRY_ALWAYS;
			else if (!strcmp(optarg, "auto"))
				opt->carry = CARRY_AUTO;
			else if (!strcmp(optarg, "never"))
				opt->carry = CARRY_NEVER;
			else
				return error_set(err, "bad --carry-preempted '%s' (use auto, always or never)",
						 optarg);
			break;
		case OPT_PRECISE:
			if (!strcmp(optarg, "auto"))
				opt->precise = PRECISE_AUTO;
			else if (!strcmp(optarg, "always"))
				opt->precise = PRECISE_ALWAYS;
			else if (!strcmp(optarg, "never"))
				opt->precise = PRECISE_NEVER;
			else
				return error_set(err, "bad --precise-stops '%s' (use auto, always or never)",
						 optarg);
			break;
		case OPT_TRACERS:
			if (tracers_parse(optarg, &opt->tracers, err) < 0)
				return -1;
			break;
		case OPT_DELAY:
			if (window_parse_seconds("--delay", optarg, true, &opt->window.delay_s, err) < 0)
				return -1;
			break;
		case OPT_DURATION:
			if (window_parse_seconds("--duration", optarg, false, &opt->window.duration_s, err) < 0)
				return -1;
			break;
		case OPT_CONTROL:
			opt->window.control = optarg;
			break;
		case OPT_PID:
		case OPT_TID:
			if (opt->nattach)
				return error_set(err, "give one --pid or --tid list (comma-separated ids)");
			opt->attach_threads = c == OPT_TID;
			if (attach_parse_ids(c == OPT_PID ? "--pid" : "--tid", optarg, opt->attach_ids,
					     &opt->nattach, err) < 0)
				return -1;
			break;
		case ':':
			return error_set(err, "option '%s' needs an argument (see sampler --help)",
					 argv[optind - 1]);
		default:
			if (optopt == 'F')
				return frequency_hint(argc, argv, err);
			return error_set(err, "unknown option '%s' (see sampler --help)",
					 refused_arg(argc, argv));
		}
	}
	if (opt->stacks.enabled && opt->format == PROFILE_FORMAT_PPERF)
		return error_set(err, "--format pperf keeps no call stacks (drop -g or --call-graph, or use the native format)");
	if (opt->nattach) {
		if (optind < argc)
			return error_set(err, "both --pid/--tid and a command '%s' given (profile either a running process or a new command)",
					 argv[optind]);
		if (opt->tune.idle || opt->tune.nice != TUNE_NICE_NONE)
			return error_set(err, "--idle and --nice apply to a command the sampler starts (for a running process use chrt or renice)");
		if (opt->tracers > 1)
			return error_set(err, "--tracers applies to a command the sampler starts (attached threads stay with one tracer; drop --tracers)");
		return 0;
	}
	if (optind >= argc)
		return error_set(err, "no command to profile (usage: sampler [options] -- command [arguments], or --pid PID)");
	opt->command = argv + optind;
	return 0;
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
 * estimate (docs/ACCURACY.md, "Where in its interval a thread ran"): with
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
