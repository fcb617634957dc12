/* attribution.c - the end rule and the trapezoid estimator (attribution.h;
 * the derivation is in docs/ACCURACY.md). */
#include "attribution.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "../common/grow.h"
#include "export.h"

#define NO_ROW SIZE_MAX
/* Rounds of the per-PC power fit (a fixed-point iteration from equal
 * powers): on t2110's runs 5 rounds left gamma 2-4 points too high, 20
 * and 60 gave the same shares. */
#define FIT_ROUNDS 20
/* RAPL's counters update about every millisecond (Intel SDM, 976 us on
 * most parts); taken when every sample interval saw an update, so that
 * the profile cannot tell. */
#define RAPL_UPDATE_S 0.000976
/* Samples up to which the delay is fitted (70 fits of FIT_ROUNDS rounds
 * each; a longer profile takes the given delay or 0). */
#define FIT_DELAY_MAX 50000

int energy_rule_parse(const char *name, enum energy_rule *rule, struct error *err)
{
	if (strcmp(name, "trapezoid") == 0)
		*rule = ENERGY_RULE_TRAPEZOID;
	else if (strcmp(name, "end") == 0)
		*rule = ENERGY_RULE_END;
	else
		return error_set(err, "unknown --energy-rule '%s' (use trapezoid or end)", name);
	return 0;
}

double attribute_energy(const struct profile_sample *s, double energy, double *shares)
{
	uint64_t total_cpu = 0;
	uint32_t i;

	if (isnan(energy) || s->nthreads == 0) {
		for (i = 0; i < s->nthreads; i++)
			shares[i] = 0;
		return 0;
	}
	for (i = 0; i < s->nthreads; i++)
		total_cpu += s->threads[i].cpu_delta_ns;
	for (i = 0; i < s->nthreads; i++) {
		if (total_cpu)
			shares[i] = energy * ((double)s->threads[i].cpu_delta_ns / (double)total_cpu);
		else
			shares[i] = energy / s->nthreads;
	}
	return energy;
}

/* ---- the trapezoid estimator ------------------------------------------ */

struct est_sample {
	double start, time;		/* its interval, s since the recording's start */
	double active;			/* when its threads were let run again (start + the
					 * sampler's mean hold, at most what CPU time allows) */
	double read;			/* when its meters were read: at the end of the
					 * hold that follows it (the next one's active) */
	double cpu_max;			/* the most CPU time one thread used in it */
	size_t row0;
	uint32_t nthreads;
	double cpu;			/* its threads' CPU time in the interval, s */
	bool brk;			/* first of a window: nothing known before it */
};

struct est_row {
	uint32_t tid, pid;
	uint32_t key;			/* index of its code among the distinct codes */
	uint64_t pc;
	uint64_t code;			/* its PC as (file, offset): est_code */
	double cpu;			/* s */
	size_t sample;
	size_t prev;			/* the thread's row in the previous sample, or NO_ROW */
};

/* A mapping of a file, for est_code. */
struct est_map {
	uint32_t pid;
	uint64_t start, end, pgoff;
	uint64_t file;			/* (device, inode) */
};

/* The energy one meter update reports, and the time it covers: from the
 * previous update to this one, each known only to lie somewhere in a
 * window (uniformly): a time t belongs to the span with the probability
 * that the previous update came before t and this one after it, rising
 * over [a0, a] and falling over [b0, b] (a0 == a, b0 == b: sharp). */
struct span {
	double a0, a, b0, b, energy;
};

/* The profile exported is lane 0; the other lanes are its node peers:
 * profiles of the same host whose threads draw from the node meter that
 * lane 0's readings count (attribution.h). */
