/* runs.c - where in an interval a thread changed function (estimator.h).
 *
 * A run is a thread's consecutive samples in one function.  Sampled every
 * T, a run of length L shows n = floor(L/T) or ceil(L/T) samples, so n
 * tells L only to within about one interval, and the uniform change point
 * of the rule (a run of n samples taken as n intervals long) leaves every
 * run's length off by that rounding.  Where the runs are a few intervals
 * long those errors are not noise: a run seen as 1 sample was longer than
 * one interval on average and one seen as 3 shorter (regression to the
 * mean), and the fit of the powers, which takes the modelled times as
 * exact, pulls the powers toward each other (docs/ENERGY.md, "Runs of
 * a few intervals").
 *
 * The expected length given n, by linear shrinkage: the rounding adds a
 * variance of about 1/6 interval^2 to the runs' own, so
 * E[L/T | n] = m + (1 - rho) (n - m), rho = (1/6) / var(n), with m and
 * var(n) the function's mean and variance of n over its whole runs.  The
 * difference from n, split between the run's two ends, moves the mean of
 * each change point: the function before a change gets mu of the
 * interval, mu = 1/2 + (delta_before - delta_after) / 2, as a change-point
 * density 1 + shape (2u - 1) with shape = 6 (mu - 1/2), kept in [-1, 1].
 *
 * Each function's mean run, in samples, over all its runs (one cut by a
 * window or the thread's life counts as long as it was seen), also tells
 * how far into a long interval its PC at either end still says what ran
 * (spread.c). */
#include "estimator.h"

#include <math.h>
#include <stdlib.h>

/* Whole runs (a change seen at both ends) a function needs before its
 * runs' spread is trusted. */
#define MIN_RUNS 20
/* The variance of n about L/T from the rounding alone: f (1 - f) for a
 * fraction f of an interval, 1/6 on average over a uniform f. */
#define ROUNDING_VAR (1.0 / 6)

struct run_stats {
	double count, sum, sum_sq;
};

/* Whether the thread changed function between its previous row and r. */
static bool changed(const struct est *e, size_t r)
{
	size_t p = e->in.rows[r].prev;

	return p != NO_ROW && e->in.rows[p].func_id != e->in.rows[r].func_id;
}

int shape_changes(struct est *e)
{
	size_t *start = malloc((e->in.nrows + 1) * sizeof(*start));
	uint32_t *len = calloc(e->in.nrows + 1, sizeof(*len));
	bool *closed = calloc(e->in.nrows + 1, sizeof(*closed));
	struct run_stats *st = calloc(e->codes.nfuncs + 1, sizeof(*st));
	double *delta = calloc(e->in.nrows + 1, sizeof(*delta));
	double *runs = calloc(e->codes.nfuncs + 1, sizeof(*runs));
	int ret = -1;

	e->codes.func_run = calloc(e->codes.nfuncs + 1, sizeof(*e->codes.func_run));
	if (!start || !len || !closed || !st || !delta || !runs || !e->codes.func_run)
		goto out;
	for (size_t r = 0; r < e->in.nrows; r++) {
		size_t p = e->in.rows[r].prev;

		e->in.rows[r].shape = 0;
		start[r] = p == NO_ROW || changed(e, r) ? r : start[p];
		len[start[r]]++;
		if (p != NO_ROW && changed(e, r))
			closed[start[p]] = true;	/* a change ends p's run */
	}
	for (size_t r = 0; r < e->in.nrows; r++)
		if (start[r] == r) {
			runs[e->in.rows[r].func_id]++;
			e->codes.func_run[e->in.rows[r].func_id] += len[r];
		}
	for (uint32_t f = 0; f < e->codes.nfuncs; f++)
		e->codes.func_run[f] = runs[f] > 0 ? e->codes.func_run[f] / runs[f] : 1;
	/* each function's whole runs: opened and closed by a change */
	for (size_t r = 0; r < e->in.nrows; r++)
		if (start[r] == r && changed(e, r) && closed[r]) {
			struct run_stats *s = &st[e->in.rows[r].func_id];

			s->count++;
			s->sum += len[r];
			s->sum_sq += (double)len[r] * len[r];
		}
	for (size_t r = 0; r < e->in.nrows; r++) {
		const struct run_stats *s;
		double m, var, rho;

		if (start[r] != r || !changed(e, r) || !closed[r])
			continue;	/* (a run cut by a window or the thread's life: unknown) */
		s = &st[e->in.rows[r].func_id];
		if (s->count < MIN_RUNS)
			continue;
		m = s->sum / s->count;
		var = s->sum_sq / s->count - m * m;
		rho = var > ROUNDING_VAR ? ROUNDING_VAR / var : 1;
		delta[r] = rho * (m - len[r]);
	}
	for (size_t r = 0; r < e->in.nrows; r++) {
		size_t p = e->in.rows[r].prev;
		double mu;

		if (!changed(e, r))
			continue;
		mu = 0.5 + (delta[start[p]] - delta[r]) / 2;
		e->in.rows[r].shape = fmin(1, fmax(-1, 6 * (mu - 0.5)));
	}
	ret = 0;
out:
	free(start);
	free(len);
	free(closed);
	free(st);
	free(delta);
	free(runs);
	return ret;
}
