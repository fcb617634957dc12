/* nodespans.c - the spans of a node's energy counter read by several
 * profiles (estimator.h; docs/ENERGY.md, "Ranks sharing a node").
 *
 * The ranks of a job on one host each read the same counter (the RAPL
 * package), at their own samples.  Lane 0's readings alone cut the
 * node's energy into spans that its peers' intervals straddle; the peers'
 * readings cut it finer, and every export of the job then uses the same
 * spans, so the ranks' parts add up.  A profile records the energy since
 * its previous reading, so its readings are counts from its own start:
 * the offset between two profiles' counts is the difference of two
 * readings taken between the same two updates of the counter, which are
 * equal.  Readings close in time mostly are, so the most frequent
 * difference between a peer's reading and lane 0's nearest is the offset.
 * Ordered by count, the readings are also in the order they were taken
 * (the counter only grows), whatever the error of their estimated times. */
#include "estimator.h"

#include <math.h>
#include <stdlib.h>

/* Differences that must agree before a peer's counts are trusted: at
 * least this many, and twice as many as any other difference. */
#define MIN_MATCHES 8

struct reading {
	double count;			/* from lane 0's start (after the offset) */
	double time;			/* when it was read, s */
};

/* Lane l's readings of channel k as counts from its start, in time order,
 * the first its start (the plug-in's first reading, 0); how many, or -1
 * when a window breaks the lane (a count across a window left out the
 * energy outside it: it cannot be chained). */
static long lane_readings(const struct est *e, uint32_t k, uint32_t l, struct reading *out)
{
	size_t from = l ? e->in.lane_end[l - 1] : 0;
	double count = 0;
	long n = 0;

	if (from == e->in.lane_end[l])
		return 0;
	out[n++] = (struct reading){ 0, e->in.samples[from].start };

	for (size_t i = from; i < e->in.lane_end[l]; i++) {
		double v = e->in.values[i * e->nsc + k];

		if (i > from && e->in.samples[i].brk)
			return -1;
		if (isnan(v))		/* (the next reading covers both) */
			continue;
		count += v;
		out[n++] = (struct reading){ count, e->in.samples[i].read };
	}
	return n;
}

static int cmp_reading(const void *a, const void *b)
{
	const struct reading *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? -1 : 1;
	return spread_cmp_double(&x->time, &y->time);
}

/* The index in own[0..n) (time order) of the reading nearest to t. */
static size_t nearest(const struct reading *own, size_t n, double t)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (own[mid].time < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == n || (lo && t - own[lo - 1].time < own[lo].time - t))
		return lo ? lo - 1 : 0;
	return lo;
}

/* The offset of a peer's counts from lane 0's: the most frequent
 * difference to lane 0's nearest reading, when it stands out; scratch
 * holds n doubles.  false: no offset stands out. */
static bool peer_offset(const struct reading *own, size_t nown, const struct reading *peer,
			size_t n, double *scratch, double *offset)
{
	size_t best = 0, second = 0;

	for (size_t j = 0; j < n; j++)
		scratch[j] = peer[j].count - own[nearest(own, nown, peer[j].time)].count;
	qsort(scratch, n, sizeof(*scratch), spread_cmp_double);
	for (size_t j = 0, run; j < n; j += run) {
		for (run = 1; j + run < n && scratch[j + run] == scratch[j]; run++)
			;
		if (run > best) {
			second = best;
			best = run;
			*offset = scratch[j];
		} else if (run > second) {
			second = run;
		}
	}
	return best >= MIN_MATCHES && best >= 2 * second;
}

/* Every lane's readings as counts from lane 0's start, ordered by count;
 * how many (*lanes: of how many lanes), 0 when no peer could be aligned
 * or lane 0 cannot be chained, -1 when out of memory.  The peers' readings
 * before and after lane 0's run count too: their spans have only the
 * peers' threads in them, which tells their powers apart (a rank that
 * started later would otherwise share every span with the others), and
 * every export of the job then has the same spans. */
static long node_readings(const struct est *e, uint32_t k, struct reading **out,
			  uint32_t *lanes)
{
	struct reading *all = malloc((e->in.nsamples + e->in.nlanes) * sizeof(*all));
	double *scratch = malloc((e->in.nsamples + e->in.nlanes) * sizeof(*scratch)), offset;
	long nown, n;

	*out = all;
	*lanes = 1;
	if (!all || !scratch) {
		free(scratch);
		return -1;
	}
	if ((nown = lane_readings(e, k, 0, all)) <= 0) {
		free(scratch);
		return 0;
	}
	n = nown;
	for (uint32_t l = 1; l < e->in.nlanes; l++) {
		long np = lane_readings(e, k, l, all + n);

		if (np <= 0 || !peer_offset(all, (size_t)nown, all + n, (size_t)np, scratch,
					    &offset))
			continue;
		++*lanes;
		for (long j = 0; j < np; j++)
			all[n + j].count -= offset;
		n += np;
	}
	free(scratch);
	if (*lanes == 1)
		return 0;
	qsort(all, (size_t)n, sizeof(*all), cmp_reading);
	return n;
}

/* The spans of channel k's node counter from every lane's readings: each
 * rise of the count is an update (or several) between the last reading
 * of the count before and the first of the new one, in the last update
 * interval before that.  1 when the lanes' readings cannot be put
 * together (no peer aligned, windows): the caller uses lane 0's. */
int build_node_spans(struct est *e, uint32_t k, const struct meter_model *m)
{
	struct reading *r;
	long n = node_readings(e, k, &r, &e->meter.span_lanes);
	double level, last, prev_lo, prev_hi;

	if (n <= 0) {
		free(r);
		return n < 0 ? -1 : 1;
	}
	level = r[0].count;
	last = r[0].time;
	prev_lo = prev_hi = last - m->delay_s;
	e->meter.nspans = 0;
	for (long i = 1; i < n; i++) {
		double hi, lo;

		if (r[i].count == level) {
			last = fmax(last, r[i].time);
			continue;
		}
		hi = fmax(r[i].time - m->delay_s, prev_hi);
		lo = fmin(fmax(fmax(last, r[i].time - m->update_s) - m->delay_s, prev_hi), hi);
		if (add_span(e, prev_lo, prev_hi, lo, hi, r[i].count - level) < 0) {
			free(r);
			return -1;
		}
		prev_lo = lo;
		prev_hi = hi;
		level = r[i].count;
		last = r[i].time;
	}
	free(r);
	return 0;
}
