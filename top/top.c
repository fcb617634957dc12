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
#include "../common/textescape.h"
#include "../profile/stream.h"
#include "top.h"

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
};

static volatile sig_atomic_t got_signal;

static void on_signal(int sig)
{
	got_signal = sig;
}

static void usage(FILE *out)
{
	fprintf(out,
		"usage: sampler top [options] -- command [arguments]\n"
		"       sampler top [options] --pid PID[,PID...] | --tid TID[,TID...]\n"
		"       sampler top [view options] --input FILE\n"
		"Show live where the command's CPU time and energy go, per function, while the\n"
		"sampler records it.  The recorder's options (-f, -p, -g, --tracers,\n"
		"--carry-preempted, ...; sampler --help) apply; the command follows --.\n"
		"\n"
		"  -o, --output FILE     also keep the profile in FILE (not .bz2)\n"
		"  -r, --refresh SECONDS refresh every SECONDS (default 1; perf top's -d)\n"
		"      --stdio           print one plain table per refresh (logs, pipes; the\n"
		"                        default when stdin or stdout is not a terminal)\n"
		"      --sort KEY        cpu (default), energy (the first energy channel) or samples\n"
		"      --percent-limit P hide rows under P%% of the sort key's interval total\n"
		"      --by KEY          rows per function (default), thread, process or rank\n"
		"      --only-pid PID, --only-tid TID  count these only\n"
		"      --input FILE      view a profile stream (- : stdin) instead of recording\n"
		"  -h, --help            show this help\n"
		"\n"
		"Columns: the interval's CPU and, as \"tot\", the run's; with -p each energy\n"
		"channel's joules (J) and mean watts (W), +- the half width of their 95%%\n"
		"interval; with -g the inclusive share (incl%%).  sampler-top(1) has more.\n"
		"\n"
		"Keys: c, e, s sort by CPU, energy, samples; space pauses the display; z zeros\n"
		"the counts; t, p show only the selected row's thread or process (again: all);\n"
		"up/down select, enter expands the call path (-g); b cycles --by; q quits.\n"
		"Quitting detaches from --pid/--tid processes, which go on untraced; a\n"
		"command gets SIGINT, as ^C under sampler gives it, and sampling ends with it.\n");
}

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

static int parse_id(const char *opt, const char *arg, uint32_t *v, struct error *err)
{
	char *end;
	unsigned long n = strtoul(arg, &end, 10);

	if (end == arg || *end || !n || n > UINT32_MAX)
		return error_set(err, "%s '%s': not a process or thread id", opt, arg);
	*v = (uint32_t)n;
	return 0;
}

static bool is_opt(const char *arg, const char *name)
{
	size_t n = strlen(name);

	return !strncmp(arg, name, n) && (arg[n] == '\0' || (arg[n] == '=' && name[1] == '-'));
}

/* Take the view's options out of argv (up to "--"); the rest goes to the
 * recorder in rec (argv[0] kept).  0, 1 (help), -1. */
