/* window.h - when to sample: --delay, --duration and --control FIFO.
 *
 * The engine asks, at every turn of its loop, whether sampling is wanted
 * now; in between, the target runs untouched.  Each switch becomes a
 * window record in the profile (struct profile_window). */
#ifndef SAMPLER_WINDOW_H
#define SAMPLER_WINDOW_H

#include <stdbool.h>
#include <stdint.h>

#include "../common/error.h"

#define WINDOW_NEVER UINT64_MAX

struct window_options {
	double delay_s;			/* 0: at once; < 0: only when enabled by --control */
	double duration_s;		/* 0: to the end */
	const char *control;		/* FIFO path (or fifo:PATH), or NULL */
};

struct window {
	bool used;			/* any option given: write window records */
	uint64_t begin_ns;		/* sampling may start (CLOCK_MONOTONIC) */
	uint64_t end_ns;		/* and must end, or WINDOW_NEVER */
	bool control_on;		/* the last enable/disable on the FIFO */
	int fd;				/* the FIFO's reading end, or -1 */
	int wfd;			/* a writing end held open, or -1 */
	size_t poll_max;		/* bytes a window_poll reads at most */
	char buf[64];			/* a command not yet complete */
	unsigned len;
	bool overlong;			/* it did not fit in buf: unknown */
	unsigned long unknown;		/* unknown commands read */
};

/* Parse an option's seconds: 0 <= s (or -1 when allow_off) and finite. */
int window_parse_seconds(const char *opt, const char *arg, bool allow_off, double *out,
			 struct error *err);

/* Check the options and open the FIFO (before the target starts, so a bad
 * path is an error at once).  Its readiness is signalled with SIGIO, which
 * the caller keeps blocked and waits for with SIGCHLD. */
int window_open(struct window *w, const struct window_options *opt, struct error *err);

/* Sampling starts at start_ns (+ the delay). */
void window_start(struct window *w, uint64_t start_ns);

/* Read what was written to the FIFO (enable, disable; one per line). */
void window_poll(struct window *w);

/* Whether to sample at now, and the next instant this may change by itself
 * (WINDOW_NEVER: only by a FIFO command). */
bool window_wanted(const struct window *w, uint64_t now);
uint64_t window_next_change(const struct window *w, uint64_t now);

/* --duration is over: nothing more will be sampled. */
bool window_over(const struct window *w, uint64_t now);

/* Say how many unknown commands were not shown, and close the FIFO. */
void window_close(struct window *w);

#endif
