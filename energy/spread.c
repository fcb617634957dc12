/* spread.c - the trapezoid estimator's model of the sample intervals
 * (estimator.h): each interval in two halves, at its threads' PCs
 * before and after it; a span's energy given to the halves it overlaps by
 * each one's modelled power, and each code's power fitted on all spans.
 *
 * Where a thread changed function in an interval its change point has the
 * density 1 + shape (2u - 1) over the active part (runs.c), so its PC
 * before holds 1 - F(u) of each moment and its PC after F(u), with
 * F(u) = u + shape (u^2 - u): the linear fade of a uniform change plus
 * shape times the term q(u) = u^2 - u, negated for the half before.  Each
 * half keeps both parts (the _q arrays, per unit of shape) and each thread
 * weighs the second by its own shape.
 *
 * A long interval (the recorder got no CPU for a while) is no single
 * change: its ends tell what ran near them only.  Each half's PC fades out
 * over its fade (as far as its function's mean run, and at least
 * LONG_INTERVAL of the lane's median intervals) from its end, and the
 * middle left between them ran the lane's mix of code: its energy goes to
 * the lane's rows in proportion to what they get (give_mix). */
#include "estimator.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The per-PC power fit, a fixed point from equal powers, runs until a
 * round moves less than FIT_TOL of the energy (energy_moved), at most
 * FIT_MAX_ROUNDS rounds.  Stopped after 20 rounds, as an earlier rule did,
 * a fit whose spans each hold several runs (a 100 Hz meter, 5 ms
 * phases) was far from its fixed point, its powers still near their
 * common start: gamma (8 W) 6% high.  Two fits keep FIT_ROUNDS rounds:
 * the delay search's, which only compare residuals; and those with node
 * peers.  Ranks that always run together leave the spans unable to tell
 * their powers apart: on that line of fixed points each rank's export,
 * its own profile first, goes its own way the longer it runs (t3115's
 * node: the ranks' parts came to 104.7% of the meter), while 20 rounds
 * from the same start keep them together (100.2%). */
#define FIT_TOL 1e-5
#define FIT_MAX_ROUNDS 300
#define FIT_ROUNDS 20

/* The median intervals (at least) over which a long interval's ends fade:
 * a 100 ms stall in a 3 s run of 5 ms phases sampled at 1 kHz gave its
 * energy to the PCs at its two ends, up to 22% of a function's energy
 * (tests/pmu/phase-sim.py --stall-ms). */
#define LONG_INTERVAL 4

/* The weight of an interval in which none of its threads ran, against a
 * thread that ran all of its interval (slot_weight): they drew (almost)
 * nothing, and the spans over nothing else still have a row to give
 * their energy to.  Where a profile's own such interval weighed as a
 * thread that ran all of it (an earlier rule), the fit modelled a thread
 * waiting for a CPU at its function's full power, and on a simulated
 * thread waiting 4 ms in every 7 the residual was least at 8 ms for a
 * meter's 10 ms delay, and the search fitted 0.9-1.0 ms (gamma +180%,
 * tests/pmu/phase-sim.py --starve). */
#define IDLE_WEIGHT 1e-3

/* Half h of the sample intervals: 2i is the half of sample i's interval
 * at its threads' PCs of the previous sample, 2i+1 the half at their PCs
 * of sample i.  Both cover the part of the interval its threads ran in
 * (run_from to run_to: where the profile says, else the active part),
 * weighted (half_at): each holds half of it.  A thread let go after a
 * sample on a loaded machine runs at once and is then preempted: spread
 * over the whole interval, its CPU time was placed where it waited. */
static double half_start(const struct est *e, size_t h)
{
	return e->in.samples[h / 2].run_from;
}

static double half_end(const struct est *e, size_t h)
{
	return e->in.samples[h / 2].run_to;
}

static size_t slot_row(const struct est *e, size_t h, uint32_t j)
{
	size_t own = e->in.samples[h / 2].row0 + j;

	if (h & 1 || e->in.rows[own].prev == NO_ROW)
		return own;
	return e->in.rows[own].prev;
}

int spread_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int set_fades(struct est *e)
{
	double *len = malloc((e->in.nsamples + 1) * sizeof(*len));
	size_t s0 = 0;

	if (!len)
		return -1;
	for (uint32_t l = 0; l < e->in.nlanes; s0 = e->in.lane_end[l++]) {
		size_t n = 0;
		double median;

		/* (the intervals', not the runs': a stall makes an interval
		 * long, a thread that waits a run short) */
		for (size_t i = s0; i < e->in.lane_end[l]; i++)
			len[n++] = e->in.samples[i].time - e->in.samples[i].active;
		qsort(len, n, sizeof(*len), spread_cmp_double);
		median = n ? len[n / 2] : 0;
		for (size_t i = s0; i < e->in.lane_end[l]; i++) {
			struct est_sample *s = &e->in.samples[i];
			double runs = LONG_INTERVAL;

			for (uint32_t j = 0; j < s->nthreads; j++) {
				const struct est_row *r = &e->in.rows[s->row0 + j];

				runs = fmax(runs, e->codes.func_run[r->func_id]);
				if (r->prev != NO_ROW)
					runs = fmax(runs, e->codes.func_run[e->in.rows[r->prev].func_id]);
			}
			s->fade = s->run_to - s->run_from;
			if (median > 0 && runs * median < s->fade)
				s->fade = runs * median;
		}
	}
	free(len);
	return 0;
}

static bool is_long(const struct est_sample *s)
{
	return s->fade < s->run_to - s->run_from;
}

void measure_long(const struct est *e, struct meter_model *m)
{
	m->long_intervals = 0;
	m->long_middle_s = m->longest_s = 0;
	for (size_t i = 0; i < e->in.nown; i++) {
		const struct est_sample *s = &e->in.samples[i];

		m->longest_s = fmax(m->longest_s, s->time - s->start);
		if (is_long(s)) {	/* (its middle: the active part less half of each fade) */
			m->long_intervals++;
			m->long_middle_s += s->run_to - s->run_from - s->fade;
		}
	}
}

/* A thread's share of the wall time of its sample's interval that it ran
 * (its CPU time / the interval; IDLE_WEIGHT/nthreads each when none ran:
 * they drew almost nothing, the machine spent the time on others or
 * idled, and a lane that ran nothing takes its part only of what no lane
 * ran); 0 for a row of lane 0 whose sample
 * lacks the reading (its cell stays empty, so it cannot carry energy; a
 * peer's threads draw from the node whatever the peer read). */
static double slot_weight(const struct est *e, size_t h, uint32_t j, size_t row, uint32_t k)
{
	const struct est_sample *s = &e->in.samples[h / 2];
	double wall = s->run_to - s->run_from;
	size_t sample = e->in.rows[row].sample;

	if (sample < e->in.nown && isnan(e->in.values[sample * e->nsc + k]))
		return 0;
	if (s->cpu > 0 && wall > 0)
		return fmin(1, e->in.rows[s->row0 + j].cpu / wall);
	return IDLE_WEIGHT / s->nthreads;
}

/* Thread j's shape in half h, with the half's sign (q is added to the
 * half after the change, taken from the half before). */
static double slot_shape(const struct est *e, size_t h, uint32_t j)
{
	double shape = e->in.rows[e->in.samples[h / 2].row0 + j].shape;

	return h & 1 ? shape : -shape;
}

/* The modelled power over half h: what its threads' PCs draw per second
 * run, times the part of the time they ran (0: no thread takes energy);
 * and that of the shape term (*q). */
static double half_power(const struct est *e, size_t h, uint32_t k, double *q)
{
	const struct est_sample *s = &e->in.samples[h / 2];
	double wp = 0;

	*q = 0;
	for (uint32_t j = 0; j < s->nthreads; j++) {
		size_t row = slot_row(e, h, j);
		double p = slot_weight(e, h, j, row, k) * e->codes.power[e->in.rows[row].key];

		wp += p;
		*q += slot_shape(e, h, j) * p;
	}
	return wp;
}

/* Give half h's energy (spread over its overlap seconds, and the shape
 * term's per watt over its seconds) to its threads by modelled power; out
 * (the last round) gets each row's part. */
static void give_half(struct est *e, size_t h, uint32_t k, double *out)
{
	const struct est_sample *s = &e->in.samples[h / 2];
	double energy = e->halves.half_energy[h], overlap = e->halves.half_seconds[h];
	double energy_q = e->halves.half_energy_q[h], overlap_q = e->halves.half_seconds_q[h];
	double wp = 0, w = 0;

	for (uint32_t j = 0; j < s->nthreads; j++) {
		size_t row = slot_row(e, h, j);
		double wj = slot_weight(e, h, j, row, k);

		wp += wj * e->codes.power[e->in.rows[row].key];
		w += wj;
	}
	if (w <= 0)
		return;
	for (uint32_t j = 0; j < s->nthreads; j++) {
		size_t row = slot_row(e, h, j);
		double wj = slot_weight(e, h, j, row, k);
		double pj = wj * e->codes.power[e->in.rows[row].key], q = slot_shape(e, h, j);
		double part = (wp > 0 ? energy * pj / wp : energy * wj / w) + energy_q * q * pj;

		e->codes.num[e->in.rows[row].key] += part;
		e->codes.den[e->in.rows[row].key] += (overlap + overlap_q * q) * wj;
		if (out) {
			out[row * e->nsc + k] += part;
			(h & 1 ? e->out.second : e->out.first)[s->row0 + j] += part;
		}
	}
}

/* The chance that moment x belongs to span sp; mid, a point of the piece
 * of time x is taken in, decides a sharp edge. */
static double membership(const struct span *sp, double x, double mid)
{
	double in = sp->a > sp->a0 ? fmin(1, fmax(0, (x - sp->a0) / (sp->a - sp->a0))) : mid > sp->a;
	double out = sp->b > sp->b0 ? fmin(1, fmax(0, (x - sp->b0) / (sp->b - sp->b0))) : mid > sp->b;

	return in - out;
}

/* u clamped to [0, 1] (fmin and fmax are calls to libm here: this is
 * the estimator's innermost loop). */
static double clamp01(double u)
{
	return u < 0 ? 0 : u > 1 ? 1 : u;
}

/* At moment x of an interval, for its half at its PCs before (odd false)
 * or after (odd true): the chance that a thread runs that half's PC (*w),
 * the shape term u^2 - u (*q) and the chance that it runs neither (*mix).
 * The change from one PC to the other fell anywhere in the active part,
 * uniformly, so the first half's PC fades from 1 to 0 over it and the
 * second's grows.  In a long interval each fades over its fade from its
 * own end, the middle left between them is the mix, and there is no
 * shape term (no single change). */
static void half_at(const struct est_sample *s, bool odd, bool lng, double x, double *w,
		    double *q, double *mix)
{
	double u = clamp01((x - s->run_from) / s->fade), v;

	if (!lng) {
		*w = odd ? u : 1 - u;
		*q = u * u - u;
		*mix = 0;
		return;
	}
	v = clamp01(1 - (s->run_to - x) / s->fade);
	*w = odd ? v : 1 - u;
	*q = 0;
	*mix = u - v;
}

/* x into the sorted cuts c[0..n) */
static int add_cut(double *c, int n, double x)
{
	int i = n;

	for (; i > 0 && c[i - 1] > x; i--)
		c[i] = c[i - 1];
	c[i] = x;
	return n + 1;
}

/* The time of half h expected in span sp: the integral over the active
 * part of its PC's chance times the span's; *q that of the shape term,
 * and *mix (when given) that of the middle of a long interval.  Between
 * the span's corners and the fades' ends the one is linear, the other
 * quadratic, the span's chance linear: Simpson's rule is exact on each
 * piece. */
static double overlap_of(const struct est *e, size_t h, const struct span *sp, double *q,
			 double *mix)
{
	const struct est_sample *s = &e->in.samples[h / 2];
	double lo = fmax(half_start(e, h), sp->a0), hi = fmin(half_end(e, h), sp->b);
	double cut[6], ov = 0, oq = 0, om = 0;
	bool lng = is_long(s);
	int n = 0;

	*q = 0;
	if (mix)
		*mix = 0;
	if (!(hi > lo))
		return 0;
	n = add_cut(cut, n, lo);
	n = add_cut(cut, n, hi);
	n = add_cut(cut, n, fmin(fmax(sp->a, lo), hi));
	n = add_cut(cut, n, fmin(fmax(sp->b0, lo), hi));
	if (lng) {
		n = add_cut(cut, n, fmin(fmax(s->run_from + s->fade, lo), hi));
		n = add_cut(cut, n, fmin(fmax(s->run_to - s->fade, lo), hi));
	}
	for (int i = 0; i + 1 < n; i++) {
		double x[3] = { cut[i], (cut[i] + cut[i + 1]) / 2, cut[i + 1] };
		static const double simpson[3] = { 1, 4, 1 };

		if (!(x[2] > x[0]))
			continue;
		for (int j = 0; j < 3; j++) {
			double m = simpson[j] * (x[2] - x[0]) / 6 * membership(sp, x[j], x[1]);
			double w, sq, sm;

			half_at(s, h & 1, lng, x[j], &w, &sq, &sm);
			ov += w * m;
			oq += sq * m;
			om += sm * m;
		}
	}
	if (mix && lng)
		*mix = fmax(0, om);
	if (!(ov > 0))
		return 0;
	*q = oq;
	return ov;
}

/* The mean power of the lane's code per second run (its mix): the
 * powers of its rows' codes weighed by their CPU time. */
static double lane_power(const struct est *e, uint32_t l)
{
	size_t s0 = l ? e->in.lane_end[l - 1] : 0;
	double watts = 0, cpu = 0;

	for (size_t i = s0; i < e->in.lane_end[l]; i++)
		for (uint32_t j = 0; j < e->in.samples[i].nthreads; j++) {
			const struct est_row *r = &e->in.rows[e->in.samples[i].row0 + j];

			watts += r->cpu * e->codes.power[r->key];
			cpu += r->cpu;
		}
	return cpu > 0 ? watts / cpu : 0;
}

/* Every half's modelled power under the current powers, and every long
 * interval's middle's: a span meets several halves and a half several
 * spans, so each is summed once. */
static void model_halves(struct est *e, uint32_t k)
{
	size_t s0 = 0;

	for (size_t h = 0; h < 2 * e->in.nsamples; h++)
		e->halves.half_watts[h] = half_power(e, h, k, &e->halves.half_watts_q[h]);
	for (uint32_t l = 0; l < e->in.nlanes; s0 = e->in.lane_end[l++]) {
		double mean = lane_power(e, l);

		for (size_t i = s0; i < e->in.lane_end[l]; i++) {
			const struct est_sample *s = &e->in.samples[i];

			e->mix.mix_watts[i] = 0;
			for (uint32_t j = 0; is_long(s) && j < s->nthreads; j++)
				e->mix.mix_watts[i] += slot_weight(e, 2 * i + 1, j, s->row0 + j, k) * mean;
		}
	}
}

/* The halves of each lane that span sp may overlap: [from[l], to[l]),
 * from[l] moved on from where the previous span's search left it. */
static void lane_halves(const struct est *e, const struct span *sp, size_t *from, size_t *to)
{
	for (uint32_t l = 0; l < e->in.nlanes; l++) {
		size_t end = 2 * e->in.lane_end[l], h = from[l];

		while (h + 1 < end && half_end(e, h) <= sp->a0)
			h++;
		from[l] = h;
		for (to[l] = h; to[l] < end && half_start(e, to[l]) < sp->b; to[l]++)
			;
	}
}

/* The modelled energy (model_halves) of the halves [from, to) of every
 * lane within sp; each half's time in sp is kept in half_overlap (and
 * half_overlap_q), for spread to hand the energy out by (overlap_of is
 * the costly part). */
static double predicted(struct est *e, const struct span *sp, const size_t *from,
			const size_t *to)
{
	double total = 0;

	for (uint32_t l = 0; l < e->in.nlanes; l++)
		for (size_t g = from[l]; g < to[l]; g++) {
			e->halves.half_overlap[g] = overlap_of(e, g, sp, &e->halves.half_overlap_q[g],
							g & 1 ? &e->mix.mix_overlap[g / 2] : NULL);
			total += e->halves.half_overlap[g] * e->halves.half_watts[g] +
				 e->halves.half_overlap_q[g] * e->halves.half_watts_q[g];
			if (g & 1)
				total += e->mix.mix_overlap[g / 2] * e->mix.mix_watts[g / 2];
		}
	return total;
}

/* The middle of long intervals of lane l in span sp: its modelled energy
 * (model_halves, predicted). */
static double lane_middles(const struct est *e, uint32_t l, const size_t *from, const size_t *to)
{
	double watts = 0;

	for (size_t g = from[l] | 1; g < to[l]; g += 2)
		watts += e->mix.mix_overlap[g / 2] * e->mix.mix_watts[g / 2];
	return watts;
}

/* extra joules to lane l's rows in proportion to what they got from the
 * halves, the lane's mix of code (extra may be negative: the lanes'
 * totals); by CPU time where they got none.  A row whose sample lacks the
 * reading gets none. */
static void give_lane(struct est *e, uint32_t l, uint32_t k, double *out, double extra)
{
	size_t s0 = l ? e->in.lane_end[l - 1] : 0, s1 = e->in.lane_end[l], r0, r1;
	double got = 0, cpu = 0;

	if (extra == 0 || s1 == s0)
		return;
	r0 = e->in.samples[s0].row0;
	r1 = e->in.samples[s1 - 1].row0 + e->in.samples[s1 - 1].nthreads;
	for (size_t r = r0; r < r1; r++) {
		size_t sample = e->in.rows[r].sample;

		got += out[r * e->nsc + k];
		if (!(sample < e->in.nown && isnan(e->in.values[sample * e->nsc + k])))
			cpu += e->in.rows[r].cpu;
	}
	for (size_t r = r0; r < r1; r++) {
		size_t sample = e->in.rows[r].sample;
		double part;

		if (got > 0) {
			double scale = fmax(-1, extra / got);

			part = out[r * e->nsc + k] * scale;
			e->out.first[r] += e->out.first[r] * scale;
			e->out.second[r] += e->out.second[r] * scale;
		} else if (extra > 0 && cpu > 0 &&
			   !(sample < e->in.nown && isnan(e->in.values[sample * e->nsc + k]))) {
			part = extra * e->in.rows[r].cpu / cpu;
		} else {
			continue;
		}
		out[r * e->nsc + k] += part;
	}
}

/* What lane l's total moves by so that the lanes share the meter's
 * spans that several of them meet in proportion to their modelled energy
 * in them, not as the sum of each span's split (docs/ENERGY.md, "Ranks
 * sharing a node"): a lane whose intervals are longer (its sampler got
 * less CPU) is spread thin over them, takes part of every span where it
 * did not run and loses none where it did to a lane placed sharply, so
 * the sum of the splits favours it.  The sum of its modelled energy does
 * not depend on where in its intervals it is placed: its CPU time at its
 * code's fitted power.  One lane: nothing to share, 0. */
static double lane_settle(const struct est *e, uint32_t l)
{
	if (e->in.nlanes < 2 || !(e->mix.shared_model > 0))
		return 0;
	return e->mix.shared_energy * e->mix.lane_model[l] / e->mix.shared_model - e->mix.lane_meter[l];
}

/* A meter span's energy to the halves and middles of every lane by their
 * modelled energy in it (predicted: total), and to the lanes' sums. */
static void give_span(struct est *e, const struct span *sp, const size_t *from, const size_t *to,
		      double total)
{
	double lane[ENERGY_MAX_PEERS + 1];
	uint32_t present = 0;

	for (uint32_t l = 0; l < e->in.nlanes; l++) {
		lane[l] = lane_middles(e, l, from, to);
		e->mix.lane_mix[l] += sp->energy * lane[l] / total;
		for (size_t g = from[l]; g < to[l]; g++) {
			double ov = e->halves.half_overlap[g];

			if (ov > 0) {
				e->halves.half_energy[g] += sp->energy * ov * e->halves.half_watts[g] / total;
				e->halves.half_seconds[g] += ov;
				e->halves.half_energy_q[g] += sp->energy * e->halves.half_overlap_q[g] / total;
				e->halves.half_seconds_q[g] += e->halves.half_overlap_q[g];
				lane[l] += ov * e->halves.half_watts[g] +
					   e->halves.half_overlap_q[g] * e->halves.half_watts_q[g];
			}
		}
		present += lane[l] > 0;
	}
	if (present < 2)	/* (a span of one lane is its own) */
		return;
	e->mix.shared_energy += sp->energy;
	e->mix.shared_model += total;
	for (uint32_t l = 0; l < e->in.nlanes; l++) {
		e->mix.lane_model[l] += lane[l];
		e->mix.lane_meter[l] += sp->energy * lane[l] / total;
	}
}

static void lanes_start(const struct est *e, size_t *from)
{
	for (uint32_t l = 0; l < e->in.nlanes; l++)
		from[l] = l ? 2 * e->in.lane_end[l - 1] : 0;
}

/* Whether span sp meets lane 0's run (the peers' readings make spans
 * before and after it too: nodespans.c). */
static bool within_own_run(const struct est *e, const struct span *sp)
{
	return e->in.nown && sp->b > e->in.samples[0].start && sp->a0 < e->in.samples[e->in.nown - 1].time;
}

/* One round: every span's energy to the halves it overlaps, by overlap
 * times modelled power; a span that overlaps none (before the first
 * sample, or of no length) and meets lane 0's run to the half it ends in
 * or the next.  What a half receives is summed over the spans, then
 * handed to its threads in one pass (give_half is linear in both), so a
 * round costs one pass over the spans and one over the rows, however
 * many spans meet a half. */
void spread_energy(struct est *e, uint32_t k, double *out)
{
	size_t from[ENERGY_MAX_PEERS + 1], to[ENERGY_MAX_PEERS + 1], nh = 2 * e->in.nsamples;

	memset(e->codes.num, 0, e->codes.nkeys * sizeof(double));
	memset(e->codes.den, 0, e->codes.nkeys * sizeof(double));
	memset(e->halves.half_energy, 0, nh * sizeof(double));
	memset(e->halves.half_seconds, 0, nh * sizeof(double));
	memset(e->halves.half_energy_q, 0, nh * sizeof(double));
	memset(e->halves.half_seconds_q, 0, nh * sizeof(double));
	memset(e->mix.lane_mix, 0, sizeof(e->mix.lane_mix));
	memset(e->mix.lane_model, 0, sizeof(e->mix.lane_model));
	memset(e->mix.lane_meter, 0, sizeof(e->mix.lane_meter));
	e->mix.shared_energy = e->mix.shared_model = 0;
	model_halves(e, k);
	lanes_start(e, from);
	for (size_t i = 0; i < e->meter.nspans; i++) {
		const struct span *sp = &e->meter.spans[i];
		bool model = isnan(sp->energy);
		double total;

		if (model && !out)	/* the fit learns from the meter's spans only */
			continue;
		lane_halves(e, sp, from, to);
		total = predicted(e, sp, from, to);
		if (model) {		/* what no update saw: the fitted powers */
			for (uint32_t l = 0; l < e->in.nlanes; l++) {
				e->mix.lane_mix[l] += lane_middles(e, l, from, to);
				for (size_t g = from[l]; g < to[l]; g++)
					if (e->halves.half_overlap[g] > 0) {
						e->halves.half_energy[g] += e->halves.half_overlap[g] *
								     e->halves.half_watts[g];
						e->halves.half_seconds[g] += e->halves.half_overlap[g];
						e->halves.half_energy_q[g] += e->halves.half_overlap_q[g];
						e->halves.half_seconds_q[g] += e->halves.half_overlap_q[g];
					}
			}
			continue;
		}
		if (!(total > 0)) {	/* (lane 0's half: the meter's own profile) */
			size_t g = from[0], end = 2 * e->in.lane_end[0];

			while (g + 1 < end && half_end(e, g) < sp->b)
				g++;
			if (end && within_own_run(e, sp))
				e->halves.half_energy[g] += sp->energy;
			continue;
		}
		give_span(e, sp, from, to, total);
	}
	for (size_t g = 0; g < nh; g++)
		if (e->halves.half_energy[g] != 0 || e->halves.half_seconds[g] != 0)
			give_half(e, g, k, out);
	for (uint32_t l = 0; out && l < e->in.nlanes; l++)
		give_lane(e, l, k, out, e->mix.lane_mix[l] + lane_settle(e, l));
}

double mean_interval(const struct est *e)
{
	return e->in.nown ? (e->in.samples[e->in.nown - 1].time - e->in.samples[0].start) /
			 (double)e->in.nown : 0;
}

/* How far the powers moved from a to b: the energy they move at the time
 * the spans give each code, relative to the energy (a rare code's power
 * may still creep toward the prior's pull: it moves little energy). */
static double energy_moved(const struct est *e, const double *a, const double *b, uint32_t n)
{
	double moved = 0, total = 0;

	for (uint32_t i = 0; i < n; i++) {
		moved += fabs(b[i] - a[i]) * e->codes.den[i];
		total += a[i] * e->codes.den[i];
	}
	return total > 0 ? moved / total : 0;
}

/* The power of each PC: energy given to it / time given to it, from the
 * profile's mean power on (a PC seen once keeps about the mean: a prior
 * of half an interval at it), round after round until the fixed point
 * (FIT_ROUNDS rounds for a delay's try or with node peers); a last
 * spread_energy() then gives the energy out. */
void fit_powers(struct est *e, uint32_t k, bool scan)
{
	double energy = 0, time = 0, mean, prior = mean_interval(e) / 2;
	double *next = e->codes.fit_next;
	bool fixed = scan || e->in.nlanes > 1;

	for (size_t i = 0; i < e->meter.nspans; i++)
		if (!isnan(e->meter.spans[i].energy))	/* (a model span's is the fit's) */
			energy += e->meter.spans[i].energy;
	for (size_t i = 0; i < e->in.nsamples; i++)	/* per second run */
		time += e->in.samples[i].cpu > 0 ? e->in.samples[i].cpu :
			e->in.samples[i].time - e->in.samples[i].start;
	mean = time > 0 && energy > 0 ? energy / time : 1;
	for (uint32_t key = 0; key < e->codes.nkeys; key++)
		e->codes.power[key] = mean;
	for (int round = 1; round < (fixed ? FIT_ROUNDS : FIT_MAX_ROUNDS); round++) {
		double moved;

		spread_energy(e, k, NULL);
		for (uint32_t key = 0; key < e->codes.nkeys; key++)
			next[key] = (e->codes.num[key] + mean * prior) / (e->codes.den[key] + prior);
		moved = energy_moved(e, e->codes.power, next, e->codes.nkeys);
		memcpy(e->codes.power, next, e->codes.nkeys * sizeof(double));
		if (!fixed && moved < FIT_TOL)
			break;
	}
}

/* How far the spans' energies are from what the fitted powers predict,
 * relative to the energies themselves. */
double spread_residual(struct est *e, uint32_t k)
{
	size_t from[ENERGY_MAX_PEERS + 1], to[ENERGY_MAX_PEERS + 1];
	double r = 0, sum = 0;

	model_halves(e, k);
	lanes_start(e, from);
	for (size_t i = 0; i < e->meter.nspans; i++) {
		const struct span *sp = &e->meter.spans[i];
		double pred;

		if (isnan(sp->energy))
			continue;
		lane_halves(e, sp, from, to);
		pred = predicted(e, sp, from, to);
		r += (sp->energy - pred) * (sp->energy - pred);
		sum += sp->energy * sp->energy;
	}
	return sum > 0 ? r / sum : 0;
}
