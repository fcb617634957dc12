/* view.h - what the views of sampler top share (top.h): the run they
 * show, its columns and lines (format.c), the plain and the terminal
 * loop (top.c, screen.c) and their clock (nap.c). */
#ifndef SAMPLER_TOP_VIEW_H
#define SAMPLER_TOP_VIEW_H

#include <stdio.h>

#include "table.h"

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

/* The views' clock and signals (nap.c): top_catch_signals makes INT,
 * QUIT, HUP and TERM end a nap; top_nap waits up to ms for run->quit or
 * run->ended (a signal sets run->quit; HUP run->hangup too);
 * top_signal_got is the last signal caught, 0: none. */
void top_catch_signals(void);
void top_nap(struct top_run *run, int ms);
int top_signal_got(void);

const char *top_sort_name(enum top_sort sort);
const char *top_by_name(enum top_by by);

#endif
