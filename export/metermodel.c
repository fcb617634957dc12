/* metermodel.c - a channel's meter (estimator.h): its update
 * interval measured on the profile, its delay fitted, and its readings as
 * the spans of time each update covers. */
#include "estimator.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../common/grow.h"

/* RAPL's counters update about every millisecond (Intel SDM, 976 us on
 * most parts); taken when every sample interval saw an update, so that
 * the profile cannot tell. */
#define RAPL_UPDATE_S 0.000976

/* The meter's update interval: the mean time between updates when some
 * intervals saw none; else it is at most the sampling interval, and only
 * RAPL's known period (or an option) can tell more. */
void measure_meter(struct est *e, uint32_t k, enum channel_kind kind, const char *source,
			  struct meter_model *m)
{
	double span = 0, last = NAN;
	uint64_t updates = 0;

	m->intervals = m->no_update = 0;
	for (size_t i = 0; i < e->nown; i++) {
		double v = e->values[i * e->nsc + k];

		if (isnan(v))
			continue;
		m->intervals++;
		span += e->samples[i].time - e->samples[i].start;
		if (kind == CHANNEL_ENERGY ? v == 0 : v == last)
			m->no_update++;
		else
			updates++;
		last = v;
	}
	if (!isnan(m->update_s))
		return;
	m->update_measured = updates && m->no_update;
	if (m->update_measured)
		m->update_s = span / (double)updates;
	else
		m->update_s = strcmp(source, "rapl") == 0 ? RAPL_UPDATE_S : 0;
}

/* The window of the last update a reading at sample s saw: the last
 * min(update, interval) before the meters were read; one that fell while
 * the threads were held counted what they ran until the sample. */
static void update_window(const struct est_sample *s, double update, double *lo, double *hi)
{
	*hi = s->read;
	*lo = s->read - fmin(update, s->time - s->start);
}

/* When that update counted, on average. */
static double update_time(const struct est_sample *s, double lo, double hi)
{
	if (hi <= s->time)
		return (lo + hi) / 2;
	if (lo >= s->time)
		return s->time;
	return ((s->time - lo) * (lo + s->time) / 2 + (hi - s->time) * s->time) / (hi - lo);
}

static int add_span(struct est *e, double a0, double a, double b0, double b, double energy)
{
	if (GROW_ARRAY(e->spans, e->spans_cap, e->nspans + 1) < 0)
		return -1;
	e->spans[e->nspans++] = (struct span){ a0, a, b0, b, energy };
	return 0;
}

/* The spans of the meter's updates: an update seen at sample i happened
 * in the last min(update, interval) of its interval, uniformly (on average
 * half that before it), and reflects the power delay_s before that.  The
 * spans keep that window: placing each update at its mean instead would
 * blur every change of power by the error of the placement, a bias
 * towards the neighbours' power (docs/ACCURACY.md). */
int build_spans(struct est *e, uint32_t k, enum channel_kind kind,
		       const struct meter_model *m)
{
	/* the previous update: its mean time and its window [prev_lo, prev_hi] */
	double prev_t = e->nown ? e->samples[0].start - m->delay_s : 0, last = NAN;
	double prev_lo = prev_t, prev_hi = prev_t;

	e->nspans = 0;
	for (size_t i = 0; i < e->nown; i++) {
		const struct est_sample *s = &e->samples[i];
		double v = e->values[i * e->nsc + k], t, energy, lo, hi;

		if (i && s->brk)	/* a new window */
			prev_t = prev_lo = prev_hi = s->start - m->delay_s;
		/* An energy reading of 0 is no update: no information.  A power
		 * reading held from the previous one is still the meter's best
		 * figure for the interval: it stays a span of its own. */
		if (isnan(v) || (kind == CHANNEL_ENERGY && v == 0))
			continue;
		update_window(s, m->update_s, &lo, &hi);
		t = fmax(update_time(s, lo, hi) - m->delay_s, prev_t);
		hi = fmax(hi - m->delay_s, prev_hi);
		lo = fmin(fmax(lo - m->delay_s, prev_hi), hi);
		energy = kind == CHANNEL_ENERGY ? v : v * (t - prev_t);
		if (kind == CHANNEL_POWER && t == prev_t)
			energy = v * (s->time - s->start);	/* (no room: as the end rule) */
		if (add_span(e, prev_lo, prev_hi, lo, hi, energy) < 0)
			return -1;
		prev_t = t;
		prev_lo = lo;
		prev_hi = hi;
		last = v;
	}
	/* A power meter's last reading holds until the end, as it did */
	if (kind == CHANNEL_POWER && !isnan(last) && e->nown &&
	    e->samples[e->nown - 1].time > prev_t) {
		double end = e->samples[e->nown - 1].time;

		if (add_span(e, prev_lo, prev_hi, fmax(end, prev_hi), fmax(end, prev_hi),
			     last * (end - prev_t)) < 0)
			return -1;
	}
	return 0;
}