static int parse_options(struct top_options *o, int argc, char **argv, char **rec, int *nrec,
			 bool *have_target, struct error *err)
{
	static const char *const sorts[] = { "cpu", "energy", "samples" };
	static const char *const bys[] = { "function", "thread", "process", "rank" };
	int i, v = 0;

	o->refresh_s = 1;
	rec[(*nrec)++] = "sampler";
	for (i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		const char *a = argv[i], *val;

		if (is_opt(a, "-h") || is_opt(a, "--help")) {
			usage(stdout);
			return 1;
		}
		if (is_opt(a, "--stdio")) {
			o->stdio = true;
			continue;
		}
		if (is_opt(a, "--force"))
			o->force = true;
		if (is_opt(a, "-d") || is_opt(a, "--debug"))
			o->debug = true;
		if (is_opt(a, "--pid") || is_opt(a, "--tid"))
			*have_target = true;
		if (!(is_opt(a, "-o") || is_opt(a, "--output") || is_opt(a, "-r") ||
		      is_opt(a, "--refresh") || is_opt(a, "--sort") || is_opt(a, "--by") ||
		      is_opt(a, "--percent-limit") || is_opt(a, "--input") ||
		      is_opt(a, "--only-pid") || is_opt(a, "--only-tid"))) {
			rec[(*nrec)++] = argv[i];
			continue;
		}
		{
			/* the option's name without "=value" */
			char name[32];
			size_t n = strcspn(a, "=");

			snprintf(name, sizeof(name), "%.*s", (int)n, a);
			val = a[n] == '=' ? a + n + 1 : i + 1 < argc ? argv[++i] : NULL;
			if (!val)
				return error_set(err, "option '%s' needs an argument (see sampler top --help)",
						 name);
			if (!strcmp(name, "-o") || !strcmp(name, "--output"))
				o->output = val;
			else if (!strcmp(name, "-r") || !strcmp(name, "--refresh")) {
				if (parse_double(name, val, 0.05, &o->refresh_s, err) < 0)
					return -1;
			} else if (!strcmp(name, "--sort")) {
				if (parse_pick(name, val, sorts, 3, &v, err) < 0)
					return -1;
				o->view.sort = (enum top_sort)v;
			} else if (!strcmp(name, "--by")) {
				if (parse_pick(name, val, bys, 4, &v, err) < 0)
					return -1;
				o->view.by = (enum top_by)v;
			} else if (!strcmp(name, "--percent-limit")) {
				if (parse_double(name, val, 0, &o->view.percent_limit, err) < 0)
					return -1;
			} else if (!strcmp(name, "--only-pid")) {
				if (parse_id(name, val, &o->view.only_pid, err) < 0)
					return -1;
			} else if (!strcmp(name, "--only-tid")) {
				if (parse_id(name, val, &o->view.only_tid, err) < 0)
					return -1;
			} else {
				o->input = val;
			}
		}
	}
	if (o->output) {
		size_t n = strlen(o->output);

		if (n > 4 && !strcmp(o->output + n - 4, ".bz2"))
			return error_set(err, "-o %s: sampler top keeps the profile as it streams, uncompressed (drop .bz2; bzip2 it afterwards)",
					 o->output);
		if (!strcmp(o->output, "-"))
			return error_set(err, "-o -: the view takes the profile stream (keep it in a file: -o FILE)");
	}
	if (i < argc)
		*have_target = true;
	rec[(*nrec)++] = "-o";
	rec[(*nrec)++] = "-";
	for (; i < argc; i++)
		rec[(*nrec)++] = argv[i];
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

void top_nap(struct top_run *run, int ms)
{
	for (int left = ms; left > 0 && !run->quit && !run->ended; left -= 20) {
		struct timespec ts = { 0, (left < 20 ? left : 20) * 1000000L };

		nanosleep(&ts, NULL);
		if (got_signal) {
			if (got_signal == SIGHUP)
				run->hangup = 1;
			run->quit = 1;
		}
	}
	if (got_signal)
		run->quit = 1;
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
	struct sigaction sa = { .sa_handler = on_signal };
	static const int sigs[] = { SIGINT, SIGQUIT, SIGHUP, SIGTERM };

	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
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
	bool have_target = false, teeing = false, reader_started = false;
	pid_t recorder = 0;
	int nrec = 0, fd = -1, held = -1, status = 0, view_rc;
	struct error err;

	if (!rec) {
		fprintf(stderr, "%s: error: out of memory\n", TOP_PROG);
		return EXIT_FAILED;
	}
	status = parse_options(&o, argc, argv, rec, &nrec, &have_target, &err);
	if (status) {
		free(rec);
		if (status > 0)
			return 0;
		error_print(TOP_PROG, &err);
		return EXIT_FAILED;
	}
	if (o.input && have_target) {
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
		kill(recorder, got_signal ? got_signal : SIGINT);
	/* --input ended by a signal: the reader stops at its next record, but
	 * may wait for one on a pipe for ever; the process ends without it
	 * (and the -o copy, as far as it came, without its tee) */
	if (o.input && got_signal && !run.ended) {
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
	else if (got_signal)
		status = 128 + got_signal;	/* --input ended by a signal, as a shell reports it */
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
