/* top.c - sampler top: options, the recorder child, the reading thread
 * and the plain view (top.h). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../common/fdio.h"
#include "../common/outfile.h"
#include "../common/parseopt.h"
#include "../common/textescape.h"
#include "../profile/stream.h"
#include "top.h"
#include "view.h"

#define EXIT_FAILED 125
/* The pipe from the recorder holds this much: a second of 16 busy threads
 * at 1 kHz is about 100 kB of profile, so a view busy drawing never makes
 * the recorder wait. */
#define TOP_PIPE_SIZE (1 << 20)

struct top_options {
	struct top_view_options view;
	double refresh_s;
	bool stdio;
	const char *output;		/* -o: also keep the profile */
	bool force;
	bool debug;			/* -d: also the view's own CPU time */
	const char *input;		/* --input: view a recorded stream */
	bool have_target;		/* --pid, --tid or -- command */
};

/* ---- the command line (common/parseopt.h) ------------------------------- */

/* The view's options; the others are the recorder's, handed on. */
static int parse_double(const char *opt, const char *arg, double min, double *v, struct error *err)
{
	char *end;

	errno = 0;
	*v = strtod(arg, &end);
	if (errno || end == arg || *end || !(*v >= min) || *v > 1e6)
		return error_set(err, "%s '%s': not a number of at least %g (e.g. %s 1)",
				 opt, arg, min, opt);
	return 0;
}

static int opt_refresh(const struct parseopt *o, const char *arg, void *ctx, struct error *err)
{
	return parse_double(o->short_name ? "-r" : "--refresh", arg, 0.05,
			    &((struct top_options *)ctx)->refresh_s, err);
}

static int opt_percent_limit(const struct parseopt *o, const char *arg, void *ctx,
			     struct error *err)
{
	(void)o;
	return parse_double("--percent-limit", arg, 0,
			    &((struct top_options *)ctx)->view.percent_limit, err);
}

static int parse_pick(const char *opt, const char *arg, const char *const *names, int n,
		      int *v, struct error *err)
{
	for (int i = 0; i < n; i++)
		if (strcmp(arg, names[i]) == 0) {
			*v = i;
			return 0;
		}
	return error_set(err, "%s '%s': unknown (use %s %s, %s%s%s)", opt, arg, opt, names[0],
			 names[1], n > 2 ? " ..., " : " or ", names[n - 1]);
}

static int opt_sort(const struct parseopt *o, const char *arg, void *ctx, struct error *err)
{
	static const char *const sorts[] = { "cpu", "energy", "samples" };
	int v = 0;

	(void)o;
	if (parse_pick("--sort", arg, sorts, 3, &v, err) < 0)
		return -1;
	((struct top_options *)ctx)->view.sort = (enum top_sort)v;
	return 0;
}

static int opt_by(const struct parseopt *o, const char *arg, void *ctx, struct error *err)
{
	static const char *const bys[] = { "function", "thread", "process", "rank" };
	int v = 0;

	(void)o;
	if (parse_pick("--by", arg, bys, 4, &v, err) < 0)
		return -1;
	((struct top_options *)ctx)->view.by = (enum top_by)v;
	return 0;
}

/* --only-pid, --only-tid (value 1) */
static int opt_only(const struct parseopt *o, const char *arg, void *ctx, struct error *err)
{
	struct top_view_options *view = &((struct top_options *)ctx)->view;
	char *end;
	unsigned long n = strtoul(arg, &end, 10);

	if (end == arg || *end || !n || n > UINT32_MAX)
		return error_set(err, "--only-%s '%s': not a process or thread id",
				 o->value ? "tid" : "pid", arg);
	*(o->value ? &view->only_tid : &view->only_pid) = (uint32_t)n;
	return 0;
}

/* --pid, --tid: the recorder's, and a target for the view */
static int opt_target(const struct parseopt *o, const char *arg, void *ctx, struct error *err)
{
	(void)o;
	(void)arg;
	(void)err;
	((struct top_options *)ctx)->have_target = true;
	return 0;
}

