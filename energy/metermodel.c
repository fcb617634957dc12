/* metermodel.c - a channel's meter (estimator.h): its update
 * interval measured on the profile, its delay fitted, and its readings as
 * the spans of time each update covers. */
#include "estimator.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../common/channel.h"
#include "../common/grow.h"

/* RAPL's counters update about every millisecond (Intel SDM, 976 us on
 * most parts); taken when every sample interval saw an update, so that
 * the profile cannot tell. */
#define RAPL_UPDATE_S 0.000976
/* Changes of the reading below which the meter's update interval is not
 * measured (a power reading then holds since the one before). */
#define MIN_UPDATES 20
/* Readings without an update below which they do not measure the update
 * interval either: a handful is as likely a few readings whose answer
 * was not what the model thinks it is.  With one enough (an earlier
 * rule), under load a 1 kHz power meter read at 1 kHz (the sampler
 * slowed; 3 of 1418 readings without an update, though 496 intervals
 * were under 1 ms) came out 0.10 ms, its readings were taken to have
 * missed 93% of the updates, and the run's energy came out half the
 * truth (t2120).  Simulated, 5-22 of them measured a 1 ms meter within
 * 4% (tests/pmu/phase-sim.py --power --missed 0.6 --starve 1,3). */
#define MIN_NO_UPDATE 5
/* Pairs of intervals of steady code below which the scatter of an energy
 * counter's counts does not measure its update interval (scatter_update). */
#define MIN_SCATTER_PAIRS 50

/* When the reading of sample i shows the meter: when the threads were let
 * go after the previous sample, for a pipelined meter (its query went
 * then), else when the sample's meters were read. */
static double reading_time(const struct est *e, size_t i, bool pipelined)
{
	const struct est_sample *s = &e->in.samples[i];

	if (!pipelined)
		return s->read;
	return i && !s->brk ? e->in.samples[i - 1].read : s->start;
}

/* Whether reading v (after last) shows an update of the meter: 1 yes, 0
 * no, -1 cannot tell: a power meter's 0 W after 0 W (the target waited
 * for a CPU) is as likely a new update as the old one. */
static int shows_update(enum channel_kind kind, double v, double last)
{
	if (kind == CHANNEL_ENERGY)
		return v != 0;
	if (v == 0 && last == 0)
		return -1;
	return v != last;
}

/* The time from the reading before (or the window's start) to reading i. */
static double reading_gap(const struct est *e, size_t i, bool pipelined)
{
	const struct est_sample *s = &e->in.samples[i];

	return i && !s->brk ? reading_time(e, i, pipelined) - reading_time(e, i - 1, pipelined)
			    : s->time - s->start;
}

/* The readings of lane 0's channel k that a meter of period T is
 * expected to show without an update, of those that tell: one L after
 * the reading before (reading_time) shows none with chance 1 - L/T when
 * L < T (the meter's updates at a phase of their own). */
static double expected_no_update(const struct est *e, uint32_t k, enum channel_kind kind,
				 double T, bool pipelined)
{
	double n = 0, last = NAN;

	for (size_t i = 0; i < e->in.nown; i++) {
		double v = e->in.values[i * e->nsc + k], L = reading_gap(e, i, pipelined);

		if (isnan(v))
			continue;
		if (L < T && shows_update(kind, v, last) >= 0)
			n += 1 - L / T;
		last = v;
	}
	return n;
}

/* The share of a power meter of period T's updates that no reading saw:
 * an interval of length L holds about L/T of them, and its reading shows
 * only the last. */
static double missed_updates(const struct est *e, uint32_t k, double T, bool pipelined)
{
	double held = 0, missed = 0;

	for (size_t i = 0; i < e->in.nown; i++) {
		double L = reading_gap(e, i, pipelined);

		if (isnan(e->in.values[i * e->nsc + k]))
			continue;
		held += L / T;
		missed += fmax(0, L / T - 1);
	}
	return held > 0 ? missed / held : 0;
}

