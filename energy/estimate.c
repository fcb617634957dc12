/* estimate.c - the trapezoid estimator (attribution.h): reads the profile
 * and its node peers into samples and rows, numbers the codes, runs the
 * meter model and the fit per channel, and hands each row's energy and the
 * model's variance out (the derivation is in docs/ENERGY.md). */
#include "estimator.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "../common/grow.h"
#include "../symbols/symbols.h"

/* Samples up to which the delay is fitted (70 fits of 20 rounds each,
 * spread.c; a longer profile takes the given delay or 0). */
#define FIT_DELAY_MAX 50000

static size_t find_prev(const struct est *e, const struct est_sample *p, uint32_t tid, uint32_t j)
{
	if (j < p->nthreads && e->in.rows[p->row0 + j].tid == tid)
		return p->row0 + j;	/* the usual case: the same order */
	for (uint32_t i = 0; i < p->nthreads; i++)
		if (e->in.rows[p->row0 + i].tid == tid)
			return p->row0 + i;
	return NO_ROW;
}

/* The estimate holds about 100 bytes per sample and thread-sample; past
 * this many it is not built and the end rule serves (memory stays bounded,
 * about 20 MB, however long the recording). */
#define ESTIMATE_MAX_ITEMS 200000

static uint64_t hash_string(uint64_t h, const char *s)
{
	while (*s)
		h = (h ^ (unsigned char)*s++) * 0x100000001B3u;	/* FNV-1a */
	return h;
}

/* A monotonic time, in s since the recording's start t0. */
static double since_start(uint64_t ns, uint64_t t0)
{
	return (double)((int64_t)(ns - t0)) * 1e-9;
}

/* A thread's run into its sample's part that ran (est_sample); false
 * when it ran but the profile says not where. */
static bool add_run(struct est_sample *es, const struct profile_thread_sample *t, uint64_t t0)
{
	if (!t->cpu_delta_ns)
		return true;
	if (!t->run_to_ns)
		return false;
	es->run_from = fmin(es->run_from, since_start(t->run_from_ns, t0));
	es->run_to = fmax(es->run_to, since_start(t->run_to_ns, t0));
	return true;
}

/* The row's function, for its runs (runs.c): its file and symbol, or its
 * PC where no map holds it; a thread still at its PC keeps it. */
static uint64_t row_func(struct est *e, const struct est_row *row)
{
	const char *dso, *sym;

	if (row->prev != NO_ROW && e->in.rows[row->prev].pc == row->pc)
		return e->in.rows[row->prev].func;
	symbolizer_lookup(e->codes.symbols, row->pid, row->pc, &dso, &sym);
	if (strcmp(dso, SYMBOL_UNKNOWN) == 0)
		return row->pc | 1ull << 63;
	return hash_string(hash_string(0xCBF29CE484222325u, dso), sym);
}

static int add_sample(struct est *e, const struct profile_sample *s, uint64_t prev_ns, bool brk,
		      const int *channel)
{
	uint64_t t0 = e->info->host.start_ns;
	struct est_sample *es;
	bool placed = true;

	if (GROW_ARRAY(e->in.samples, e->in.samples_cap, e->in.nsamples + 1) < 0 ||
	    GROW_ARRAY(e->in.rows, e->in.rows_cap, e->in.nrows + s->nthreads) < 0 ||
	    GROW_ARRAY(e->in.values, e->in.values_cap, (e->in.nsamples + 1) * e->nsc + 1) < 0)
		return -1;
	es = &e->in.samples[e->in.nsamples];
	es->time = since_start(s->time_ns, t0);
	es->start = prev_ns < s->time_ns ? since_start(prev_ns, t0) : es->time;
	es->row0 = e->in.nrows;
	es->nthreads = s->nthreads;
	es->cpu = es->cpu_max = 0;
	es->brk = brk;
	es->run_from = INFINITY;
	es->run_to = -INFINITY;
	for (uint32_t j = 0; j < s->nthreads; j++) {
		struct est_row *row = &e->in.rows[e->in.nrows + j];

		row->tid = s->threads[j].tid;
		row->pid = s->threads[j].pid;
		row->pc = s->threads[j].pc;
		row->cpu = (double)s->threads[j].cpu_delta_ns * 1e-9;
		row->sample = e->in.nsamples;
		row->prev = brk || !e->in.nsamples ? NO_ROW :
			    find_prev(e, &e->in.samples[e->in.nsamples - 1], row->tid, j);
		row->func = row_func(e, row);
		es->cpu += row->cpu;
		es->cpu_max = fmax(es->cpu_max, row->cpu);
		placed &= add_run(es, &s->threads[j], t0);
	}
	if (!placed || !(es->run_to > es->run_from))
		es->run_from = NAN;
	for (uint32_t k = 0; k < e->nsc; k++)
		e->in.values[e->in.nsamples * e->nsc + k] = channel[k] < 0 ? NAN : s->values[channel[k]];
	e->in.nrows += s->nthreads;
	e->in.nsamples++;
	return 0;
}