static const struct parseopt top_opts[] = {
	OPT_STRING('o', "output", "FILE", struct top_options, output,
		   "also keep the profile in FILE (not .bz2)"),
	OPT_CALL('r', "refresh", "SECONDS", opt_refresh, 0,
		 "refresh every SECONDS (default 1; perf top's -d)"),
	OPT_BOOL(0, "stdio", struct top_options, stdio, true,
		 "print one plain table per refresh (logs, pipes; the\n"
		 "default when stdin or stdout is not a terminal)"),
	OPT_CALL(0, "sort", "KEY", opt_sort, 0,
		 "cpu (default), energy (the first energy channel) or samples"),
	OPT_CALL(0, "percent-limit", "P", opt_percent_limit, 0,
		 "hide rows under P% of the sort key's interval total"),
	OPT_CALL(0, "by", "KEY", opt_by, 0,
		 "rows per function (default), thread, process or rank"),
	OPT_CALL(0, "only-pid", "PID", opt_only, 0, "count this process only"),
	OPT_CALL(0, "only-tid", "TID", opt_only, 1, "count this thread only"),
	OPT_STRING(0, "input", "FILE", struct top_options, input,
		   "view a profile stream (- : stdin) instead of recording"),
	OPT_HELP('h', "help", "show this help"),
	OPT_VERSION('V', "version", "show the version"),
	/* the recorder's, which the view reads too */
	{ .kind = PARSEOPT_BOOL, .long_name = "force", .off = offsetof(struct top_options, force),
	  .value = true, .flags = PARSEOPT_HIDDEN | PARSEOPT_KEEP },
	{ .kind = PARSEOPT_BOOL, .short_name = 'd', .long_name = "debug", .value = true,
	  .off = offsetof(struct top_options, debug), .flags = PARSEOPT_HIDDEN | PARSEOPT_KEEP },
	{ .kind = PARSEOPT_CALL, .long_name = "pid", .argh = "PID", .fn = opt_target,
	  .flags = PARSEOPT_HIDDEN | PARSEOPT_KEEP },
	{ .kind = PARSEOPT_CALL, .long_name = "tid", .argh = "TID", .fn = opt_target,
	  .flags = PARSEOPT_HIDDEN | PARSEOPT_KEEP },
	OPT_END(),
};

static const struct parseopt_cmd top_cmd = {
	.prog = TOP_PROG,
	.usage = "usage: sampler top [options] -- command [arguments]\n"
		 "       sampler top [options] --pid PID[,PID...] | --tid TID[,TID...]\n"
		 "       sampler top [view options] --input FILE\n"
		 "Show live where the command's CPU time and energy go, per function, while the\n"
		 "sampler records it.  The recorder's options (-f, -p, -g, --tracers,\n"
		 "--carry-preempted, ...; sampler --help) apply; the command follows --.\n"
		 "\n",
	.footer = "\n"
		  "Columns: the interval's CPU and, as \"tot\", the run's; with -p each energy\n"
		  "channel's joules (J) and mean watts (W), +- the half width of their 95%\n"
		  "interval; with -g the inclusive share (incl%).  sampler-top(1) has more.\n"
		  "\n"
		  "Keys: c, e, s sort by CPU, energy, samples; space pauses the display; z zeros\n"
		  "the counts; t, p show only the selected row's thread or process (again: all);\n"
		  "up/down select, enter expands the call path (-g); b cycles --by; q quits.\n"
		  "Quitting detaches from --pid/--tid processes, which go on untraced; a\n"
		  "command gets SIGINT, as ^C under sampler gives it, and sampling ends with it.\n",
	.flags = PARSEOPT_KEEP_UNKNOWN,
	.opts = top_opts,
};

static int check_output(const char *output, struct error *err)
{
	size_t n = output ? strlen(output) : 0;

	if (n > 4 && !strcmp(output + n - 4, ".bz2"))
		return error_set(err, "-o %s: sampler top keeps the profile as it streams, uncompressed (drop .bz2; bzip2 it afterwards)",
				 output);
	if (output && !strcmp(output, "-"))
		return error_set(err, "-o -: the view takes the profile stream (keep it in a file: -o FILE)");
	return 0;
}

/* Take the view's options out of argv; the rest goes to the recorder in
 * rec (argv[0] kept), the command after its "-o -".  0, 1 (help), -1. */
static int parse_options(struct top_options *o, int argc, char **argv, char **rec, int *nrec,
			 struct error *err)
{
	struct parseopt_rest rest;
	int rc;

	o->refresh_s = 1;
	rc = parseopt_parse(&top_cmd, argc, argv, o, &rest, err);
	if (rc || check_output(o->output, err) < 0)
		return rc ? rc : -1;
	rec[(*nrec)++] = "sampler";
	for (int i = 0; i < rest.nbefore; i++)
		rec[(*nrec)++] = rest.args[i];
	rec[(*nrec)++] = "-o";
	rec[(*nrec)++] = "-";
	if (rest.dashdash) {
		o->have_target = true;
		rec[(*nrec)++] = "--";
	}
	for (int i = rest.nbefore; i < rest.nargs; i++)
		rec[(*nrec)++] = rest.args[i];
	rec[*nrec] = NULL;
	return 0;
}

