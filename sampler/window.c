/* window.c - --delay, --duration and --control (see window.h).
 *
 * The FIFO is opened O_RDWR, as perf record --control does: the open does
 * not wait for a writer, and the FIFO never reads end-of-file when a writer
 * closes it, so any number of `echo enable > FIFO` can follow each other. */
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

#define PROG "sampler"

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

static int open_fifo(struct window *w, const char *path, struct error *err)
{
	struct stat sb;

	if (strncmp(path, "fifo:", 5) == 0)	/* perf's spelling */
		path += 5;
	w->fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (w->fd < 0)
		return error_set(err, "--control %s: %s (create it first with mkfifo %s)", path,
				 strerror(errno), path);
	if (fstat(w->fd, &sb) < 0 || !S_ISFIFO(sb.st_mode)) {
		close(w->fd);
		w->fd = -1;
		return error_set(err, "--control %s: not a FIFO (create one with mkfifo)", path);
	}
	/* SIGIO wakes the engine's wait when a command arrives. */
	if (fcntl(w->fd, F_SETOWN, getpid()) < 0 ||
	    fcntl(w->fd, F_SETFL, O_RDWR | O_NONBLOCK | O_ASYNC) < 0) {
		close(w->fd);
		w->fd = -1;
		return error_set(err, "--control %s: cannot watch it: %s", path, strerror(errno));
	}
	return 0;
}

int window_open(struct window *w, const struct window_options *opt, struct error *err)
{
	memset(w, 0, sizeof(*w));
	w->fd = -1;
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

static void command(struct window *w, const char *cmd)
{
	if (strcmp(cmd, "enable") == 0)
		w->control_on = true;
	else if (strcmp(cmd, "disable") == 0)
		w->control_on = false;
	else if (*cmd)
		warn_print(PROG, "--control: unknown command '%.40s' ignored (write enable or disable)", cmd);
}

void window_poll(struct window *w)
{
	char chunk[256];
	ssize_t n;

	if (w->fd < 0)
		return;
	while ((n = read(w->fd, chunk, sizeof(chunk))) > 0) {
		for (ssize_t i = 0; i < n; i++) {
			char c = chunk[i];

			if (c == '\n' || c == '\0') {
				w->buf[w->len] = '\0';
				command(w, w->buf);
				w->len = 0;
			} else if (w->len + 1 < sizeof(w->buf)) {
				w->buf[w->len++] = c;
			}
		}
	}
	/* perf accepts a command without its newline: so do we, once the
	 * writer has stopped writing */
	if (w->len) {
		w->buf[w->len] = '\0';
		if (strcmp(w->buf, "enable") == 0 || strcmp(w->buf, "disable") == 0) {
			command(w, w->buf);
			w->len = 0;
		}
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
	if (w->fd >= 0)
		close(w->fd);
	w->fd = -1;
}