/* Where a peer has each of lane 0's per-sample channels: the index of its
 * own of the same name, source, unit and kind, or -1 (its readings of
 * the node's counters: nodespans.c). */
static void match_channels(const struct profile_info *own, const struct profile_info *peer,
			   int *channel)
{
	for (uint32_t k = 0; k < own->nsample_channels; k++) {
		const struct channel_desc *c = &own->channels[own->sample_channel[k]];

		channel[k] = -1;
		for (uint32_t j = 0; j < peer->nsample_channels; j++) {
			const struct channel_desc *p = &peer->channels[peer->sample_channel[j]];

			if (!strcmp(c->name, p->name) && !strcmp(c->source, p->source) &&
			    !strcmp(c->unit, p->unit) && c->scale == p->scale && c->kind == p->kind)
				channel[k] = (int)j;
		}
	}
}

/* The part of the interval its threads ran in: where the profile says,
 * within the interval, else its active part. */
static void place_run(struct est_sample *s)
{
	s->placed = false;
	if (!s->brk && !isnan(s->run_from)) {
		s->run_from = fmin(fmax(s->run_from, s->start), s->time);
		s->run_to = fmin(fmax(s->run_to, s->run_from), s->time);
		s->placed = s->run_to > s->run_from;
		if (s->placed)
			return;
	}
	s->run_from = s->active;
	s->run_to = s->time;
}

/* How much of the profile's CPU time was placed where its threads ran
 * (an interval in which a thread ran only into the sample's stop has
 * none to place), and how much of those intervals' active time that was. */
static void measure_runs(const struct est *e, struct meter_model *m)
{
	double ran = 0, active = 0, placed = 0, cpu = 0;

	for (size_t i = 0; i < e->in.nown; i++) {
		const struct est_sample *s = &e->in.samples[i];

		if (s->brk)
			continue;
		cpu += s->cpu;
		if (!s->placed)
			continue;
		placed += s->cpu;
		ran += s->run_to - s->run_from;
		active += s->time - s->active;
	}
	m->placed = cpu > 0 ? placed / cpu : 0;
	m->ran = active > 0 ? fmin(1, ran / active) : 0;
}

/* Every sample of input, with the interval it closes as rows.c has it, as
 * the next lane; a peer's readings are of lane 0's channels it has too. */
