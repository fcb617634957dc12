/* format.c - the columns of sampler top's tables, for both views.
 *
 * One table of columns: each says its heading, its width and how it shows
 * a row.  --stdio shows them all; the terminal view leaves out, when the
 * terminal is narrower than the line, the ones of least use first (the
 * function's name and the interval's CPU% always stay), and says how many
 * it left out.  Columns are two spaces apart and no cell or heading holds
 * two spaces in a row, so a reader can split a line on runs of spaces.
 */
#include <stdio.h>
#include <string.h>

#include "view.h"

const char *top_sort_name(enum top_sort sort)
{
	static const char *const names[] = { "cpu", "energy", "samples" };

	return names[sort];
}

static const char *const by_heading[] = { "function", "thread", "process", "rank" };

const char *top_by_name(enum top_by by)
{
	return by_heading[by];
}

#define APPEND(...) (len += (size_t)snprintf(buf + len, len < size ? size - len : 0, __VA_ARGS__))

#define LABEL_WIDTH 30
#define DSO_WIDTH 10		/* the DSO's room kept in a narrow terminal */

/* What a cell shows; s: the interval's (or the run's) wall time. */
struct cell_ctx {
	const struct top_row *r;
	const struct top_view *v;
	double now_s, all_s;
	uint32_t ch;
};

static void show_cpu_pct(const struct cell_ctx *c, char *out, size_t n)
{
	snprintf(out, n, "%.1f%%", 100.0 * (double)c->r->now.cpu_ns / 1e9 / c->now_s);
}

static void show_cpu_s(const struct cell_ctx *c, char *out, size_t n)
{
	snprintf(out, n, "%.3f", (double)c->r->now.cpu_ns / 1e9);
}

static void show_samples(const struct cell_ctx *c, char *out, size_t n)
{
	snprintf(out, n, "%llu", (unsigned long long)c->r->now.samples);
}

static void show_incl(const struct cell_ctx *c, char *out, size_t n)
{
	snprintf(out, n, "%.1f%%", c->v->now.cpu_ns ?
		 100.0 * (double)c->r->now.incl_ns / (double)c->v->now.cpu_ns : 0.0);
}

static void show_all_cpu_pct(const struct cell_ctx *c, char *out, size_t n)
{
	snprintf(out, n, "%.1f%%", 100.0 * (double)c->r->all.cpu_ns / 1e9 / c->all_s);
}

static void show_all_cpu_s(const struct cell_ctx *c, char *out, size_t n)
{
	snprintf(out, n, "%.3f", (double)c->r->all.cpu_ns / 1e9);
}

/* Joules, or mean watts over s, with the half width of their 95% interval. */
static void show_energy(const struct top_counts *k, uint32_t ch, double s, char *out, size_t n)
{
	snprintf(out, n, "%.3f +- %.3f", k->joules[ch] / s, top_energy_half(k, ch) / s);
}

static void show_j(const struct cell_ctx *c, char *out, size_t n)
{
	show_energy(&c->r->now, c->ch, 1, out, n);
}

static void show_w(const struct cell_ctx *c, char *out, size_t n)
{
	show_energy(&c->r->now, c->ch, c->now_s, out, n);
}

static void show_all_j(const struct cell_ctx *c, char *out, size_t n)
{
	show_energy(&c->r->all, c->ch, 1, out, n);
}

static void show_all_w(const struct cell_ctx *c, char *out, size_t n)
{
	show_energy(&c->r->all, c->ch, c->all_s, out, n);
}

/* drop: the terminal view leaves out the highest first (0: never; ties:
 * the leftmost); energy columns of channel i add i, so a narrow terminal
 * keeps every channel's watts before the first channel's other columns. */
static const struct column {
	const char *head;		/* energy: after the channel's name */
	int width;
	int drop;
	bool energy, stacks;		/* with -p; with -g */
	void (*show)(const struct cell_ctx *c, char *out, size_t n);
} columns[] = {
	[TOP_COL_CPU_PCT] = { "CPU%", 7, 0, false, false, show_cpu_pct },
	[TOP_COL_CPU_S] = { "CPU s", 8, 2, false, false, show_cpu_s },
	[TOP_COL_ALL_CPU_PCT] = { "tot CPU%", 8, 9, false, false, show_all_cpu_pct },
	[TOP_COL_ALL_CPU_S] = { "tot CPU s", 9, 6, false, false, show_all_cpu_s },
	[TOP_COL_SAMPLES] = { "samples", 7, 8, false, false, show_samples },
	[TOP_COL_INCL] = { "incl%", 6, 4, false, true, show_incl },
	[TOP_COL_J] = { "J", 15, 5, true, false, show_j },
	[TOP_COL_W] = { "W", 15, 1, true, false, show_w },
	[TOP_COL_ALL_J] = { "tot J", 18, 3, true, false, show_all_j },
	[TOP_COL_ALL_W] = { "tot W", 15, 7, true, false, show_all_w },
};