/* ---- the recorder ------------------------------------------------------ */

/* Start the recorder with its stdout into a pipe: the read end, or -1.
 * The terminal view keeps the terminal: the command's stdin is /dev/null
 * and the recorder's stderr (the command's output too, with -o -) is held
 * in *held, shown when the view has ended. */
static int start_recorder(char **rec, int nrec, top_record_fn record, bool screen,
			  pid_t *pid, int *held, struct error *err)
{
	int p[2];

	*held = -1;
	if (pipe2(p, O_CLOEXEC) < 0)
		return error_set(err, "cannot make a pipe for the profile: %s", strerror(errno));
	fcntl(p[0], F_SETPIPE_SZ, TOP_PIPE_SIZE);	/* best effort: the default is 64 kB */
	if (screen && (*held = temp_file_open(NULL)) < 0) {
		close(p[0]);
		close(p[1]);
		return error_set(err, "cannot make a temporary file for the command's output: %s (set TMPDIR)",
				 strerror(errno));
	}
	fflush(NULL);
	*pid = fork();
	if (*pid < 0) {
		close(p[0]);
		close(p[1]);
		return error_set(err, "cannot start the recorder: %s", strerror(errno));
	}
	if (*pid == 0) {
		dup2(p[1], STDOUT_FILENO);
		if (screen) {
			int null = open("/dev/null", O_RDONLY);

			if (null >= 0)
				dup2(null, STDIN_FILENO);
			dup2(*held, STDERR_FILENO);
		}
		_exit(record(nrec, rec));
	}
	close(p[1]);
	return p[0];
}

/* ---- the reading thread ---------------------------------------------- */

struct reader_job {
	struct top_run *run;
	const char *path;
	struct top_table table;
	bool opened;
	int status;			/* -1: err */
	struct error err;
	bool truncated;			/* the stream ended without its end */
	uint64_t good_bytes;
	struct outfile *keep;		/* -o: tee into it */
	int in_fd;			/* the recorder's pipe (tee mode) */
	int tee_fd;			/* its write end to the reader */
};

static void *read_stream(void *arg)
{
	struct reader_job *job = arg;
	struct profile_reader *r = profile_reader_open(job->path, &job->err);
	struct profile_record rec;
	struct error err;
	int rc = 0;

	if (!r) {
		job->status = -1;
		job->run->ended = 1;
		return NULL;
	}
	if (top_table_init(&job->table, profile_reader_info(r), &job->err) < 0) {
		profile_reader_close(r);
		job->status = -1;
		job->run->ended = 1;
		return NULL;
	}
	job->opened = true;
	__atomic_store_n(&job->run->table, &job->table, __ATOMIC_RELEASE);
	/* until the end, or the view quits (q, a signal): a profile of hours
	 * is not read to its end first */
	while (!job->run->quit) {
		rc = profile_read_next(r, &rec, &err);
		if (rc <= 0)
			break;
		pthread_mutex_lock(&job->table.lock);
		rc = top_table_record(&job->table, &rec, &err);
		pthread_mutex_unlock(&job->table.lock);
		if (rc < 0)
			break;
	}
	pthread_mutex_lock(&job->table.lock);
	job->table.ended = true;
	pthread_mutex_unlock(&job->table.lock);
	if (rc < 0) {
		job->err = err;
		job->status = -1;
	} else {
		job->truncated = profile_reader_truncated(r, &job->good_bytes);
	}
	profile_reader_close(r);
	job->run->ended = 1;
	return NULL;
}