static int collect(struct est *e, const char *input, bool peer, struct error *err)
{
	struct profile_record rec;
	struct profile_reader *r = profile_reader_open(input, err);
	uint64_t prev = e->info->host.start_ns;
	size_t first = e->in.nsamples;
	double hold = 0;
	bool brk = true;
	int channel[PROFILE_MAX_CHANNELS];

	if (!r)
		return -1;
	for (uint32_t k = 0; k < e->nsc; k++)
		channel[k] = (int)k;
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
		match_channels(e->info, pi, channel);
	}
	while (profile_read_next(r, &rec, NULL) > 0) {
		if (rec.type == PROFILE_REC_STATS && rec.stats.samples)
			hold = (double)rec.stats.hold_ns * 1e-9 / (double)rec.stats.samples;
		if ((rec.type == PROFILE_REC_MAP && symbolizer_add_map(e->codes.symbols, &rec.map) < 0) ||
		    (rec.type == PROFILE_REC_PROCESS &&
		     symbolizer_add_process(e->codes.symbols, &rec.process) < 0)) {
			profile_reader_close(r);
			return error_set(err, "out of memory for the maps of the energy estimate");
		}
		if (rec.type == PROFILE_REC_MAP && rec.map.inode &&
		    (rec.map.prot & PROT_EXEC)) {
			struct est_map *m;

			if (GROW_ARRAY(e->in.maps, e->in.maps_cap, e->in.nmaps + 1) < 0) {
				profile_reader_close(r);
				return error_set(err, "out of memory for the energy estimate's maps");
			}
			m = &e->in.maps[e->in.nmaps++];
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
		if (e->in.nsamples + e->in.nrows + rec.sample.nthreads > ESTIMATE_MAX_ITEMS) {
			profile_reader_close(r);
			return 1;
		}
		if (add_sample(e, &rec.sample, prev, brk, channel) < 0) {
			profile_reader_close(r);
			return error_set(err, "out of memory for the energy estimate of %zu samples",
					 e->in.nsamples);
		}
		prev = rec.sample.time_ns;
		brk = false;
	}
	profile_reader_close(r);
	/* The threads are held stopped at their PCs for a while after each
	 * sample (reading them, the meters): what they run, and the energy
	 * it takes, comes after that. */
	for (size_t i = first; i < e->in.nsamples; i++) {
		struct est_sample *s = &e->in.samples[i];

		s->active = s->start + fmin(hold, fmax(0, s->time - s->start - s->cpu_max));
		place_run(s);
	}
	for (size_t i = first; i < e->in.nsamples; i++) {
		struct est_sample *s = &e->in.samples[i];
		const struct est_sample *next = i + 1 < e->in.nsamples ? s + 1 : NULL;

		s->read = next && !next->brk ? next->active : s->time + hold;
	}
	if (!peer)
		e->in.nown = e->in.nsamples;
	e->in.lane_end[e->in.nlanes++] = e->in.nsamples;
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
	for (size_t i = e->in.nmaps; i-- > 0;) {	/* the latest mapping first */
		const struct est_map *m = &e->in.maps[i];

		if (m->pid == pid && pc >= m->start && pc < m->end)
			return m->file * 0xBF58476D1CE4E5B9u + (pc - m->start + m->pgoff);
	}
	return pc | 1ull << 63;
}

/* Number the distinct values among vals[0..n), in order: out[i] is the
 * number of vals[i]; returns how many there are, or -1 (out of memory). */
static long number_values(const uint64_t *vals, size_t n, uint32_t *out)
{
	uint64_t *sorted = malloc((n + 1) * sizeof(*sorted));
	size_t m = 0;

	if (!sorted)
		return -1;
	memcpy(sorted, vals, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), cmp_u64);
	for (size_t i = 0; i < n; i++)
		if (!m || sorted[m - 1] != sorted[i])
			sorted[m++] = sorted[i];
	for (size_t i = 0; i < n; i++)
		out[i] = (uint32_t)((const uint64_t *)bsearch(&vals[i], sorted, m, sizeof(*sorted),
							   cmp_u64) - sorted);
	free(sorted);
	return (long)m;
}

/* Number the distinct codes (the power is fitted per code, est_code) and
 * the distinct functions (their runs: runs.c). */
static int number_keys(struct est *e)
{
	uint64_t *vals = malloc((e->in.nrows + 1) * sizeof(*vals));
	uint32_t *ids = malloc((e->in.nrows + 1) * sizeof(*ids));
	long n = -1, nf = -1;

	if (vals && ids) {
		for (size_t i = 0; i < e->in.nrows; i++) {
			/* (a thread keeps its code from one sample to the next) */
			size_t p = e->in.rows[i].prev;

			e->in.rows[i].code = p != NO_ROW && e->in.rows[p].pc == e->in.rows[i].pc ?
					  e->in.rows[p].code :
					  est_code(e, e->in.rows[i].pid, e->in.rows[i].pc);
			vals[i] = e->in.rows[i].code;
		}
		if ((n = number_values(vals, e->in.nrows, ids)) >= 0)
			for (size_t i = 0; i < e->in.nrows; i++)
				e->in.rows[i].key = ids[i];
		for (size_t i = 0; i < e->in.nrows; i++)
			vals[i] = e->in.rows[i].func;
		if (n >= 0 && (nf = number_values(vals, e->in.nrows, ids)) >= 0)
			for (size_t i = 0; i < e->in.nrows; i++)
				e->in.rows[i].func_id = ids[i];
	}
	free(vals);
	free(ids);
	if (nf < 0)
		return -1;
	e->codes.nfuncs = (uint32_t)nf;
	e->codes.nkeys = (uint32_t)n;
	e->codes.power = calloc(n + 1, sizeof(double));
	e->codes.num = calloc(n + 1, sizeof(double));
	e->codes.den = calloc(n + 1, sizeof(double));
	e->codes.fit_next = calloc(n + 1, sizeof(double));
	return e->codes.power && e->codes.num && e->codes.den && e->codes.fit_next ? 0 : -1;
}