/* The residual of the fit with delay d; -1 when out of memory. */
static double try_delay(struct est *e, uint32_t k, enum channel_kind kind,
			struct meter_model *m, double d)
{
	m->delay_s = d;
	if (build_spans(e, k, kind, m) < 0)
		return -1;
	fit_powers(e, k);
	return residual(e, k);
}

/* An external meter's delay, not given: the shortest, 1 ms apart up to
 * 30 ms (meters lag 2-20 ms; and two sample intervals more: the scpi
 * plug-in's answer is read one interval after its query), whose spans the
 * fitted powers predict within 20% as well as the best (a periodic program
 * fits again a period later: t2120 picked 49.9 ms for 13 once), then
 * 0.1 ms apart around it.  Sampled slower than 100 Hz, the steps are a
 * tenth of the interval, so that the fit stays about 50 tries (each a
 * whole fit: a profile of 8 samples 256 ms apart took 148). */
int fit_delay(struct est *e, uint32_t k, enum channel_kind kind, struct meter_model *m)
{
	double top = 0.030 + 2 * mean_interval(e), best_r = INFINITY, pick = 0, r;
	double step = fmax(0.001, mean_interval(e) / 10), fine = step / 10;
	double res[128];
	int n = 0;

	for (double d = 0; d <= top + 1e-12 && n < 128; d += step, n++) {
		if ((res[n] = try_delay(e, k, kind, m, d)) < 0)
			return -1;
		best_r = fmin(best_r, res[n]);
	}
	for (int i = 0; i < n; i++)
		if (res[i] <= best_r * 1.2) {
			pick = i * step;
			break;
		}
	best_r = INFINITY;
	for (double d = fmax(0, pick - step), from = d, best = pick; ; d += fine) {
		if (d > from + 2 * step + 1e-12) {
			m->delay_s = best;
			return 0;
		}
		if ((r = try_delay(e, k, kind, m, d)) < 0)
			return -1;
		if (r < best_r) {
			best_r = r;
			best = d;
		}
	}
}

/* "[CHANNEL=]MS" into the meters it names; -1 (err set) when bad. */
int apply_option(const struct profile_info *info, const struct meter_option *o,
			struct meter_model *meters, struct error *err)
{
	const char *eq = strchr(o->spec, '='), *num = eq ? eq + 1 : o->spec;
	char *end;
	double ms = strtod(num, &end);
	bool found = false;

	if (end == num || *end || !(ms >= 0) || ms > 1e6)
		return error_set(err, "bad --meter-%s '%s' (expected [CHANNEL=]MS, e.g. package-0=1)",
				 o->delay ? "delay" : "update", o->spec);
	for (uint32_t k = 0; k < info->nsample_channels; k++) {
		const char *name = info->channels[info->sample_channel[k]].name;

		if (eq && (strlen(name) != (size_t)(eq - o->spec) ||
			   strncmp(name, o->spec, (size_t)(eq - o->spec))))
			continue;
		found = true;
		if (o->delay)
			meters[k].delay_s = ms * 1e-3;
		else
			meters[k].update_s = ms * 1e-3;
	}
	if (!found)
		return error_set(err, "--meter-%s '%s': the profile has no such per-sample channel "
				 "(see sampler-export --info)", o->delay ? "delay" : "update", o->spec);
	return 0;
}