struct est {
	const struct profile_info *info;
	uint32_t nsc;
	struct est_sample *samples;
	size_t nsamples, samples_cap;
	size_t nown;			/* lane 0's samples: the readings, the output */
	uint32_t nlanes;
	size_t lane_end[ENERGY_MAX_PEERS + 1];	/* [lane]: one past its last sample */
	struct est_row *rows;
	size_t nrows, rows_cap;
	double *values;			/* [sample * nsc + k] */
	size_t values_cap;
	struct span *spans;
	size_t nspans, spans_cap;
	struct est_map *maps;
	size_t nmaps, maps_cap;
	uint32_t nkeys;
	double *power, *num, *den;	/* per key */
	/* per half (2 * nsamples), one round's: its modelled power, and the
	 * energy and seconds the spans give it (handed to its threads once);
	 * and its expected time in the span at hand (predicted) */
	double *half_watts, *half_energy, *half_seconds, *half_overlap;
	/* the last round: the energy given to each thread's slots of a
	 * sample's interval, [own row], the first half's (at the thread's
	 * previous PC) and the second's (at its PC now) */
	double *first, *second;
};

static size_t find_prev(const struct est *e, const struct est_sample *p, uint32_t tid, uint32_t j)
{
	if (j < p->nthreads && e->rows[p->row0 + j].tid == tid)
		return p->row0 + j;	/* the usual case: the same order */
	for (uint32_t i = 0; i < p->nthreads; i++)
		if (e->rows[p->row0 + i].tid == tid)
			return p->row0 + i;
	return NO_ROW;
}

/* The estimate holds about 100 bytes per sample and thread-sample; past
 * this many it is not built and the end rule serves (memory stays bounded,
 * about 20 MB, however long the recording). */
#define ESTIMATE_MAX_ITEMS 200000

static int add_sample(struct est *e, const struct profile_sample *s, uint64_t prev_ns, bool brk,
		      bool peer)
{
	uint64_t t0 = e->info->host.start_ns;
	struct est_sample *es;

	if (GROW_ARRAY(e->samples, e->samples_cap, e->nsamples + 1) < 0 ||
	    GROW_ARRAY(e->rows, e->rows_cap, e->nrows + s->nthreads) < 0 ||
	    GROW_ARRAY(e->values, e->values_cap, (e->nsamples + 1) * e->nsc + 1) < 0)
		return -1;
	es = &e->samples[e->nsamples];
	es->time = (double)((int64_t)(s->time_ns - t0)) * 1e-9;
	es->start = prev_ns < s->time_ns ? (double)((int64_t)(prev_ns - t0)) * 1e-9 : es->time;
	es->row0 = e->nrows;
	es->nthreads = s->nthreads;
	es->cpu = es->cpu_max = 0;
	es->brk = brk;
	for (uint32_t j = 0; j < s->nthreads; j++) {
		struct est_row *row = &e->rows[e->nrows + j];

		row->tid = s->threads[j].tid;
		row->pid = s->threads[j].pid;
		row->pc = s->threads[j].pc;
		row->cpu = (double)s->threads[j].cpu_delta_ns * 1e-9;
		row->sample = e->nsamples;
		row->prev = brk || !e->nsamples ? NO_ROW :
			    find_prev(e, &e->samples[e->nsamples - 1], row->tid, j);
		es->cpu += row->cpu;
		es->cpu_max = fmax(es->cpu_max, row->cpu);
	}
	if (peer)	/* its threads draw from the node whatever it read */
		memset(e->values + e->nsamples * e->nsc, 0, e->nsc * sizeof(double));
	else
		memcpy(e->values + e->nsamples * e->nsc, s->values, e->nsc * sizeof(double));
	e->nrows += s->nthreads;
	e->nsamples++;
	return 0;
}

/* Every sample of input, with the interval it closes as rows.c has it, as
 * the next lane; a peer's readings are not used (lane 0's count the node). */