/* The bound on T from the pairs of readings that show two updates in a
 * row: their 2% quantile, so that a few updates published late (a meter's
 * loop late once: one in 310 came 5 ms early on the 100 Hz fake) do not
 * set it.  INFINITY without such pairs, -1 when out of memory. */
static double update_bound(const struct est *e, uint32_t k, enum channel_kind kind, bool pipelined)
{
	/* (since: the reading before the last one that showed an update) */
	double last = NAN, since = NAN, *gaps = NULL, bound = INFINITY;
	size_t n = 0, cap = 0;

	for (size_t i = 0; i < e->in.nown; i++) {
		double v = e->in.values[i * e->nsc + k], q = reading_time(e, i, pipelined);

		if (!i || e->in.samples[i].brk)
			last = since = NAN;
		if (isnan(v))
			continue;
		if (shows_update(kind, v, last) == 1) {
			if (!isnan(since)) {
				if (GROW_ARRAY(gaps, cap, n + 1) < 0) {
					free(gaps);
					return -1;
				}
				gaps[n++] = q - since;
			}
			since = q - reading_gap(e, i, pipelined);
		}
		last = v;
	}
	if (n) {
		qsort(gaps, n, sizeof(*gaps), spread_cmp_double);
		bound = gaps[n / 50];
	}
	free(gaps);
	return bound;
}

/* Whether sample i's threads all ran the function they ran at the sample
 * before (so its interval drew one code's power, as far as the profile
 * can tell). */
static bool steady(const struct est *e, size_t i)
{
	const struct est_sample *s = &e->in.samples[i];

	if (!i || s->brk || !(s->cpu > 0))
		return false;
	for (uint32_t j = 0; j < s->nthreads; j++) {
		const struct est_row *r = &e->in.rows[s->row0 + j];

		if (r->prev == NO_ROW || e->in.rows[r->prev].func_id != r->func_id)
			return false;
	}
	return true;
}

/* An energy meter's update interval T when every interval saw an update
 * (so the counts cannot say how much shorter than an interval T is),
 * from how the counts scatter about their code's power.  A count is the
 * energy between the last updates before two readings; each update lags
 * its reading by l, uniform over [0, T] (variance T^2 / 12), so the count
 * of an interval of CPU time c at power P is P (c - l_i + l_(i-1)).  Two
 * intervals in a row of one steady code (c1, c2; counts v1, v2) fix P as
 * (v1 + v2) / (c1 + c2), and d = v1 / P - c1 = a e1 - b e2, with
 * a = c2 / (c1 + c2), b = c1 / (c1 + c2) and e = l_(i-1) - l_i, has the
 * variance (2a^2 + 2b^2 + 2ab) T^2 / 12.  Pairs whose d exceeds what a lag
 * can make (the bound: T is at most an interval) changed power within the
 * function and tell nothing.  An earlier rule took such a counter to
 * update every RAPL_UPDATE_S (or at the reading, for other sources):
 * each of a 0.2 ms counter's updates was placed 0.4 ms too early, and the
 * code before each rise of power took energy from the code after it
 * (tests/pmu/phase-sim.py --cycle a:8,b:20,c:12 --update-ms 0.2: alpha
 * +4.7%, issue 42).  Real RAPL's own jitter of power can only make the
 * scatter larger: T stays at most RAPL_UPDATE_S there. */
