/* sampler-export - turn a sampler profile into perf.data, CSV, the original
 * tool's layout, or a human summary (--info).  See docs/EXPORT.md. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "export.h"
#include "merge.h"
#include "../symbols/symcache.h"
#include "../common/outfile.h"
#include "../common/parseopt.h"
#include "../common/stdfds.h"

#define PROG EXPORT_PROG

enum exit_status {
	EXIT_OK = 0,
	EXIT_FAILED = 1,
	EXIT_PARTIAL = 2,	/* exported what was good; the rest was dropped */
};

static const struct exporter *const exporters[] = {
	&perf_exporter,
	&csv_exporter,
	&columns_exporter,
	&pperf_exporter,
	&info_exporter,
	&folded_exporter,
	&speedscope_exporter,
	&firefox_exporter,
	&pprof_exporter,
};

static const struct exporter *find_exporter(const char *name)
{
	for (size_t i = 0; i < sizeof(exporters) / sizeof(exporters[0]); i++)
		if (strcmp(exporters[i]->name, name) == 0)
			return exporters[i];
	return NULL;
}

static const char *default_output(const struct exporter *ex)
{
	return ex == &perf_exporter ? "perf.data" : ex == &pperf_exporter ? NULL : "-";
}

/* ---- the command line (common/parseopt.h) ------------------------------- */

/* What the options fill: the export's options and the format's writer. */
struct cmdline {
	struct export_options opt;
	const struct exporter *ex;
};

static int opt_format(const struct parseopt *o, const char *arg, void *ctx, struct error *err)
{
	struct cmdline *cl = ctx;

	(void)o;
	cl->ex = find_exporter(arg);
	if (!cl->ex || cl->ex == &info_exporter)
		return error_set(err, "unknown format '%s' (use perf, csv, pperf, "
				 "columns, folded, speedscope or firefox)", arg);
	return 0;
}

static int opt_info(const struct parseopt *o, const char *arg, void *ctx, struct error *err)
{
	(void)o;
	(void)arg;
	(void)err;
	((struct cmdline *)ctx)->ex = &info_exporter;
	return 0;
}

/* -e a,b -e c: each name once (the names point into argv, which strtok_r
 * cuts: argv's strings are the program's to change). */