/* -o: copy the recorder's bytes to the file and on to the reader. */
static void *tee_stream(void *arg)
{
	struct reader_job *job = arg;
	char buf[65536];
	bool file_ok = true, reader_ok = true;
	ssize_t n;

	while ((n = read(job->in_fd, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (file_ok && write_all(outfile_fd(job->keep), buf, (size_t)n) < 0)
			file_ok = false;
		if (reader_ok && write_all(job->tee_fd, buf, (size_t)n) < 0)
			reader_ok = false;	/* the reader stopped: keep the file going */
	}
	close(job->tee_fd);
	close(job->in_fd);
	if (!file_ok)
		outfile_write_error(job->keep, errno, &job->err);
	return NULL;
}

/* ---- the plain view ---------------------------------------------------- */

/* A line of --stdio, names escaped by the one rule of every text output. */
static void print_line(FILE *out, const char *line)
{
	textescape_put(out, line, NULL);
	putc('\n', out);
}

static int print_table(struct top_run *run, struct top_view *v, FILE *out)
{
	struct top_table *t = run->table;
	struct top_layout l;
	char line[2048];

	pthread_mutex_lock(&t->lock);
	if (top_table_view(t, &run->view, v) < 0) {
		pthread_mutex_unlock(&t->lock);
		return -1;
	}
	top_table_next_interval(t, false);
	pthread_mutex_unlock(&t->lock);
	run->refreshes++;
	top_format_title(t, v, &run->view, line, sizeof(line));
	print_line(out, line);
	top_layout_make(t, 0, &l);
	top_format_head(t, &l, &run->view, line, sizeof(line));
	print_line(out, line);
	for (uint32_t i = 0; i < v->nrows; i++) {
		top_format_row(t, &l, v, &v->rows[i], line, sizeof(line));
		print_line(out, line);
	}
	fputc('\n', out);
	return fflush(out) == 0 && !ferror(out) ? 0 : -1;
}

int top_stdio_loop(struct top_run *run, FILE *out)
{
	struct top_view v = { 0 };
	int rc = 0;

	while (!run->quit && !run->ended) {
		top_nap(run, (int)(run->refresh_s * 1000));
		if (run->quit || run->ended)
			break;
		if (print_table(run, &v, out) < 0) {
			run->quit = 1;	/* the reader of our output is gone */
			rc = -1;
			break;
		}
	}
	/* the stream ended: what came since the last table */
	if (!rc && !run->quit && print_table(run, &v, out) < 0)
		rc = -1;
	top_view_free(&v);
	return rc;
}

/* ---- main ---------------------------------------------------------------- */

static void catch_signals(void)
{
	top_catch_signals();
	signal(SIGPIPE, SIG_IGN);
	/* Debug files are read where they are installed, never downloaded:
	 * libdw would ask a debuginfod server named here (docs/EXPORT.md). */
	unsetenv("DEBUGINFOD_URLS");
}

static void block_signals(bool block)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGQUIT);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(block ? SIG_BLOCK : SIG_UNBLOCK, &set, NULL);
}

static void copy_held(int fd)
{
	char buf[65536];
	ssize_t n;

	if (fd < 0)
		return;
	lseek(fd, 0, SEEK_SET);
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		if (write_all(STDERR_FILENO, buf, (size_t)n) < 0)
			break;
	close(fd);
}

static int wait_status(pid_t pid)
{
	int st;

	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return EXIT_FAILED;
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	return 128 + WTERMSIG(st);
}

/* -d: what the view cost (reading, symbolizing, drawing), next to the
 * recorder's statistics. */