static double scatter_update(const struct est *e, uint32_t k, double bound, uint64_t *pairs)
{
	double sum = 0;

	*pairs = 0;
	for (size_t i = 1; i + 1 < e->in.nown; i++) {
		double v1 = e->in.values[i * e->nsc + k], v2 = e->in.values[(i + 1) * e->nsc + k];
		double c1 = e->in.samples[i].cpu, c2 = e->in.samples[i + 1].cpu, p, a, b, d;

		if (!steady(e, i) || !steady(e, i + 1) || !(v1 > 0) || !(v2 > 0))
			continue;
		p = (v1 + v2) / (c1 + c2);
		a = c2 / (c1 + c2);
		b = c1 / (c1 + c2);
		d = v1 / p - c1;
		if (fabs(d) > bound)
			continue;
		sum += d * d / (2 * a * a + 2 * b * b + 2 * a * b);
		(*pairs)++;
	}
	return *pairs ? fmin(bound, sqrt(12 * sum / (double)*pairs)) : NAN;
}

/* The update interval of a meter whose every reading showed an update:
 * at most the shortest gap between readings (their 2% quantile); an
 * energy counter's from the scatter of its counts (scatter_update), else
 * RAPL's known period for RAPL, 0 (the reading itself) for others. */
static int update_from_scatter(const struct est *e, uint32_t k, enum channel_kind kind,
			       const char *source, struct meter_model *m)
{
	bool rapl = strcmp(source, "rapl") == 0;
	double *gaps, bound, T = NAN;
	uint64_t pairs = 0;
	size_t n = 0;

	m->update_s = rapl ? RAPL_UPDATE_S : 0;
	if (kind != CHANNEL_ENERGY || !m->intervals)
		return 0;
	if (!(gaps = malloc(e->in.nown * sizeof(*gaps))))
		return -1;
	for (size_t i = 0; i < e->in.nown; i++)
		if (!isnan(e->in.values[i * e->nsc + k]))
			gaps[n++] = reading_gap(e, i, false);
	qsort(gaps, n, sizeof(*gaps), spread_cmp_double);
	bound = gaps[n / 50];
	free(gaps);
	T = scatter_update(e, k, bound, &pairs);
	if (pairs < MIN_SCATTER_PAIRS || isnan(T))
		return 0;
	m->update_s = rapl ? fmin(T, RAPL_UPDATE_S) : T;
	m->update_measured = true;
	return 0;
}

/* The meter's update interval, when some intervals saw no update: the T
 * whose expected count of such intervals is the count seen (it grows with
 * T: bisection).  The mean time between the updates seen would count as
 * one the several an interval longer than T hides (on a loaded machine, a
 * power meter's 2 ms came out 3.5).  When every interval saw an update, T
 * is at most the sampling interval, and only RAPL's known period (or an
 * option) can tell more.
 * An update that does not change the reading (no energy counted while
 * the target waited for a CPU, a power meter's coarse steps) looks like
 * none and makes T long: a 2 ms meter came out 4.46 ms on a starved run,
 * and its delay was then fitted at 3.5 ms instead of 10.  Two readings
 * that show two updates bound T from above, whatever was hidden: the
 * updates fell after the reading before the first and by the second, so
 * T is at most that time (update_bound). */
static int measure_update(struct est *e, uint32_t k, const struct channel_desc *ch,
			  struct meter_model *m)
{
	enum channel_kind kind = ch->kind;
	double last = NAN, lo = 0, hi = 0, bound;
	uint64_t updates = 0;

	m->intervals = m->no_update = 0;
	m->missed = 0;
	/* (the scpi plug-in asked for a power reading right after the
	 * previous sample; since its meter thread, a reading is the latest
	 * answer at the sample, and the channel says so: docs/FORMAT.md) */
	m->pipelined = strcmp(ch->source, "scpi") == 0 && kind == CHANNEL_POWER &&
		       !ch->reads_latest;
	for (size_t i = 0; i < e->in.nown; i++) {
		double v = e->in.values[i * e->nsc + k];

		if (isnan(v))
			continue;
		m->intervals++;
		hi += e->in.samples[i].time - e->in.samples[i].start;
		switch (shows_update(kind, v, last)) {
		case 0:
			m->no_update++;
			break;
		case 1:
			updates++;
			break;
		}
		last = v;
	}
	if (!isnan(m->update_s))
		return 0;
	/* A reading that hardly ever changes (a meter of constant power, or
	 * one slower than the run) cannot tell an update from none. */
	m->update_measured = m->no_update >= MIN_NO_UPDATE && updates >= MIN_UPDATES;
	if (!m->update_measured)
		return update_from_scatter(e, k, kind, ch->source, m);
	for (int i = 0; i < 60; i++) {
		double mid = (lo + hi) / 2;

		if (expected_no_update(e, k, kind, mid, m->pipelined) < (double)m->no_update)
			lo = mid;
		else
			hi = mid;
	}
	if ((bound = update_bound(e, k, kind, m->pipelined)) < 0)
		return -1;
	m->update_s = fmin((lo + hi) / 2, bound);
	return 0;
}

