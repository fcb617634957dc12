/* format.c - the columns of sampler top's tables, for both views. */
#include <stdio.h>
#include <string.h>

#include "top.h"

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

void top_format_head(const struct top_table *t, const struct top_view_options *o,
		     char *buf, size_t size)
{
	size_t len = 0;

	APPEND("%7s %8s %8s %7s", "CPU%", "CPU s", "total s", "samples");
	if (t->stacks)
		APPEND(" %6s", "incl%");
	for (uint32_t i = 0; i < t->nenergy; i++) {
		char w[32], j[32];

		snprintf(w, sizeof(w), "%.10s W (95%%)", top_energy_name(t, i));
		snprintf(j, sizeof(j), "%.10s J", top_energy_name(t, i));
		APPEND(" %19s %12s", w, j);
	}
	APPEND("  %-30s %s", by_heading[o->by], o->by == TOP_BY_FUNCTION ? "DSO" : "");
}

void top_format_row(const struct top_table *t, const struct top_view *v,
		    const struct top_row *r, char *buf, size_t size)
{
	double s = v->now_s > 0 ? v->now_s : 1;
	const char *dso = strrchr(r->dso, '/');
	size_t len = 0;

	APPEND("%6.1f%% %8.3f %8.3f %7llu", 100.0 * (double)r->now.cpu_ns / 1e9 / s,
	       (double)r->now.cpu_ns / 1e9, (double)r->all.cpu_ns / 1e9,
	       (unsigned long long)r->now.samples);
	if (t->stacks)
		APPEND(" %5.1f%%", v->now.cpu_ns ?
		       100.0 * (double)r->now.incl_ns / (double)v->now.cpu_ns : 0.0);
	for (uint32_t i = 0; i < t->nenergy; i++)
		APPEND(" %9.3f +- %6.3f %12.3f", r->now.joules[i] / s,
		       top_energy_half(&r->now, i) / s, r->all.joules[i]);
	APPEND("  %-30s %s", r->label, dso ? dso + 1 : r->dso);
}
