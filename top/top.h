/* top.h - sampler top: a live view of where a program's time and energy
 * go while it runs.
 *
 * Two rooms: the recorder (the sampler's own main, in a child process)
 * writes the profile into a pipe, as with -o -; the view (this process)
 * reads it with the profile reader and the exporter's rows and symbolizer
 * (table.h), in a thread of its own, and shows it every refresh: plain
 * tables (--stdio, top.c) or a terminal view (ncurses, screen.c).  The
 * recorder never waits for the view beyond the pipe's buffer, and
 * symbolization happens in the view's process only.
 */
#ifndef SAMPLER_TOP_TOP_H
#define SAMPLER_TOP_TOP_H

#include <stdio.h>

#include "table.h"

/* The recorder: the sampler's main without "top" (sampler/main.c). */
typedef int (*top_record_fn)(int argc, char **argv);

/* sampler top [options] (-- command | --pid PID | --tid TID): argv[0] is
 * "top".  Returns the exit status. */
int top_main(int argc, char **argv, top_record_fn record);

/* What the view loops share with top.c. */
struct top_run {
	struct top_table *table;	/* NULL until the stream's header came */
	struct top_view_options view;
	double refresh_s;
	volatile int quit;		/* q, a signal or a closed output */
	volatile int hangup;		/* the terminal is gone: draw nothing */
	volatile int ended;		/* the stream ended (the reader is done) */
	unsigned refreshes;		/* views taken (-d: CPU per refresh) */
};

/* The columns of a table, in the order shown (format.c): the interval's
 * and the run's CPU, then each energy channel's joules and mean watts in
 * the interval and since the start, each with its 95% interval. */
enum top_col {
	TOP_COL_CPU_PCT, TOP_COL_CPU_S, TOP_COL_ALL_CPU_PCT, TOP_COL_ALL_CPU_S,
	TOP_COL_SAMPLES, TOP_COL_INCL,
	TOP_COL_J, TOP_COL_W, TOP_COL_ALL_J, TOP_COL_ALL_W,
	TOP_NCOLS
};

struct top_layout_col {
	uint8_t col;			/* enum top_col */
	uint8_t ch;			/* energy columns: the channel */
};

/* The columns one view shows. */
struct top_layout {
	struct top_layout_col cols[TOP_NCOLS * TOP_MAX_ENERGY];
	uint32_t ncols;
	uint32_t hidden;		/* left out: the line was wider than the terminal */
};

/* The columns of t that fit in width characters (0: all of them). */
void top_layout_make(const struct top_table *t, int width, struct top_layout *l);

/* One refresh's header and table lines (format.c), shared by both views. */
void top_format_title(const struct top_table *t, const struct top_view *v,
		      const struct top_view_options *o, char *buf, size_t size);
void top_format_head(const struct top_table *t, const struct top_layout *l,
		     const struct top_view_options *o, char *buf, size_t size);
void top_format_row(const struct top_table *t, const struct top_layout *l,
		    const struct top_view *v, const struct top_row *r, char *buf, size_t size);

/* The views: run until run->quit or the end of the stream.  0, or -1
 * when the output failed (stdio) or the terminal could not be set up. */
int top_stdio_loop(struct top_run *run, FILE *out);
int top_screen_loop(struct top_run *run);

/* Wait up to ms for run->quit or run->ended (the views' clock). */
void top_nap(struct top_run *run, int ms);

const char *top_sort_name(enum top_sort sort);
const char *top_by_name(enum top_by by);

#endif