/* The per-half sums of a round (spread, residual). */
static int alloc_halves(struct est *e)
{
	e->halves.half_watts = calloc(2 * e->in.nsamples + 1, sizeof(double));
	e->halves.half_energy = calloc(2 * e->in.nsamples + 1, sizeof(double));
	e->halves.half_seconds = calloc(2 * e->in.nsamples + 1, sizeof(double));
	e->halves.half_overlap = calloc(2 * e->in.nsamples + 1, sizeof(double));
	e->halves.half_watts_q = calloc(2 * e->in.nsamples + 1, sizeof(double));
	e->halves.half_energy_q = calloc(2 * e->in.nsamples + 1, sizeof(double));
	e->halves.half_seconds_q = calloc(2 * e->in.nsamples + 1, sizeof(double));
	e->halves.half_overlap_q = calloc(2 * e->in.nsamples + 1, sizeof(double));
	e->mix.mix_watts = calloc(e->in.nsamples + 1, sizeof(double));
	e->mix.mix_overlap = calloc(e->in.nsamples + 1, sizeof(double));
	return e->halves.half_watts && e->halves.half_energy && e->halves.half_seconds && e->halves.half_overlap &&
	       e->halves.half_watts_q && e->halves.half_energy_q && e->halves.half_seconds_q && e->halves.half_overlap_q &&
	       e->mix.mix_watts && e->mix.mix_overlap ? 0 : -1;
}

/* The split of each interval between a thread's two PCs, when they
 * differ: the thread changed code at an unknown point uT of the interval's
 * active time T (u uniform); with powers P_a before and P_b after, the
 * rule gives the first side E P_a / (P_a + P_b) of E = P_a uT + P_b (1-u)T,
 * an error of T P_a P_b (1 - 2u) / (P_a + P_b), whose variance is
 * (4/3) (e_a e_b / (e_a + e_b))^2 in the sides' energies e_a and e_b
 * (docs/ENERGY.md). */
static void transfer_var(const struct est *e, uint32_t k, double *xfer_var)
{
	for (size_t r = 0; r < e->in.nrows; r++) {
		size_t p = e->in.rows[r].prev;
		double a = e->out.first[r], b = e->out.second[r], x;

		if (p == NO_ROW || e->in.rows[p].pc == e->in.rows[r].pc || !(a + b > 0))
			continue;
		x = a * b / (a + b);
		xfer_var[r * e->nsc + k] = 4.0 / 3.0 * x * x;
	}
}

static void est_free(struct est *e)
{
	free(e->in.samples);
	free(e->in.rows);
	free(e->in.values);
	free(e->meter.spans);
	free(e->codes.power);
	free(e->codes.num);
	free(e->codes.den);
	free(e->codes.fit_next);
	free(e->halves.half_watts);
	free(e->halves.half_energy);
	free(e->halves.half_seconds);
	free(e->halves.half_overlap);
	free(e->halves.half_watts_q);
	free(e->halves.half_energy_q);
	free(e->halves.half_seconds_q);
	free(e->halves.half_overlap_q);
	free(e->mix.mix_watts);
	free(e->mix.mix_overlap);
	free(e->codes.func_run);
	symbolizer_free(e->codes.symbols);
	free(e->out.first);
	free(e->out.second);
	free(e->in.maps);
}