static int collect(struct est *e, const char *input, bool peer, struct error *err)
{
	struct profile_record rec;
	struct profile_reader *r = profile_reader_open(input, err);
	uint64_t prev = e->info->host.start_ns;
	size_t first = e->nsamples;
	double hold = 0;
	bool brk = true;

	if (!r)
		return -1;
	if (peer) {
		const struct profile_info *pi = profile_reader_info(r);

		if (strcmp(pi->host.hostname, e->info->host.hostname) != 0) {
			error_set(err, "--node-peer %s: recorded on %s, not on %s (a node's meter "
				  "is shared by the profiles of one host only)", input,
				  pi->host.hostname, e->info->host.hostname);
			profile_reader_close(r);
			return -1;
		}
		prev = pi->host.start_ns;	/* (one host: one monotonic clock) */
	}
	while (profile_read_next(r, &rec, NULL) > 0) {
		if (rec.type == PROFILE_REC_STATS && rec.stats.samples)
			hold = (double)rec.stats.latency_ns * 1e-9 / (double)rec.stats.samples;
		if (rec.type == PROFILE_REC_MAP && rec.map.inode &&
		    (rec.map.prot & PROT_EXEC)) {
			struct est_map *m;

			if (GROW_ARRAY(e->maps, e->maps_cap, e->nmaps + 1) < 0) {
				profile_reader_close(r);
				return error_set(err, "out of memory for the energy estimate's maps");
			}
			m = &e->maps[e->nmaps++];
			*m = (struct est_map){ rec.map.pid, rec.map.start, rec.map.start + rec.map.len,
					       rec.map.pgoff,
					       rec.map.inode * 0x9E3779B97F4A7C15u ^
					       ((uint64_t)rec.map.dev_major << 32 | rec.map.dev_minor) };
		}
		if (rec.type == PROFILE_REC_WINDOW && rec.window.enabled) {
			prev = rec.window.time_ns;
			brk = true;	/* the energy before it was not counted */
		}
		if (rec.type != PROFILE_REC_SAMPLE)
			continue;
		if (e->nsamples + e->nrows + rec.sample.nthreads > ESTIMATE_MAX_ITEMS) {
			profile_reader_close(r);
			return 1;
		}
		if (add_sample(e, &rec.sample, prev, brk, peer) < 0) {
			profile_reader_close(r);
			return error_set(err, "out of memory for the energy estimate of %zu samples",
					 e->nsamples);
		}
		prev = rec.sample.time_ns;
		brk = false;
	}
	profile_reader_close(r);
	/* The threads are held stopped at their PCs for a while after each
	 * sample (reading them, the meters): what they run, and the energy
	 * it takes, comes after that. */
	for (size_t i = first; i < e->nsamples; i++) {
		struct est_sample *s = &e->samples[i];

		s->active = s->start + fmin(hold, fmax(0, s->time - s->start - s->cpu_max));
	}
	for (size_t i = first; i < e->nsamples; i++) {
		struct est_sample *s = &e->samples[i];
		const struct est_sample *next = i + 1 < e->nsamples ? s + 1 : NULL;

		s->read = next && !next->brk ? next->active : s->time + hold;
	}
	if (!peer)
		e->nown = e->nsamples;
	e->lane_end[e->nlanes++] = e->nsamples;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* A PC as the code it runs: its file and offset in it when a mapping of
 * a file holds it (the ranks of a job run one binary at addresses that
 * differ, ASLR: one power fitted for the code of all of them), else the
 * PC (with its top bit set, apart from the offsets). */
static uint64_t est_code(const struct est *e, uint32_t pid, uint64_t pc)
{
	for (size_t i = e->nmaps; i-- > 0;) {	/* the latest mapping first */
		const struct est_map *m = &e->maps[i];

		if (m->pid == pid && pc >= m->start && pc < m->end)
			return m->file * 0xBF58476D1CE4E5B9u + (pc - m->start + m->pgoff);
	}
	return pc | 1ull << 63;
}

/* Number the distinct codes: the power is fitted per code (est_code). */
static int number_keys(struct est *e)
{
	uint64_t *pcs = malloc((e->nrows + 1) * sizeof(*pcs));
	size_t n = 0;

	if (!pcs)
		return -1;
	for (size_t i = 0; i < e->nrows; i++) {
		/* (a thread keeps its code from one sample to the next) */
		size_t p = e->rows[i].prev;

		e->rows[i].code = p != NO_ROW && e->rows[p].pc == e->rows[i].pc ?
				  e->rows[p].code : est_code(e, e->rows[i].pid, e->rows[i].pc);
		pcs[i] = e->rows[i].code;
	}
	qsort(pcs, e->nrows, sizeof(*pcs), cmp_u64);
	for (size_t i = 0; i < e->nrows; i++)
		if (!n || pcs[n - 1] != pcs[i])
			pcs[n++] = pcs[i];
	for (size_t i = 0; i < e->nrows; i++) {
		const uint64_t *p = bsearch(&e->rows[i].code, pcs, n, sizeof(*pcs), cmp_u64);

		e->rows[i].key = (uint32_t)(p - pcs);
	}
	free(pcs);
	e->nkeys = (uint32_t)n;
	e->power = calloc(n + 1, sizeof(double));
	e->num = calloc(n + 1, sizeof(double));
	e->den = calloc(n + 1, sizeof(double));
	return e->power && e->num && e->den ? 0 : -1;
}

/* The per-half sums of a round (spread, residual). */
static int alloc_halves(struct est *e)
{
	e->half_watts = calloc(2 * e->nsamples + 1, sizeof(double));
	e->half_energy = calloc(2 * e->nsamples + 1, sizeof(double));
	e->half_seconds = calloc(2 * e->nsamples + 1, sizeof(double));
	e->half_overlap = calloc(2 * e->nsamples + 1, sizeof(double));
	return e->half_watts && e->half_energy && e->half_seconds && e->half_overlap ? 0 : -1;
}

/* Half h of the sample intervals: 2i is the half of sample i's interval
 * at its threads' PCs of the previous sample, 2i+1 the half at their PCs
 * of sample i.  Both cover the interval's active part, weighted
 * (half_weight): each holds half of it. */
static double half_start(const struct est *e, size_t h)
{
	return e->samples[h / 2].active;
}

static double half_end(const struct est *e, size_t h)
{
	return e->samples[h / 2].time;
}

static size_t slot_row(const struct est *e, size_t h, uint32_t j)
{
	size_t own = e->samples[h / 2].row0 + j;

	if (h & 1 || e->rows[own].prev == NO_ROW)
		return own;
	return e->rows[own].prev;
}

/* A thread's share of the wall time of its sample's interval that it ran
 * (its CPU time / the interval; 1/nthreads each when none ran: they all
 * waited while the machine spent it); 0 for a row whose sample lacks the
 * reading (its cell stays empty, so it cannot carry energy). */
static double slot_weight(const struct est *e, size_t h, uint32_t j, size_t row, uint32_t k)
{
	const struct est_sample *s = &e->samples[h / 2];
	double wall = s->time - s->active;

	if (isnan(e->values[e->rows[row].sample * e->nsc + k]))
		return 0;
	if (s->cpu > 0 && wall > 0)
		return fmin(1, e->rows[s->row0 + j].cpu / wall);
	return 1.0 / s->nthreads;
}

/* The modelled power over half h: what its threads' PCs draw per second
 * run, times the part of the time they ran (0: no thread takes energy). */
static double half_power(const struct est *e, size_t h, uint32_t k)
{
	const struct est_sample *s = &e->samples[h / 2];
	double wp = 0;

	for (uint32_t j = 0; j < s->nthreads; j++) {
		size_t row = slot_row(e, h, j);

		wp += slot_weight(e, h, j, row, k) * e->power[e->rows[row].key];
	}
	return wp;
}

/* Give energy, spread over overlap seconds of half h, to its threads by
 * modelled power; out (the last round) gets each row's part. */
static void give_half(struct est *e, size_t h, uint32_t k, double energy, double overlap,
		      double *out)
{
	const struct est_sample *s = &e->samples[h / 2];
	double wp = 0, w = 0;

	for (uint32_t j = 0; j < s->nthreads; j++) {
		size_t row = slot_row(e, h, j);
		double wj = slot_weight(e, h, j, row, k);

		wp += wj * e->power[e->rows[row].key];
		w += wj;
	}
	if (w <= 0)
		return;
	for (uint32_t j = 0; j < s->nthreads; j++) {
		size_t row = slot_row(e, h, j);
		double wj = slot_weight(e, h, j, row, k);
		double part = wp > 0 ? energy * wj * e->power[e->rows[row].key] / wp :
			      energy * wj / w;

		e->num[e->rows[row].key] += part;
		e->den[e->rows[row].key] += overlap * wj;
		if (out) {
			out[row * e->nsc + k] += part;
			(h & 1 ? e->second : e->first)[s->row0 + j] += part;
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

/* The chance that at moment x a thread of half h's interval runs its PC
 * of that half: the change from one PC to the other fell anywhere in the
 * active part, uniformly, so the first half's PC fades from 1 to 0 over it
 * and the second's grows. */
static double half_weight(const struct est *e, size_t h, double x)
{
	const struct est_sample *s = &e->samples[h / 2];
	double u = (x - s->active) / (s->time - s->active);

	return h & 1 ? u : 1 - u;
}

/* The time of half h expected in span sp: the integral over the active
 * part of its PC's chance times the span's.  Between the span's corners
 * both are linear, so Simpson's rule is exact on each piece. */
static double overlap_of(const struct est *e, size_t h, const struct span *sp)
{
	double lo = fmax(half_start(e, h), sp->a0), hi = fmin(half_end(e, h), sp->b);
	double cut[4], ov = 0;

	if (!(hi > lo))
		return 0;
	cut[0] = lo;
	cut[1] = fmin(fmax(sp->a, lo), hi);
	cut[2] = fmin(fmax(sp->b0, cut[1]), hi);
	cut[3] = hi;
	for (int i = 0; i < 3; i++) {
		double x0 = cut[i], x1 = cut[i + 1], mid = (x0 + x1) / 2;

		if (x1 > x0)
			ov += (x1 - x0) / 6 *
			      (half_weight(e, h, x0) * membership(sp, x0, mid) +
			       4 * half_weight(e, h, mid) * membership(sp, mid, mid) +
			       half_weight(e, h, x1) * membership(sp, x1, mid));
	}
	return ov > 0 ? ov : 0;
}

/* Every half's modelled power under the current powers: a span meets
 * several halves and a half several spans, so each is summed once. */
static void model_halves(struct est *e, uint32_t k)
{
	for (size_t h = 0; h < 2 * e->nsamples; h++)
		e->half_watts[h] = half_power(e, h, k);
}

/* The halves of each lane that span sp may overlap: [from[l], to[l]),
 * from[l] moved on from where the previous span's search left it. */
static void lane_halves(const struct est *e, const struct span *sp, size_t *from, size_t *to)
{
	for (uint32_t l = 0; l < e->nlanes; l++) {
		size_t end = 2 * e->lane_end[l], h = from[l];

		while (h + 1 < end && half_end(e, h) <= sp->a0)
			h++;
		from[l] = h;
		for (to[l] = h; to[l] < end && half_start(e, to[l]) < sp->b; to[l]++)
			;
	}
}

/* The modelled energy (model_halves) of the halves [from, to) of every
 * lane within sp; each half's time in sp is kept in half_overlap, for
 * spread to hand the energy out by (overlap_of is the costly part). */
static double predicted(struct est *e, const struct span *sp, const size_t *from,
			const size_t *to)
{
	double total = 0;

	for (uint32_t l = 0; l < e->nlanes; l++)
		for (size_t g = from[l]; g < to[l]; g++) {
			e->half_overlap[g] = overlap_of(e, g, sp);
			total += e->half_overlap[g] * e->half_watts[g];
		}
	return total;
}

static void lanes_start(const struct est *e, size_t *from)
{
	for (uint32_t l = 0; l < e->nlanes; l++)
		from[l] = l ? 2 * e->lane_end[l - 1] : 0;
}

/* One round: every span's energy to the halves it overlaps, by overlap
 * times modelled power; a span that overlaps none (before the first
 * sample, or of no length) to the half it ends in or the next.  What a
 * half receives is summed over the spans, then handed to its threads in
 * one pass (give_half is linear in both), so a round costs one pass over
 * the spans and one over the rows, however many spans meet a half. */
static void spread(struct est *e, uint32_t k, double *out)
{
	size_t from[ENERGY_MAX_PEERS + 1], to[ENERGY_MAX_PEERS + 1], nh = 2 * e->nsamples;

	memset(e->num, 0, e->nkeys * sizeof(double));
	memset(e->den, 0, e->nkeys * sizeof(double));
	memset(e->half_energy, 0, nh * sizeof(double));
	memset(e->half_seconds, 0, nh * sizeof(double));
	model_halves(e, k);
	lanes_start(e, from);
	for (size_t i = 0; i < e->nspans; i++) {
		const struct span *sp = &e->spans[i];
		double total;

		lane_halves(e, sp, from, to);
		total = predicted(e, sp, from, to);
		if (!(total > 0)) {	/* (lane 0's half: the meter's own profile) */
			size_t g = from[0], end = 2 * e->lane_end[0];

			while (g + 1 < end && half_end(e, g) < sp->b)
				g++;
			if (end)
				e->half_energy[g] += sp->energy;
			continue;
		}
		for (uint32_t l = 0; l < e->nlanes; l++)
			for (size_t g = from[l]; g < to[l]; g++) {
				double ov = e->half_overlap[g];

				if (ov > 0) {
					e->half_energy[g] += sp->energy * ov * e->half_watts[g] / total;
					e->half_seconds[g] += ov;
				}
			}
	}
	for (size_t g = 0; g < nh; g++)
		if (e->half_energy[g] != 0 || e->half_seconds[g] != 0)
			give_half(e, g, k, e->half_energy[g], e->half_seconds[g], out);
}

/* The split of each interval between a thread's two PCs, when they
 * differ: the thread changed code at an unknown point uT of the interval's
 * active time T (u uniform); with powers P_a before and P_b after, the
 * rule gives the first side E P_a / (P_a + P_b) of E = P_a uT + P_b (1-u)T,
 * an error of T P_a P_b (1 - 2u) / (P_a + P_b), whose variance is
 * (4/3) (e_a e_b / (e_a + e_b))^2 in the sides' energies e_a and e_b
 * (docs/ACCURACY.md). */
static void transfer_var(const struct est *e, uint32_t k, double *xfer_var)
{
	for (size_t r = 0; r < e->nrows; r++) {
		size_t p = e->rows[r].prev;
		double a = e->first[r], b = e->second[r], x;

		if (p == NO_ROW || e->rows[p].pc == e->rows[r].pc || !(a + b > 0))
			continue;
		x = a * b / (a + b);
		xfer_var[r * e->nsc + k] = 4.0 / 3.0 * x * x;
	}
}

/* The meter's update interval: the mean time between updates when some
 * intervals saw none; else it is at most the sampling interval, and only
 * RAPL's known period (or an option) can tell more. */
static void measure_meter(struct est *e, uint32_t k, enum channel_kind kind, const char *source,
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
static int build_spans(struct est *e, uint32_t k, enum channel_kind kind,
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

static double mean_interval(const struct est *e)
{
	return e->nown ? (e->samples[e->nown - 1].time - e->samples[0].start) /
			 (double)e->nown : 0;
}

/* The power of each PC: energy given to it / time given to it, from the
 * profile's mean power on (a PC seen once keeps about the mean), round
 * after round; a last spread() then gives the energy out. */
static void fit_powers(struct est *e, uint32_t k)
{
	double energy = 0, time = 0, mean, prior = mean_interval(e) / 2;

	for (size_t i = 0; i < e->nspans; i++)
		energy += e->spans[i].energy;
	for (size_t i = 0; i < e->nsamples; i++)	/* per second run */
		time += e->samples[i].cpu > 0 ? e->samples[i].cpu :
			e->samples[i].time - e->samples[i].start;
	mean = time > 0 && energy > 0 ? energy / time : 1;
	for (uint32_t key = 0; key < e->nkeys; key++)
		e->power[key] = mean;
	for (int round = 0; round < FIT_ROUNDS - 1; round++) {
		spread(e, k, NULL);
		for (uint32_t key = 0; key < e->nkeys; key++)
			e->power[key] = (e->num[key] + mean * prior) / (e->den[key] + prior);
	}
}

/* How far the spans' energies are from what the fitted powers predict,
 * relative to the energies themselves. */
static double residual(struct est *e, uint32_t k)
{
	size_t from[ENERGY_MAX_PEERS + 1], to[ENERGY_MAX_PEERS + 1];
	double r = 0, sum = 0;

	model_halves(e, k);
	lanes_start(e, from);
	for (size_t i = 0; i < e->nspans; i++) {
		const struct span *sp = &e->spans[i];
		double pred;

		lane_halves(e, sp, from, to);
		pred = predicted(e, sp, from, to);
		r += (sp->energy - pred) * (sp->energy - pred);
		sum += sp->energy * sp->energy;
	}
	return sum > 0 ? r / sum : 0;
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
static int fit_delay(struct est *e, uint32_t k, enum channel_kind kind, struct meter_model *m)
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
static int apply_option(const struct profile_info *info, const struct meter_option *o,
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

static void est_free(struct est *e)
{
	free(e->samples);
	free(e->rows);
	free(e->values);
	free(e->spans);
	free(e->power);
	free(e->num);
	free(e->den);
	free(e->half_watts);
	free(e->half_energy);
	free(e->half_seconds);
	free(e->half_overlap);
	free(e->first);
	free(e->second);
	free(e->maps);
}

int energy_estimate_build(struct energy_estimate *est, const char *input,
			  const char *const *peers, uint32_t npeers,
			  const struct profile_info *info, const struct meter_option *opts,
			  uint32_t nopts, struct error *err)
{
	struct est e = { .info = info, .nsc = info->nsample_channels };
	int ret = -1;

	memset(est, 0, sizeof(*est));
	est->nchannels = e.nsc;
	for (uint32_t k = 0; k < e.nsc; k++) {
		est->meter[k].update_s = NAN;
		est->meter[k].delay_s = NAN;
	}
	for (uint32_t i = 0; i < nopts; i++)
		if (apply_option(info, &opts[i], est->meter, err) < 0)
			return -1;
	if (npeers > ENERGY_MAX_PEERS)
		return error_set(err, "%u --node-peer profiles (at most %d)", npeers,
				 ENERGY_MAX_PEERS);
	ret = collect(&e, input, false, err);
	for (uint32_t i = 0; i < npeers && ret == 0; i++)
		ret = collect(&e, peers[i], true, err);
	if (ret != 0) {		/* -1: err set; 1: too long a profile */
		if (ret > 0)
			warn_print(EXPORT_PROG, "%s: energy divided by the end rule: the trapezoid "
				   "estimate keeps at most %d samples and thread-samples in memory "
				   "(--energy-rule end says this is wanted)", input, ESTIMATE_MAX_ITEMS);
		est_free(&e);
		energy_estimate_free(est);
		return ret;
	}
	ret = -1;
	if (number_keys(&e) < 0 || alloc_halves(&e) < 0 ||
	    !(est->energy = calloc(e.nrows * e.nsc + 1, sizeof(double))) ||
	    !(est->xfer_var = calloc(e.nrows * e.nsc + 1, sizeof(double))) ||
	    !(est->prev = malloc((e.nrows + 1) * sizeof(size_t))) ||
	    !(est->next = malloc((e.nrows + 1) * sizeof(size_t))) ||
	    !(est->pc = malloc((e.nrows + 1) * sizeof(uint64_t))) ||
	    !(e.first = malloc((e.nrows + 1) * sizeof(double))) ||
	    !(e.second = malloc((e.nrows + 1) * sizeof(double))) ||
	    !(est->row0 = malloc((e.nown + 1) * sizeof(size_t)))) {
		error_set(err, "out of memory for the energy estimate of %zu samples", e.nsamples);
		goto out;
	}
	for (uint32_t k = 0; k < e.nsc; k++) {
		const struct channel_desc *ch = &info->channels[info->sample_channel[k]];
		struct meter_model *m = &est->meter[k];

		if (ch->kind != CHANNEL_ENERGY && ch->kind != CHANNEL_POWER)
			continue;

		measure_meter(&e, k, ch->kind, ch->source, m);
		/* RAPL reads the package's own counter: no delay.  An external
		 * meter's, unless given, is fitted (on a long profile: 0). */
		m->delay_measured = isnan(m->delay_s) && ch->kind == CHANNEL_POWER &&
				    e.nsamples <= FIT_DELAY_MAX;
		if (isnan(m->delay_s))
			m->delay_s = 0;
		if ((m->delay_measured && fit_delay(&e, k, ch->kind, m) < 0) ||
		    build_spans(&e, k, ch->kind, m) < 0) {
			error_set(err, "out of memory for the energy estimate of %zu samples",
				  e.nsamples);
			goto out;
		}
		fit_powers(&e, k);
		memset(e.first, 0, e.nrows * sizeof(double));
		memset(e.second, 0, e.nrows * sizeof(double));
		spread(&e, k, est->energy);
		transfer_var(&e, k, est->xfer_var);
	}
	for (size_t r = 0; r < e.nrows; r++)
		est->next[r] = NO_ROW;
	for (size_t r = 0; r < e.nrows; r++) {
		est->pc[r] = e.rows[r].pc;
		est->prev[r] = e.rows[r].prev;
		if (e.rows[r].prev != NO_ROW)
			est->next[e.rows[r].prev] = r;
	}
	for (size_t i = 0; i < e.nown; i++)
		est->row0[i] = e.samples[i].row0;
	est->row0[e.nown] = e.nown < e.nsamples ? e.samples[e.nown].row0 : e.nrows;
	est->nsamples = e.nown;
	ret = 0;
out:
	est_free(&e);
	if (ret < 0)
		energy_estimate_free(est);
	return ret;
}

void energy_estimate_free(struct energy_estimate *est)
{
	free(est->row0);
	free(est->energy);
	free(est->xfer_var);
	free(est->prev);
	free(est->next);
	free(est->pc);
	est->row0 = NULL;
	est->energy = NULL;
	est->xfer_var = NULL;
	est->prev = est->next = NULL;
	est->pc = NULL;
	est->nsamples = 0;
}

const double *energy_estimate_row(const struct energy_estimate *est, size_t index, uint32_t k,
				  uint32_t nthreads, double *out)
{
	size_t row0;

	if (index >= est->nsamples || k >= est->nchannels ||
	    est->row0[index + 1] - est->row0[index] != nthreads)
		return NULL;
	row0 = est->row0[index];
	for (uint32_t j = 0; j < nthreads; j++)
		out[j] = est->energy[(row0 + j) * est->nchannels + k];
	return out;
}

double energy_estimate_model_var(const struct energy_estimate *est, size_t index, uint32_t thread,
				 uint32_t k, bool (*same)(void *arg, uint64_t a, uint64_t b),
				 void *arg)
{
	size_t r, p, n;
	double v = 0;

	if (index >= est->nsamples || k >= est->nchannels ||
	    est->row0[index] + thread >= est->row0[index + 1])
		return NAN;
	r = est->row0[index] + thread;
	p = est->prev[r];
	n = est->next[r];
	if (p != NO_ROW && est->xfer_var[r * est->nchannels + k] > 0 &&
	    !same(arg, est->pc[p], est->pc[r]))
		v += est->xfer_var[r * est->nchannels + k];
	if (n != NO_ROW && est->xfer_var[n * est->nchannels + k] > 0 &&
	    !same(arg, est->pc[r], est->pc[n]))
		v += est->xfer_var[n * est->nchannels + k];
	return v;
}

uint64_t period_carry_take(struct period_carry *c, double amount)
{
	double rounded;
	uint64_t target, period;

	if (!(amount > 0))	/* also drops NaN */
		return 0;
	c->exact += amount;
	rounded = floor(c->exact + 0.5);
	target = rounded >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)rounded;
	if (target <= c->emitted)
		return 0;
	period = target - c->emitted;
	c->emitted = target;
	return period;
}
