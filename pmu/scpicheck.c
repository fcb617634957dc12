/* scpicheck.c - a second of an SCPI meter's answers judged before a run
 * (scpicheck.h): the figures a user needs to record it well (update
 * interval, range, kind) and the meters no run should start on. */
#include "scpicheck.h"

#include <math.h>
#include <stdlib.h>

struct check_figures {
	size_t good, zero, changes, rises;
	double min, max;
	long long spacing_ns;	/* median time between changes; 0: none seen */
};

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return (x > y) - (x < y);
}

/* What the answers say: how many, their range, how often they change,
 * and whether each change is a rise (a count). */
static int check_figure(const struct meter_reading *answers, size_t n, struct check_figures *f,
			struct error *err)
{
	long long *spacing = calloc(n + 1, sizeof(*spacing));
	const struct meter_reading *prev = NULL;

	if (!spacing)
		return error_set(err, "scpi: out of memory");
	*f = (struct check_figures){ .min = INFINITY, .max = -INFINITY };
	for (size_t i = 0; i < n; i++) {
		const struct meter_reading *r = &answers[i];

		if (isnan(r->value))
			continue;
		f->good++;
		f->zero += r->value == 0;
		f->min = fmin(f->min, r->value);
		f->max = fmax(f->max, r->value);
		if (prev && r->value != prev->value) {
			f->rises += r->value > prev->value;
			spacing[f->changes++] = r->t_ns - prev->t_ns;
		}
		if (!prev || r->value != prev->value)
			prev = r;
	}
	qsort(spacing, f->changes, sizeof(*spacing), cmp_ll);
	f->spacing_ns = f->changes ? spacing[f->changes / 2] : 0;
	free(spacing);
	return 0;
}

/* The kind of meter the readings look like, against the unit given. */
static void print_kind(const struct scpi_check_setup *s, const struct check_figures *f, FILE *out)
{
	int counts = f->changes >= 2 && f->rises == f->changes;

	if (counts)
		fprintf(out, "  looks like: an energy meter (its readings only grow)%s\n",
			s->integrating ? "" : "; record it with unit=J and the query of its energy count");
	else if (f->changes)
		fprintf(out, "  looks like: a power meter (its readings go up and down)%s\n",
			s->integrating ? "; an energy count never goes down: drop unit=J (poll_hz= counts power as energy)" : "");
	else
		fprintf(out, "  looks like: a steady reading (no change in a second: a steady load, or a meter that updates seldom)\n");
}

static void print_check(const struct scpi_check_setup *s, const struct check_figures *f,
			size_t n, FILE *out)
{
	fprintf(out, "scpi: meter at %s, query '%s', unit %s\n", s->address, s->query, s->unit);
	fprintf(out, "  answers: %zu in 1 s (one every %.2f ms), %zu missing; an answer takes %.2f ms\n",
		f->good, 1000.0 / (double)f->good, n - f->good, s->answer_ms);
	if (f->spacing_ns)
		fprintf(out, "  updates: every %.2f ms (median of %zu changes)%s\n",
			(double)f->spacing_ns * 1e-6, f->changes,
			s->has_update ? "" : "; update_ms= declares it");
	else
		fprintf(out, "  updates: none seen in 1 s\n");
	if (s->has_update)
		fprintf(out, "  update: %g ms (declared)\n", s->update_ms);
	if (s->has_delay)
		fprintf(out, "  delay: %g ms (declared%s)\n", s->delay_ms,
			s->delay_plus_poll ? ", plus half a poll period" : "");
	else
		fprintf(out, "  delay: not declared (the estimate fits it; delay_ms= from the meter's manual gives it)\n");
	fprintf(out, "  range: %g to %g %s\n", f->min, f->max, s->unit);
	print_kind(s, f, out);
}

int scpi_check_answers(const struct meter_reading *answers, size_t n,
		       const struct scpi_check_setup *setup, FILE *out, struct error *err)
{
	struct check_figures f = { 0 };

	if (check_figure(answers, n, &f, err) < 0)
		return -1;
	if (f.good == 0)
		return error_set(err, "scpi: meter at %s gave no reading in 1 s: it answered the first '%s' and then nothing, or no number (a run would record nothing: check the meter, query= and timeout_ms=, now %d ms)",
				 setup->address, setup->query, setup->timeout_ms);
	if (f.zero == f.good)
		return error_set(err, "scpi: meter at %s answered 0 to all %zu queries '%s' in 1 s: it measures nothing (a run would record 0 %s throughout: check that the load draws its power through the meter, and the meter's input and range)",
				 setup->address, f.good, setup->query, setup->unit);
	print_check(setup, &f, n, out);
	return 0;
}
