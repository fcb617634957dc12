/* window.c - --delay, --duration and --control (see window.h).
 *
 * The FIFO is opened twice, for reading and for writing, so that the open
 * does not wait for a writer and the FIFO never reads end-of-file when a
 * writer closes it: any number of `echo enable > FIFO` can follow each
 * other (perf record --control opens it O_RDWR for the same reason).  Only
 * the reading end signals SIGIO: a pipe signals its writers' SIGIO at every
 * read that finds it empty, so one O_RDWR descriptor woke the sampler after
 * each of its own reads, and waiting for enable took 95% of a CPU.
 */
#include "window.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/error.h"
#include "../common/fdio.h"

#define PROG "sampler"
/* Unknown commands shown one by one; the rest are counted (a writer
 * flooding the FIFO, `yes garbage > FIFO`, printed 1.5 million lines in
 * 3 s, and the sampling rate fell to 38%). */
#define WINDOW_WARN_MAX 3
/* Bytes of an unknown command a warning quotes. */
#define WINDOW_QUOTE_MAX 40

int window_parse_seconds(const char *opt, const char *arg, bool allow_off, double *out,
			 struct error *err)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (errno || end == arg || *end || !isfinite(v) || v > 1e9 ||
	    (v < 0 && !(allow_off && v == -1)))
		return error_set(err, "%s %s: not a number of seconds (use e.g. %s 2.5%s)", opt, arg, opt,
				 allow_off ? ", or -1 to wait for enable on --control" : "");
	*out = v;
	return 0;
}

static void close_fifo(struct window *w)
{
	if (w->fd >= 0)
		close(w->fd);
	if (w->wfd >= 0)
		close(w->wfd);
	w->fd = w->wfd = -1;
}

static int open_fifo(struct window *w, const char *path, struct error *err)
{
	int size;

	if (strncmp(path, "fifo:", 5) == 0)	/* perf's spelling */
		path += 5;
	/* the type checked before the open: a device is not opened at all */
	w->fd = open_typed(path, O_RDONLY | O_NONBLOCK, S_IFIFO);
	if (w->fd < 0 && errno == EINVAL)
		return error_set(err, "--control %s: not a FIFO (create one with mkfifo)", path);
	if (w->fd < 0 && errno == ENOENT)
		return error_set(err, "--control %s: %s (create it first with mkfifo %s)", path,
				 strerror(errno), path);
	if (w->fd < 0 && (errno == EACCES || errno == EPERM))
		return error_set(err, "--control %s: %s (the sampler reads it: give its user read permission, e.g. chmod o+r %s, or use a FIFO of its own)",
				 path, strerror(errno), path);
	if (w->fd < 0)
		return error_set(err, "--control %s: %s", path, strerror(errno));
	/* a writer of its own: no end-of-file when the last other one closes */
	w->wfd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
	/* SIGIO wakes the engine's wait when a command arrives. */
	if (w->wfd < 0 || fcntl(w->fd, F_SETOWN, getpid()) < 0 ||
	    fcntl(w->fd, F_SETFL, O_RDONLY | O_NONBLOCK | O_ASYNC) < 0) {
		error_set(err, "--control %s: cannot watch it: %s", path, strerror(errno));
		close_fifo(w);
		return -1;
	}
	/* what a poll reads at most: what the FIFO held when SIGIO came */
	size = fcntl(w->fd, F_GETPIPE_SZ);
	w->poll_max = size > 0 ? (size_t)size : 65536;
	return 0;
}