static void heading(const struct top_table *t, const struct top_layout_col *lc, char *out,
		    size_t n)
{
	const struct column *col = &columns[lc->col];

	if (col->energy)
		snprintf(out, n, "%.10s %s", top_energy_name(t, lc->ch), col->head);
	else
		snprintf(out, n, "%s", col->head);
}

static int col_width(const struct top_table *t, const struct top_layout_col *lc)
{
	char head[64];
	int n;

	heading(t, lc, head, sizeof(head));
	n = (int)strlen(head);
	return n > columns[lc->col].width ? n : columns[lc->col].width;
}

static int drop_rank(const struct top_layout_col *lc)
{
	int d = columns[lc->col].drop;

	return d && columns[lc->col].energy ? d + (int)lc->ch : d;
}

void top_layout_make(const struct top_table *t, int width, struct top_layout *l)
{
	int need = LABEL_WIDTH + 2 + DSO_WIDTH;

	memset(l, 0, sizeof(*l));
	for (uint8_t c = 0; c < TOP_NCOLS; c++)
		if (!columns[c].energy && (!columns[c].stacks || t->stacks))
			l->cols[l->ncols++] = (struct top_layout_col){ .col = c };
	/* each channel's four columns together, after the CPU's */
	for (uint8_t ch = 0; ch < t->nenergy; ch++)
		for (uint8_t c = 0; c < TOP_NCOLS; c++)
			if (columns[c].energy)
				l->cols[l->ncols++] = (struct top_layout_col){ .col = c, .ch = ch };
	for (uint32_t i = 0; i < l->ncols; i++)
		need += col_width(t, &l->cols[i]) + 2;
	while (width > 0 && need > width) {
		uint32_t worst = 0;

		for (uint32_t i = 1; i < l->ncols; i++)
			if (drop_rank(&l->cols[i]) > drop_rank(&l->cols[worst]))
				worst = i;
		if (!drop_rank(&l->cols[worst]))
			break;
		need -= col_width(t, &l->cols[worst]) + 2;
		memmove(&l->cols[worst], &l->cols[worst + 1],
			(l->ncols - worst - 1) * sizeof(l->cols[0]));
		l->ncols--;
		l->hidden++;
	}
}

void top_format_title(const struct top_table *t, const struct top_view *v,
		      const struct top_view_options *o, char *buf, size_t size)
{
	size_t len = 0;

	APPEND("# sampler top: %.2f s, interval %.2f s, %.0f Hz, %.2f CPUs busy",
	       v->all_s, v->now_s, v->rate_hz,
	       v->now_s > 0 ? (double)v->now.cpu_ns / 1e9 / v->now_s : 0.0);
	for (uint32_t i = 0; i < t->nenergy; i++)
		APPEND(", %s %.2f W", top_energy_name(t, i),
		       v->now_s > 0 ? v->now.joules[i] / v->now_s : 0.0);
	APPEND("; sort %s", top_sort_name(o->sort));
	if (o->only_pid)
		APPEND(", pid %u only", o->only_pid);
	if (o->only_tid)
		APPEND(", tid %u only", o->only_tid);
	if (v->ended)
		APPEND(" (ended)");
}

void top_format_head(const struct top_table *t, const struct top_layout *l,
		     const struct top_view_options *o, char *buf, size_t size)
{
	size_t len = 0;

	for (uint32_t i = 0; i < l->ncols; i++) {
		char head[64];

		heading(t, &l->cols[i], head, sizeof(head));
		APPEND("%s%*s", i ? "  " : "", col_width(t, &l->cols[i]), head);
	}
	APPEND("  %-*s", LABEL_WIDTH, by_heading[o->by]);
	if (o->by == TOP_BY_FUNCTION)
		APPEND("  DSO");
}

void top_format_row(const struct top_table *t, const struct top_layout *l,
		    const struct top_view *v, const struct top_row *r, char *buf, size_t size)
{
	struct cell_ctx c = { .r = r, .v = v, .now_s = v->now_s > 0 ? v->now_s : 1,
			      .all_s = v->all_s > 0 ? v->all_s : 1 };
	const char *dso = strrchr(r->dso, '/');
	size_t len = 0;

	for (uint32_t i = 0; i < l->ncols; i++) {
		char cell[64];

		c.ch = l->cols[i].ch;
		columns[l->cols[i].col].show(&c, cell, sizeof(cell));
		APPEND("%s%*s", i ? "  " : "", col_width(t, &l->cols[i]), cell);
	}
	APPEND("  %-*s", LABEL_WIDTH, r->label);
	if (*r->dso)
		APPEND("  %s", dso ? dso + 1 : r->dso);
}