static void print_view_cpu(const struct top_run *run)
{
	struct rusage ru;
	double s;

	if (getrusage(RUSAGE_SELF, &ru) < 0)
		return;
	s = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	    (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
	fprintf(stderr, "%s: view: %u refreshes, %.3f s CPU, %.2f ms CPU per refresh\n", TOP_PROG,
		run->refreshes, s, run->refreshes ? 1000 * s / run->refreshes : 0.0);
}

int top_main(int argc, char **argv, top_record_fn record)
{
	struct top_options o = { 0 };
	struct top_run run = { 0 };
	struct reader_job job = { .run = &run, .in_fd = -1, .tee_fd = -1 };
	char **rec = calloc((size_t)argc + 4, sizeof(*rec));
	char fd_path[32];
	pthread_t reader, tee;
	bool teeing = false, reader_started = false;
	pid_t recorder = 0;
	int nrec = 0, fd = -1, held = -1, status = 0, view_rc;
	struct error err;

	if (!rec) {
		fprintf(stderr, "%s: error: out of memory\n", TOP_PROG);
		return EXIT_FAILED;
	}
	status = parse_options(&o, argc, argv, rec, &nrec, &err);
	if (status) {
		free(rec);
		if (status > 0)
			return 0;
		error_print(TOP_PROG, &err);
		return EXIT_FAILED;
	}
	if (o.input && o.have_target) {
		error_set(&err, "--input and a command or --pid given (view either a stream or a run)");
		error_print(TOP_PROG, &err);
		free(rec);
		return EXIT_FAILED;
	}
	/* as perf top: no terminal, plain tables */
	if (!o.stdio && (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)))
		o.stdio = true;
	run.view = o.view;
	run.refresh_s = o.refresh_s;
	catch_signals();
	if (o.output && !(job.keep = outfile_open(o.output, 0666, o.force ? OUTFILE_FORCE : 0, &err)))
		goto out_fail;
	if (job.keep && outfile_publish(job.keep, &err) < 0)
		goto out_fail;
	if (o.input && !job.keep) {
		fd = -1;	/* the reader opens it, and names it in its messages */
	} else if (o.input) {
		fd = strcmp(o.input, "-") ? open(o.input, O_RDONLY | O_CLOEXEC) : dup(STDIN_FILENO);
		if (fd < 0) {
			error_set(&err, "cannot open %s: %s (give a profile)", o.input, strerror(errno));
			goto out_fail;
		}
	} else {
		fd = start_recorder(rec, nrec, record, !o.stdio, &recorder, &held, &err);
		if (fd < 0)
			goto out_fail;
	}
	/* the threads leave every signal to this one */
	block_signals(true);
	if (job.keep) {
		int p[2];

		if (pipe2(p, O_CLOEXEC) < 0) {
			block_signals(false);
			error_set(&err, "cannot make a pipe: %s", strerror(errno));
			goto out_fail;
		}
		job.in_fd = fd;
		job.tee_fd = p[1];
		fd = p[0];
		teeing = pthread_create(&tee, NULL, tee_stream, &job) == 0;
	}
	snprintf(fd_path, sizeof(fd_path), "/dev/fd/%d", fd);
	job.path = fd < 0 ? o.input : fd_path;
	reader_started = pthread_create(&reader, NULL, read_stream, &job) == 0;
	block_signals(false);
	if (!reader_started) {
		run.ended = 1;
		job.status = -1;
		error_set(&job.err, "cannot start the reading thread");
	}
	/* wait for the stream's header */
	while (!__atomic_load_n(&run.table, __ATOMIC_ACQUIRE) && !run.ended && !run.quit)
		top_nap(&run, 20);
	view_rc = 0;
	if (run.table)
		view_rc = o.stdio ? top_stdio_loop(&run, stdout) : top_screen_loop(&run);
	/* q or a closed output: the recorder gets SIGINT, as from ^C (a
	 * launched command gets it, an attached one is let go); a signal the
	 * view got goes on to it (one the terminal sent to the whole group
	 * reached it too: the recorder takes copies that come together as
	 * one, sampler.1) */
	if (recorder && !run.ended)
		kill(recorder, top_signal_got() ? top_signal_got() : SIGINT);
	/* --input ended by a signal: the reader stops at its next record, but
	 * may wait for one on a pipe for ever; the process ends without it
	 * (and the -o copy, as far as it came, without its tee) */
	if (o.input && top_signal_got() && !run.ended) {
		reader_started = teeing = job.opened = false;
		job.keep = NULL;
		fd = -1;
	}
	if (reader_started)
		pthread_join(reader, NULL);
	if (teeing)
		pthread_join(tee, NULL);
	if (fd >= 0)
		close(fd);
	if (recorder)
		status = wait_status(recorder);
	else if (top_signal_got())
		status = 128 + top_signal_got();	/* --input ended by a signal, as a shell reports it */
	copy_held(held);
	if (job.keep && outfile_close(job.keep, &err) < 0) {
		error_print(TOP_PROG, &err);
		status = EXIT_FAILED;
	}
	job.keep = NULL;
	/* a recorder that failed said why itself */
	if (job.status < 0 && (!recorder || status == 0)) {
		error_print(TOP_PROG, &job.err);
		status = EXIT_FAILED;
	} else if (job.truncated && (!recorder || status == 0) && !run.quit) {
		warn_print(TOP_PROG, "the profile stream ended at byte %llu, cut short (the tables show what came)",
			   (unsigned long long)job.good_bytes);
	} else if (view_rc < 0 && !status && !run.quit) {
		status = EXIT_FAILED;
	}
	if (o.debug)
		print_view_cpu(&run);
	if (job.opened)
		top_table_free(&job.table);
	free(rec);
	return status;

out_fail:
	error_print(TOP_PROG, &err);
	if (job.keep)
		outfile_abandon(job.keep);
	if (fd >= 0)
		close(fd);
	if (recorder) {
		kill(recorder, SIGINT);
		wait_status(recorder);
	}
	copy_held(held);
	free(rec);
	return EXIT_FAILED;
}