int window_open(struct window *w, const struct window_options *opt, struct error *err)
{
	memset(w, 0, sizeof(*w));
	w->fd = w->wfd = -1;
	w->control_on = opt->delay_s >= 0;
	w->used = opt->delay_s != 0 || opt->duration_s > 0 || opt->control;
	if (opt->delay_s < 0 && !opt->control)
		return error_set(err, "--delay -1 waits for enable on a control FIFO (add --control FIFO)");
	if (opt->control && open_fifo(w, opt->control, err) < 0)
		return -1;
	/* kept as seconds until window_start gives the clock */
	w->begin_ns = opt->delay_s > 0 ? (uint64_t)llround(opt->delay_s * 1e9) : 0;
	w->end_ns = opt->duration_s > 0 ? (uint64_t)llround(opt->duration_s * 1e9) : WINDOW_NEVER;
	return 0;
}

void window_start(struct window *w, uint64_t start_ns)
{
	w->begin_ns += start_ns;
	if (w->end_ns != WINDOW_NEVER)
		w->end_ns += w->begin_ns;
}

static void unknown_command(struct window *w, const char *cmd)
{
	char quoted[ERROR_QUOTE_SIZE(WINDOW_QUOTE_MAX)];

	if (++w->unknown > WINDOW_WARN_MAX)
		return;
	warn_print(PROG, "--control: unknown command '%s' ignored (write enable or disable)%s",
		   error_quote(quoted, sizeof(quoted), cmd, WINDOW_QUOTE_MAX),
		   w->unknown == WINDOW_WARN_MAX ? "; further ones are counted, not shown" : "");
}

/* The length of a command without its trailing blanks: a CR (a line from
 * Windows, printf 'enable\r\n') or a space is no part of it. */
static size_t command_length(const char *cmd, size_t len)
{
	while (len && (cmd[len - 1] == ' ' || (cmd[len - 1] >= '\t' && cmd[len - 1] <= '\r')))
		len--;
	return len;
}

static void command(struct window *w)
{
	char *cmd = w->buf;

	cmd[command_length(cmd, w->len)] = '\0';
	if (w->overlong)
		unknown_command(w, w->buf);
	else if (strcmp(cmd, "enable") == 0)
		w->control_on = true;
	else if (strcmp(cmd, "disable") == 0)
		w->control_on = false;
	else if (*cmd)
		unknown_command(w, cmd);
	w->len = 0;
	w->overlong = false;
}

void window_poll(struct window *w)
{
	char chunk[4096];
	size_t total = 0;
	ssize_t n;

	if (w->fd < 0)
		return;
	/* a writer that never stops must not hold the loop: the FIFO's size at
	 * most, what was there when SIGIO came (more brings another SIGIO) */
	while (total < w->poll_max && (n = read(w->fd, chunk, sizeof(chunk))) > 0) {
		total += (size_t)n;
		for (ssize_t i = 0; i < n; i++) {
			char c = chunk[i];

			if (c == '\n' || c == '\0')
				command(w);
			else if (w->len + 1 < sizeof(w->buf))
				w->buf[w->len++] = c;
			else
				w->overlong = true;
		}
	}
	/* perf accepts a command without its newline: so do we, once the
	 * writer has stopped writing */
	if (w->len && !w->overlong) {
		size_t len = command_length(w->buf, w->len);

		if ((len == 6 && memcmp(w->buf, "enable", 6) == 0) ||
		    (len == 7 && memcmp(w->buf, "disable", 7) == 0))
			command(w);
	}
}

bool window_wanted(const struct window *w, uint64_t now)
{
	return w->control_on && now >= w->begin_ns && now < w->end_ns;
}

uint64_t window_next_change(const struct window *w, uint64_t now)
{
	if (now < w->begin_ns)
		return w->begin_ns;
	if (now < w->end_ns)
		return w->end_ns;
	return WINDOW_NEVER;
}

bool window_over(const struct window *w, uint64_t now)
{
	return now >= w->end_ns;
}

void window_close(struct window *w)
{
	if (w->unknown > WINDOW_WARN_MAX)
		warn_print(PROG, "--control: %lu unknown commands ignored in all (write enable or disable, one a line)",
			   w->unknown);
	w->unknown = 0;
	close_fifo(w);
}