int energy_estimate_build(struct energy_estimate *est, const char *input,
			  const char *const *peers, uint32_t npeers,
			  const struct profile_info *info, const struct meter_option *opts,
			  uint32_t nopts, const char *prog, struct error *err)
{
	struct est e = { .info = info, .nsc = info->nsample_channels };
	int ret = -1;

	memset(est, 0, sizeof(*est));
	est->nchannels = e.nsc;
	/* the meter's timing: an option, else as its plug-in was told it,
	 * else measured on the profile */
	for (uint32_t k = 0; k < e.nsc; k++) {
		const struct channel_desc *ch = &info->channels[info->sample_channel[k]];

		est->meter[k].update_s = ch->has_update ? ch->update_ms * 1e-3 : NAN;
		est->meter[k].delay_s = ch->has_delay ? ch->delay_ms * 1e-3 : NAN;
	}
	for (uint32_t i = 0; i < nopts; i++)
		if (apply_option(info, &opts[i], est->meter, err) < 0)
			return -1;
	if (npeers > ENERGY_MAX_PEERS)
		return error_set(err, "%u --node-peer profiles (at most %d)", npeers,
				 ENERGY_MAX_PEERS);
	if (!(e.codes.symbols = symbolizer_new(prog)))
		return error_set(err, "out of memory for the energy estimate's symbols");
	ret = collect(&e, input, false, err);
	for (uint32_t i = 0; i < npeers && ret == 0; i++)
		ret = collect(&e, peers[i], true, err);
	if (ret != 0) {		/* -1: err set; 1: too long a profile */
		if (ret > 0)
			warn_print(prog, "%s: energy divided by the end rule: the trapezoid "
				   "estimate keeps at most %d samples and thread-samples in memory "
				   "(--energy-rule end says this is wanted)", input, ESTIMATE_MAX_ITEMS);
		est_free(&e);
		energy_estimate_free(est);
		return ret;
	}
	ret = -1;
	if (number_keys(&e) < 0 || shape_changes(&e) < 0 || set_fades(&e) < 0 ||
	    alloc_halves(&e) < 0 ||
	    !(est->energy = calloc(e.in.nrows * e.nsc + 1, sizeof(double))) ||
	    !(est->xfer_var = calloc(e.in.nrows * e.nsc + 1, sizeof(double))) ||
	    !(est->prev = malloc((e.in.nrows + 1) * sizeof(size_t))) ||
	    !(est->next = malloc((e.in.nrows + 1) * sizeof(size_t))) ||
	    !(est->pc = malloc((e.in.nrows + 1) * sizeof(uint64_t))) ||
	    !(e.out.first = malloc((e.in.nrows + 1) * sizeof(double))) ||
	    !(e.out.second = malloc((e.in.nrows + 1) * sizeof(double))) ||
	    !(est->row0 = malloc((e.in.nown + 1) * sizeof(size_t)))) {
		error_set(err, "out of memory for the energy estimate of %zu samples", e.in.nsamples);
		goto out;
	}
	for (uint32_t k = 0; k < e.nsc; k++) {
		const struct channel_desc *ch = &info->channels[info->sample_channel[k]];
		struct meter_model *m = &est->meter[k];

		if (ch->kind != CHANNEL_ENERGY && ch->kind != CHANNEL_POWER)
			continue;

		/* RAPL reads the package's own counter: no delay.  A power
		 * meter's or an external (scpi) energy meter's, unless given,
		 * is fitted (on a long profile: 0). */
		m->delay_measured = isnan(m->delay_s) && e.in.nsamples <= FIT_DELAY_MAX &&
				    (ch->kind == CHANNEL_POWER || strcmp(ch->source, "scpi") == 0);
		if (isnan(m->delay_s))
			m->delay_s = 0;
		if (measure_meter(&e, k, ch, m) < 0 ||
		    (m->delay_measured && fit_delay(&e, k, ch->kind, m) < 0) ||
		    build_spans(&e, k, ch->kind, m) < 0) {
			error_set(err, "out of memory for the energy estimate of %zu samples",
				  e.in.nsamples);
			goto out;
		}
		m->node_profiles = e.meter.span_lanes;
		measure_long(&e, m);
		measure_runs(&e, m);
		fit_powers(&e, k, false);
		memset(e.out.first, 0, e.in.nrows * sizeof(double));
		memset(e.out.second, 0, e.in.nrows * sizeof(double));
		spread_energy(&e, k, est->energy);
		transfer_var(&e, k, est->xfer_var);
	}
	for (size_t r = 0; r < e.in.nrows; r++)
		est->next[r] = NO_ROW;
	for (size_t r = 0; r < e.in.nrows; r++) {
		est->pc[r] = e.in.rows[r].pc;
		est->prev[r] = e.in.rows[r].prev;
		if (e.in.rows[r].prev != NO_ROW)
			est->next[e.in.rows[r].prev] = r;
	}
	for (size_t i = 0; i < e.in.nown; i++)
		est->row0[i] = e.in.samples[i].row0;
	est->row0[e.in.nown] = e.in.nown < e.in.nsamples ? e.in.samples[e.in.nown].row0 : e.in.nrows;
	est->nsamples = e.in.nown;
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