static int opt_events(const struct parseopt *o, const char *arg, void *ctx, struct error *err)
{
	struct export_options *opt = &((struct cmdline *)ctx)->opt;
	char *save = NULL;

	(void)o;
	for (char *name = strtok_r((char *)arg, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
		if (opt->nevents == EXPORT_MAX_EVENTS)
			return error_set(err, "too many --event names (at most %d)", EXPORT_MAX_EVENTS);
		opt->events[opt->nevents++] = name;
	}
	return 0;
}

static int opt_no_symbol_cache(const struct parseopt *o, const char *arg, void *ctx,
			       struct error *err)
{
	(void)o;
	(void)arg;
	(void)err;
	((struct cmdline *)ctx)->opt.symbol_cache = NULL;
	return 0;
}

static int opt_energy_rule(const struct parseopt *o, const char *arg, void *ctx,
			   struct error *err)
{
	(void)o;
	return energy_rule_parse(arg, &((struct cmdline *)ctx)->opt.energy_rule, err);
}

/* --meter-delay (value 1), --meter-update (0) */
static int opt_meter(const struct parseopt *o, const char *arg, void *ctx, struct error *err)
{
	struct export_options *opt = &((struct cmdline *)ctx)->opt;

	if (opt->nmeters == sizeof(opt->meters) / sizeof(opt->meters[0]))
		return error_set(err, "too many --meter-delay/--meter-update options");
	opt->meters[opt->nmeters++] = (struct meter_option){ arg, o->value };
	return 0;
}

static int opt_node_peer(const struct parseopt *o, const char *arg, void *ctx, struct error *err)
{
	struct export_options *opt = &((struct cmdline *)ctx)->opt;

	(void)o;
	if (opt->npeers == ENERGY_MAX_PEERS)
		return error_set(err, "more than %d --node-peer profiles", ENERGY_MAX_PEERS);
	opt->peers[opt->npeers++] = arg;
	return 0;
}

static const struct parseopt export_opts[] = {
	OPT_TEXT("PROFILE", "a profile file, or - for stdin (a pipe or a FIFO too)"),
	OPT_TEXT("PROFILE...", "several (the ranks of a job: app.*.prof) are merged\n"
		 "into one output, each process named with its rank:\n"
		 "app[rank 2]"),
	OPT_STRING('o', "output", "FILE", struct cmdline, opt.output,
		   "output (perf: perf.data; csv, --info: stdout); an\n"
		   "existing FILE is kept as FILE.old; FILE.bz2:\n"
		   "bzip2-compressed (csv); -o - writes pipe-mode\n"
		   "perf.data: " PROG " -o - p | perf report -i -"),
	OPT_CALL('f', "format", "F", opt_format, 0,
		 "perf (default), csv (one row per thread-sample and\n"
		 "thread exit), pperf (the original tool's binary layout),\n"
		 "columns (the scripts' binary rows, docs/EXPORT.md),\n"
		 "folded (call stacks collapsed for flame graphs),\n"
		 "speedscope (its JSON: one profile per thread),\n"
		 "firefox (the Firefox Profiler's: threads, CPU, power\n"
		 "tracks), pprof (gzipped profile.proto: go tool pprof)"),
	OPT_STRING(0, "weight", "W", struct cmdline, opt.weight,
		   "folded, speedscope: weigh each stack by cpu (ns, the\n"
		   "default, as perf), samples, wall (ns),\n"
		   "energy[:CHANNEL] (uJ) or a COUNTER channel"),
	OPT_CALL('e', "event", "E", opt_events, 0,
		 "perf: export only event E (repeatable; cpu-time,\n"
		 "wall-time, energy-CHANNEL-uJ, a counter's name): one\n"
		 "event per file is what perf script report\n"
		 "stackcollapse/flamegraph need"),
	OPT_BOOL(0, "symbols", struct cmdline, opt.symbols, true,
		 "csv, columns: add the dso and symbol of each pc\n"
		 "(elfutils)"),
	OPT_CALL(0, "energy-rule", "R", opt_energy_rule, 0,
		 "how an interval's energy is divided: trapezoid\n"
		 "(default) or end (the old rule: all to the interval's\n"
		 "end; biased)"),
	OPT_CALL(0, "meter-delay", "[CHANNEL=]MS", opt_meter, 1, "the meter's delay (default 0)"),
	OPT_CALL(0, "meter-update", "[CHANNEL=]MS", opt_meter, 0,
		 "its update interval (default: measured)"),
	OPT_CALL(0, "node-peer", "P", opt_node_peer, 0,
		 "P was recorded beside PROFILE on its host (another\n"
		 "rank): divide the node meter's energy among both's\n"
		 "threads and give PROFILE's rows their part only\n"
		 "(repeatable)"),
	OPT_BOOL(0, "no-demangle", struct cmdline, opt.no_demangle, true,
		 "show C++ and Rust symbol names as mangled (as perf's\n"
		 "option)"),
	OPT_BOOL(0, "demangle", struct cmdline, opt.no_demangle, false,
		 "demangle them (the default)"),
	OPT_BOOL(0, "no-inline", struct cmdline, opt.no_inline, true,
		 "csv, columns, folded, speedscope, firefox, pprof: no\n"
		 "frames of inlined functions in the stacks (perf: perf\n"
		 "report --no-inline)"),
	OPT_BOOL(0, "inline", struct cmdline, opt.no_inline, false,
		 "show them (the default)"),
	OPT_CALL(0, "no-symbol-cache", NULL, opt_no_symbol_cache, 0,
		 "neither read nor write the symbol cache\n"
		 "($SAMPLER_CACHE_DIR, else\n"
		 "$XDG_CACHE_HOME/sampler/symbols, else\n"
		 "~/.cache/sampler/symbols; SAMPLER_CACHE_DIR= turns\n"
		 "it off)"),
	OPT_BOOL(0, "force", struct cmdline, opt.force, true, "replace FILE without keeping FILE.old"),
	OPT_STRING(0, "max-size", "SIZE", struct cmdline, opt.max_size,
		   "refuse to write a file larger than SIZE (K, M, G;\n"
		   "0: no limit; default: 1000 times the profile, at\n"
		   "least 1G)"),
	OPT_CALL(0, "info", NULL, opt_info, 0,
		 "print a summary: host, command, duration, samples,\n"
		 "channels"),
	OPT_HELP('h', "help", "show this help"),
	OPT_VERSION('V', "version", "show the version"),
	OPT_END(),
};

static const struct parseopt_cmd export_cmd = {
	.prog = PROG,
	.usage = "usage: " PROG " [-o FILE|-] [--format perf|csv|pperf|columns|folded|speedscope|firefox|pprof]\n"
		 "                      [--symbols]\n"
		 "                      [--weight W] [--no-demangle] [--no-inline] [--no-symbol-cache]\n"
		 "                      [--force] PROFILE...\n"
		 "       " PROG " --info PROFILE\n",
	.footer = "exit status: 0 exported, 1 failed, 2 partial export of a truncated or corrupt profile\n"
		  "see sampler-export(1)\n",
	.opts = export_opts,
};

/* What the options say together. */
static int check_options(struct cmdline *cl, const struct parseopt_rest *rest, struct error *err)
{
	const struct exporter *ex = cl->ex;
	struct export_options *opt = &cl->opt;

	if (!rest->nargs)
		return error_set(err, "expected a PROFILE argument (see " PROG " --help)");
	opt->input = rest->args[0];
	if (opt->weight && ex != &folded_exporter && ex != &speedscope_exporter)
		return error_set(err, "--weight applies to --format folded and speedscope only");
	if (!opt->output)
		opt->output = default_output(ex);
	if (!opt->output)
		return error_set(err, "--format %s needs an output file (add -o FILE)", ex->name);
	if (opt->nevents && ex != &perf_exporter)
		return error_set(err, "--event selects perf.data events; --format %s has none (leave it out)",
				 ex->name);
	if (opt->symbols && ex != &csv_exporter && ex != &columns_exporter)
		warn_print(PROG, "--symbols applies to --format csv only; %s ignores it%s", ex->name,
			   ex == &perf_exporter ? " (perf report resolves symbols itself)" : "");
	return 0;
}

/* 0: run; 1: done (--help); -1: bad command line (err set). */
static int parse_options(int argc, char **argv, struct cmdline *cl, struct parseopt_rest *rest,
			 struct error *err)
{
	int rc = parseopt_parse(&export_cmd, argc, argv, cl, rest, err);

	return rc ? rc : check_options(cl, rest, err);
}

/* The merged profile's temporary name, for the signal handler below: a
 * handler can reach no context struct, so this one path is static. */
static char merge_tmp[PATH_MAX];

/* A signal that ends the export removes the merge's temporary file and
 * the output's unpublished one (outfile.h), then ends the process as the
 * signal would have: SA_RESETHAND restored the default action, and the
 * signal raised again is delivered when the handler returns (not an
 * interrupted call failing with EINTR). */
static void remove_temporaries(int sig)
{
	if (merge_tmp[0])
		unlink(merge_tmp);
	outfile_remove_pending();
	raise(sig);
}

static void catch_fatal_signals(void)
{
	static const int fatal[] = { SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGXCPU, SIGXFSZ,
				     SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL };
	struct sigaction sa = { .sa_handler = remove_temporaries, .sa_flags = SA_RESETHAND };

	for (size_t i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++) {
		struct sigaction old;

		/* a signal the caller ignores (nohup) stays ignored */
		if (sigaction(fatal[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
			continue;
		sigaction(fatal[i], &sa, NULL);
	}
}

/* Where the merged profile goes: next to the output, which has room for
 * what is made of it (a job's merge can be as large as its profiles; /tmp
 * is often a small tmpfs); for stdout, a FIFO or a device, $TMPDIR. */
static bool output_is_stream(const char *output)
{
	struct stat st;

	return strcmp(output, "-") == 0 ||
	       (stat(output, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode)));
}

static void merge_dir(const char *output, char *dir, size_t size)
{
	const char *tmpdir = getenv("TMPDIR");
	const char *slash = strrchr(output, '/');

	if (output_is_stream(output))
		snprintf(dir, size, "%s", tmpdir && *tmpdir ? tmpdir : "/tmp");
	else if (!slash)
		snprintf(dir, size, ".");
	else if (slash == output)
		snprintf(dir, size, "/");
	else
		snprintf(dir, size, "%.*s", (int)(slash - output), output);
}

/* Several profiles: merge them into one temporary profile (in the output's
 * directory, removed at the end and by a fatal signal), which is then
 * exported as any other. */
static int merge_inputs(char *const *paths, size_t n, struct export_options *opt,
			struct error *err)
{
	char dir[PATH_MAX];
	size_t stdin_uses = 0;
	int fd;

	for (size_t i = 0; i < n; i++)
		stdin_uses += strcmp(paths[i], "-") == 0;
	if (stdin_uses > 1)
		return error_set(err, "- (stdin) given %zu times: it holds one profile (name each "
				 "other profile by its file)", stdin_uses);
	merge_dir(opt->output, dir, sizeof(dir));
	if ((size_t)snprintf(merge_tmp, sizeof(merge_tmp), "%s/.sampler-export-merge.XXXXXX", dir) >=
	    sizeof(merge_tmp)) {
		merge_tmp[0] = '\0';
		return error_set(err, "cannot merge the profiles: the directory name %s is too long (write the output elsewhere)",
				 dir);
	}
	fd = mkstemp(merge_tmp);
	if (fd < 0) {
		merge_tmp[0] = '\0';
		return error_set(err, "cannot create a temporary file in %s to merge the profiles: %s (%s)",
				 dir, strerror(errno), output_is_stream(opt->output) ?
				 "set TMPDIR to a writable directory" :
				 "write the output to a writable directory");
	}
	close(fd);
	if (merge_profiles(paths, n, merge_tmp, opt, err) < 0)
		return -1;
	opt->input = merge_tmp;
	opt->ids_without_pids = n > MERGE_ID_RANGES;
	return 0;
}

/* --max-size: what an output file may grow to, enforced by the kernel
 * (RLIMIT_FSIZE: a write past it fails with EFBIG; SIGXFSZ ignored so
 * that it is an error, not a death).  A tiny bzip2 profile can expand
 * to gigabytes of perf.data: by default 1000 times the input, at least
 * 1 GiB. */
#define DEFAULT_MAX_SIZE (1ULL << 30)
#define DEFAULT_MAX_GROWTH 1000

static int parse_size(const char *text, uint64_t *bytes)
{
	char *end;
	unsigned long long v;
	int shift = 0;

	errno = 0;
	v = strtoull(text, &end, 10);
	if (end == text || errno || *text == '-')
		return -1;
	if (*end == 'K' || *end == 'k')
		shift = 10;
	else if (*end == 'M' || *end == 'm')
		shift = 20;
	else if (*end == 'G' || *end == 'g')
		shift = 30;
	if (shift)
		end++;
	if (*end || v > (UINT64_MAX >> shift))
		return -1;
	*bytes = (uint64_t)v << shift;
	return 0;
}

static int limit_output(const struct export_options *opt, uint64_t *limit, struct error *err)
{
	struct stat st;
	struct rlimit rl;

	if (opt->max_size && parse_size(opt->max_size, limit) < 0)
		return error_set(err, "--max-size %s: not a size (a number of bytes, with K, M or G; 0: no limit)",
				 opt->max_size);
	if (!opt->max_size) {
		*limit = DEFAULT_MAX_SIZE;
		if (stat(opt->input, &st) == 0 && S_ISREG(st.st_mode) &&
		    (uint64_t)st.st_size * DEFAULT_MAX_GROWTH > *limit)
			*limit = (uint64_t)st.st_size * DEFAULT_MAX_GROWTH;
	}
	if (!*limit || getrlimit(RLIMIT_FSIZE, &rl) < 0 ||
	    (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur <= *limit)) {
		*limit = 0;	/* ulimit -f is lower: its own message */
		return 0;
	}
	rl.rlim_cur = *limit;
	signal(SIGXFSZ, SIG_IGN);
	if (setrlimit(RLIMIT_FSIZE, &rl) < 0)
		*limit = 0;
	return 0;
}

/* A write past the limit: say which option moves it. */
static void explain_limit(const struct export_options *opt, uint64_t limit, struct error *err)
{
	if (!limit || !strstr(err->msg, strerror(EFBIG)))
		return;
	error_set(err, "cannot write %s: it would pass %s --max-size of %" PRIu64 " bytes (%sraise --max-size, or 0 for no limit)",
		  opt->output, opt->max_size ? "the" : "the default", limit,
		  opt->max_size ? "" : "1000 times the profile, at least 1G: ");
}

int main(int argc, char **argv)
{
	struct cmdline cl = { .ex = &perf_exporter };
	struct export_options *opt = &cl.opt;
	struct parseopt_rest rest;
	char cache_dir[PATH_MAX];
	struct export_result res;
	struct error err = { "" };
	uint64_t max_size = 0;
	int ret;

	if (stdfds_open() < 0)
		return EXIT_FAILED;	/* no /dev/null: nowhere safe to write */
	/* A reader that goes away is one clear error, not a silent death. */
	signal(SIGPIPE, SIG_IGN);
	/* Debug files are read where they are installed, never downloaded:
	 * libdw would ask a debuginfod server named here (docs/EXPORT.md). */
	unsetenv("DEBUGINFOD_URLS");
	catch_fatal_signals();
	if (symcache_default_dir(cache_dir, sizeof(cache_dir)) == 0)
		opt->symbol_cache = cache_dir;	/* --no-symbol-cache clears it */
	ret = parse_options(argc, argv, &cl, &rest, &err);
	if (ret != 0) {
		if (ret < 0)
			error_print(PROG, &err);
		return ret < 0 ? EXIT_FAILED : EXIT_OK;
	}
	if (rest.nargs > 1)
		ret = merge_inputs(rest.args, (size_t)rest.nargs, opt, &err);
	if (ret == 0)
		ret = limit_output(opt, &max_size, &err);
	opt->size_limit = max_size;
	if (ret == 0)
		ret = export_profile(cl.ex, opt, &res, &err);
	if (ret < 0)
		explain_limit(opt, max_size, &err);
	if (merge_tmp[0])
		unlink(merge_tmp);
	if (ret < 0) {
		error_print(PROG, &err);
		return EXIT_FAILED;
	}
	profile_repair_warn(PROG, opt->input, res.repaired);
	if (ret > 0) {
		warn_print(PROG, "%s: partial export: %s", opt->input, res.dropped);
		return EXIT_PARTIAL;
	}
	return EXIT_OK;
}