int measure_meter(struct est *e, uint32_t k, const struct channel_desc *ch,
		  struct meter_model *m)
{
	if (measure_update(e, k, ch, m) < 0)
		return -1;
	if (ch->kind == CHANNEL_POWER && m->update_s > 0)
		m->missed = missed_updates(e, k, m->update_s, m->pipelined);
	return 0;
}

/* The window of the last update the reading of sample i saw: the last
 * min(update, interval) before the meter was read (reading_time; one that
 * fell while the threads were held counted what they ran until the
 * sample). */
static void update_window(const struct est *e, size_t i, const struct meter_model *m,
			  double *lo, double *hi)
{
	const struct est_sample *s = &e->in.samples[i];
	double interval = s->time - s->start;

	*hi = reading_time(e, i, m->pipelined);
	if (m->pipelined && i && !s->brk)
		interval = *hi - reading_time(e, i - 1, true);
	*lo = *hi - fmin(m->update_s, interval);
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

/* The model span from the end of prev to end (the end of a window). */
static int close_model(struct est *e, const struct span *prev, double end)
{
	if (!(end > prev->b0))
		return 0;
	return add_span(e, prev->b0, prev->b, fmax(end, prev->b), fmax(end, prev->b), NAN);
}

/* A power meter of known period T: an update reports the mean power of
 * the T before it, delay_s late, and happened after the last reading that
 * did not show it and at most T before the first that does.  A reading
 * equal to the one before shows no update (the sampler is faster than
 * the meter): no information.  An update that comes about T after the
 * previous one (less than 1.5 T) stands for the time since it, as for an
 * energy meter; one that comes later stands for its T only: the updates
 * between were missed (an interval longer than T, on a loaded machine: a
 * reading seen after a 6 ms interval had stood for all 6 ms).  What no
 * update saw (those missed; the delay at a window's start; its end) is a
 * model span (energy NAN), which the fitted powers fill (spread.c).  The
 * chances of the spans at a moment add up to 1 everywhere. */
static int build_power_spans(struct est *e, uint32_t k, const struct meter_model *m)
{
	double T = m->update_s, D = m->delay_s, last = NAN, prev_q = NAN, prev_t = 0;
	double begin = 0;
	struct span prev = { 0 };
	bool have = false;

	e->meter.nspans = 0;
	for (size_t i = 0; i < e->in.nown; i++) {
		const struct est_sample *s = &e->in.samples[i];
		double v = e->in.values[i * e->nsc + k], q, lo, hi, t;
		struct span sp, gap;

		if (!i || s->brk) {	/* a new window: the last one ends */
			if (have && close_model(e, &prev, e->in.samples[i - 1].time) < 0)
				return -1;
			have = false;
			last = prev_q = NAN;
			begin = s->start;
		}
		if (isnan(v))
			continue;
		q = reading_time(e, i, m->pipelined);
		if (v == last) {	/* no update until q */
			prev_q = q;
			continue;
		}
		hi = q;
		lo = isnan(prev_q) ? q - T : fmin(fmax(q - T, prev_q), hi);
		t = (lo + hi) / 2;
		/* (in time order, as spread's search needs) */
		sp = (struct span){ lo - D - T, hi - D - T, lo - D, hi - D, v * T };
		gap = (struct span){ begin, begin, fmax(sp.a0, begin), fmax(sp.a, begin), NAN };
		if (have) {
			gap = (struct span){ prev.b0, prev.b, fmax(sp.a0, prev.b0),
					     fmax(sp.a, prev.b), NAN };
			sp.a0 = gap.b0;
			sp.a = gap.b;
			sp.b0 = fmax(sp.b0, sp.a);
			sp.b = fmax(sp.b, prev.b);
		}
		if (have && t - prev_t < 1.5 * T) {	/* the next update: no gap */
			sp.a0 = prev.b0;
			sp.a = prev.b;
			sp.energy = v * (t - prev_t);
		} else if (add_span(e, gap.a0, gap.a, gap.b0, gap.b, NAN) < 0) {
			return -1;
		}
		if (add_span(e, sp.a0, sp.a, sp.b0, sp.b, sp.energy) < 0)
			return -1;
		prev = sp;
		prev_t = t;
		prev_q = q;
		last = v;
		have = true;
	}
	if (have && close_model(e, &prev, e->in.samples[e->in.nown - 1].time) < 0)
		return -1;
	return 0;
}

/* The spans of the meter's updates (a power meter of known period:
 * build_power_spans; of unknown period, each reading holds since the one
 * before).  An update seen at sample i happened in the last min(update, interval) of its interval, uniformly (on average
 * half that before it), and reflects the power delay_s before that.  The
 * spans keep that window: placing each update at its mean instead would
 * blur every change of power by the error of the placement, a bias
 * towards the neighbours' power (docs/ENERGY.md). */
int build_spans(struct est *e, uint32_t k, enum channel_kind kind,
		       const struct meter_model *m)
{
	e->meter.span_lanes = 1;
	if (kind == CHANNEL_POWER && m->update_s > 0)
		return build_power_spans(e, k, m);
	if (kind == CHANNEL_ENERGY && e->in.nlanes > 1) {
		int node = build_node_spans(e, k, m);

		if (node <= 0)
			return node;
	}
	/* the previous update: its mean time and its window [prev_lo, prev_hi] */
	double prev_t = e->in.nown ? e->in.samples[0].start - m->delay_s : 0, last = NAN;
	double prev_lo = prev_t, prev_hi = prev_t;

	e->meter.nspans = 0;
	for (size_t i = 0; i < e->in.nown; i++) {
		const struct est_sample *s = &e->in.samples[i];
		double v = e->in.values[i * e->nsc + k], t, energy, lo, hi;

		if (i && s->brk)	/* a new window */
			prev_t = prev_lo = prev_hi = s->start - m->delay_s;
		/* An energy reading of 0 is no update: no information.  A power
		 * reading held from the previous one is still the meter's best
		 * figure for the interval: it stays a span of its own. */
		if (isnan(v) || (kind == CHANNEL_ENERGY && v == 0))
			continue;
		update_window(e, i, m, &lo, &hi);
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
	if (kind == CHANNEL_POWER && !isnan(last) && e->in.nown &&
	    e->in.samples[e->in.nown - 1].time > prev_t) {
		double end = e->in.samples[e->in.nown - 1].time;

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
	fit_powers(e, k, true);
	return spread_residual(e, k);
}

/* An external meter's delay, not given: the shortest, 1 ms apart up to
 * 30 ms and two sample intervals more (meters lag 2-20 ms; a pipelined
 * reading is placed at its query already), whose spans the
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

	if (end == num || *end || !channel_timing_ok(ms))
		return error_set(err, "bad --meter-%s '%s' (expected [CHANNEL=]MS, 0 to %g, e.g. package-0=1)",
				 o->delay ? "delay" : "update", o->spec, CHANNEL_TIMING_MAX_MS);
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
