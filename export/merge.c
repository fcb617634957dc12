/* merge.c - several profiles into one (see merge.h).
 *
 * A k-way merge by time over open readers: each holds one record ahead, a
 * heap keyed by that record's time gives the earliest (log n per record,
 * so 10,000 ranks cost no more per record than 10), which is rewritten
 * (ids, names, clock) and written, and its reader moves on.  Memory: one
 * reader and record per input, one sample's threads, and the cumulative
 * values of each live thread.
 *
 * Sampling windows (--pid, --delay, --duration, --control) belong to one
 * input, but the format's windows hold for the whole profile.  So the
 * windows of the merge are where any input samples: "on" when the first
 * input switches on, "off" when the last switches off.  Each input's reader
 * already leaves out of its deltas what happened outside its own windows;
 * the merge writes every thread's cumulative values as the sums of those
 * deltas, so that the merged profile's reader gives them back unchanged
 * (an input that is off while another is on counts nothing).
 *
 * Energy.  A per-sample channel is a node reading that the ranks of a host
 * each record whole, so it cannot be merged as a reading.  Before the
 * merge, each input with energy or power channels is divided by the
 * estimator (attribution.h) with the other inputs of its host (same host
 * name) as --node-peer profiles: its rows get their part of its own
 * readings, as sampler-report's job report adds them (each rank's part
 * comes from its own readings, so ranks that start or end apart still add
 * up; one rank's readings given to all would miss the others' time outside
 * its run).  The merge then writes each thread's part as a per-thread
 * counter, "energy-CHANNEL-uJ", cumulative microjoules rounded from the
 * exact running sum, so that every format shows it: perf.data as the event
 * of that name, as a single profile's export names its energy event.
 * Inputs of different hosts are separate nodes, each its own meter. */
#include "merge.h"

#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "../common/grow.h"
#include "../common/idmap.h"
#include "../common/outfile.h"
#include "../profile/profile.h"

#define PID_BITS 22		/* Linux pid_max is at most 2^22 */
#define ID_MAX 0x7fffffffu	/* perf reads ids as signed: above is negative */
#define FD_SPARE 32		/* descriptors kept for the output, libraries, DSOs */

struct input {
	struct profile_reader *r;
	const struct profile_info *info;
	const char *path;
	struct profile_record rec;
	bool have;		/* rec holds the next record */
	bool done;
	int64_t shift;		/* add to its times: the first profile's clock */
	uint32_t base;		/* its ids: base | id (up to MERGE_ID_RANGES inputs) */
	struct idmap ids;	/* ... else its id -> merged id, numbered in order */
	bool off;		/* its last window record switched sampling off */
	/* its energy rows (microjoules), from the estimator: */
	uint32_t nen;		/* its energy and power channels */
	uint32_t en_k[PROFILE_MAX_CHANNELS];	/* ... as per-sample channel index */
	uint32_t en_slot[PROFILE_MAX_CHANNELS];	/* ... the merged channel (after the counters) */
	double en_to_uj[PROFILE_MAX_CHANNELS];	/* ... channel unit to uJ */
	struct energy_source *energy;	/* its rows' energy, by the estimate */
	size_t index;		/* samples merged so far */
};

/* An input in the heap, by the time of its next record, ties by index. */
struct heap_entry {
	uint64_t t;
	size_t i;
};

struct merge {
	struct input *in;
	size_t n;
	struct heap_entry *heap;	/* the inputs that have a record, earliest on top */
	size_t nheap;
	bool renumber;		/* more inputs than id ranges: ids numbered in order */
	uint32_t last_id;	/* ... the last given */
	struct profile_writer *w;
	struct profile_thread_sample *ts;
	size_t ts_cap;
	uint64_t *frames;	/* one sample's stacks, expanded (the writer takes frames) */
	size_t frames_cap;
	struct profile_clock_sample *clock;	/* one sample's clock samples, copied */
	size_t clock_cap;
	struct profile_stats stats;
	uint32_t ncounters;	/* per-thread channels (the same in every input) */
	uint32_t nenergy;	/* energy channels written after them (per-thread) */
	struct channel_desc energy[PROFILE_MAX_CHANNELS];
	/* merged tid -> cpu ns, ncounters counts, nenergy uJ counts, then
	 * nenergy doubles: the exact uJ sums they are rounded from */
	struct idmap sums;
	uint64_t *counters;	/* one sample's cumulative per-thread values */
	size_t counters_cap;
	double *shares;		/* one sample's energy per thread and channel */
	size_t shares_cap;
	size_t on;		/* inputs sampling now (not switched off) */
};

static int64_t clock_offset(const struct profile_info *info)
{
	return (int64_t)(info->host.realtime_ns - info->host.monotonic_ns);
}

/* Fetch the next record of in (stats are summed, not merged by time). */
static int advance(struct merge *m, struct input *in, struct error *err)
{
	int rc;

	in->have = false;
	while (!in->done) {
		rc = profile_read_next(in->r, &in->rec, err);
		if (rc < 0)
			return error_prefix(err, "cannot merge %s", in->path);
		if (rc == 0) {
			in->done = true;
			break;
		}
		if (in->rec.type == PROFILE_REC_STATS) {
			const struct profile_stats *s = &in->rec.stats;
			const struct profile_info *info = in->info;

			if (s->wall_ns > m->stats.wall_ns)
				m->stats.wall_ns = s->wall_ns;
			m->stats.latency_ns += s->latency_ns;
			m->stats.hold_ns += s->hold_ns;
			m->stats.samples += s->samples;
			m->stats.thread_samples += s->thread_samples;
			m->stats.missed_slots += s->missed_slots;
			m->stats.signals_delivered += s->signals_delivered;
			m->stats.threads_seen += s->threads_seen;
			m->stats.processes_seen += s->processes_seen;
			for (uint32_t j = 0; j < info->nthread_channels; j++)
				if (info->thread_channel[j] < s->nchannels)
					m->stats.channel_totals[j] += s->channel_totals[info->thread_channel[j]];
			continue;
		}
		in->have = true;
		break;
	}
	return 0;
}

static uint64_t record_time(const struct profile_record *rec)
{
	switch (rec->type) {
	case PROFILE_REC_PROCESS:
		return rec->process.time_ns;
	case PROFILE_REC_EXEC:
		return rec->exec.time_ns;
	case PROFILE_REC_THREAD:
		return rec->thread.time_ns;
	case PROFILE_REC_EXIT:
		return rec->exit.time_ns;
	case PROFILE_REC_MAP:
		return rec->map.time_ns;
	case PROFILE_REC_SAMPLE:
		return rec->sample.time_ns;
	case PROFILE_REC_NAME:
		return rec->name.time_ns;
	case PROFILE_REC_WINDOW:
		return rec->window.time_ns;
	default:
		return 0;
	}
}

static uint64_t shifted(const struct input *in, uint64_t t)
{
	return (uint64_t)((int64_t)t + in->shift);
}

/* Make *id (of input in) the merged one: base | id, or beyond
 * MERGE_ID_RANGES inputs the next free number, the same for each use. */
static int map_id(struct merge *m, struct input *in, uint32_t *id, struct error *err)
{
	uint32_t *to;
	bool created;

	if (!*id)
		return 0;
	if (!m->renumber) {
		*id |= in->base;
		return 0;
	}
	to = idmap_get(&in->ids, *id, &created);
	if (!to)
		return error_set(err, "out of memory for the ids of %s", in->path);
	if (created) {
		if (m->last_id >= ID_MAX)
			return error_set(err, "cannot merge %s: the profiles hold more than %u threads",
					 in->path, ID_MAX);
		*to = ++m->last_id;
	}
	*id = *to;
	return 0;
}

/* The ids of a record's task: tid then pid (either may be NULL). */
static int map_ids(struct merge *m, struct input *in, uint32_t *tid, uint32_t *pid,
		   struct error *err)
{
	if (tid && map_id(m, in, tid, err) < 0)
		return -1;
	return pid ? map_id(m, in, pid, err) : 0;
}

static bool heap_before(const struct heap_entry *a, const struct heap_entry *b)
{
	return a->t < b->t || (a->t == b->t && a->i < b->i);
}

/* Put input i, which holds a record, in the heap (room for every input). */
static void heap_push(struct merge *m, size_t i)
{
	struct heap_entry e = { shifted(&m->in[i], record_time(&m->in[i].rec)), i };
	size_t at = m->nheap++;

	while (at && heap_before(&e, &m->heap[(at - 1) / 2])) {
		m->heap[at] = m->heap[(at - 1) / 2];
		at = (at - 1) / 2;
	}
	m->heap[at] = e;
}

/* Take the top off the heap and sift the last entry down from there. */
static void heap_pop(struct merge *m)
{
	struct heap_entry e = m->heap[--m->nheap];
	size_t at = 0, child;

	while ((child = 2 * at + 1) < m->nheap) {
		if (child + 1 < m->nheap && heap_before(&m->heap[child + 1], &m->heap[child]))
			child++;
		if (!heap_before(&m->heap[child], &e))
			break;
		m->heap[at] = m->heap[child];
		at = child;
	}
	if (m->nheap)
		m->heap[at] = e;
}

/* "comm[rank R]", the name cut so that the rank always shows. */
static void rename_comm(const struct input *in, size_t i, char comm[PROFILE_COMM_MAX])
{
	size_t max = PROFILE_COMM_MAX - 1, len, keep;
	char tag[32];

	if (in->info->host.rank[0])
		snprintf(tag, sizeof(tag), "[rank %s]", in->info->host.rank);
	else
		snprintf(tag, sizeof(tag), "[#%zu]", i);
	len = strlen(tag) < max ? strlen(tag) : max;
	keep = strnlen(comm, max);
	if (keep > max - len)
		keep = max - len;
	memcpy(comm + keep, tag, len);
	comm[keep + len] = '\0';
}

/* Thread tid's cumulative values in the merge: the sums of its deltas (see
 * the top), written over cpu and counters (ncounters + nenergy of them).
 * uj: the thread's energy in this row per energy channel (NULL: none); the
 * counter is the exact running sum rounded, so a thread's total is off by
 * half a microjoule at most. */
static int sum_deltas(struct merge *m, uint32_t tid, uint64_t cpu_delta, const uint64_t *deltas,
		      const double *uj, uint64_t *cpu, uint64_t *counters, struct error *err)
{
	uint64_t *sum = idmap_get(&m->sums, tid, NULL);
	uint64_t *en;
	double *exact;

	if (!sum)
		return error_set(err, "out of memory");
	sum[0] += cpu_delta;
	*cpu = sum[0];
	for (uint32_t j = 0; j < m->ncounters; j++) {
		sum[1 + j] += deltas[j];
		counters[j] = sum[1 + j];
	}
	en = sum + 1 + m->ncounters;
	exact = (double *)(en + m->nenergy);
	for (uint32_t j = 0; j < m->nenergy; j++) {
		uint64_t v;

		if (uj && isfinite(uj[j]))
			exact[j] += uj[j];
		v = exact[j] > 0 ? (uint64_t)llround(exact[j]) : 0;
		if (v < en[j])
			v = en[j];	/* a cumulative count never goes back */
		m->stats.channel_totals[m->ncounters + j] += (double)(v - en[j]);
		en[j] = v;
		counters[m->ncounters + j] = v;
	}
	return 0;
}

static int write_exit(struct merge *m, struct input *in, struct profile_exit *e,
		      struct error *err)
{
	if (map_ids(m, in, &e->tid, &e->pid, err) < 0)
		return -1;
	e->time_ns = shifted(in, e->time_ns);
	if (e->final && sum_deltas(m, e->tid, e->cpu_delta_ns, e->counter_deltas, NULL,
				   &e->cpu_ns, e->counters, err) < 0)
		return -1;
	idmap_remove(&m->sums, e->tid);	/* as the writer forgets it: a reused tid starts afresh */
	return profile_write_exit(m->w, e, err);
}

/* Only the first "on" and the last "off" among the inputs are written. */
static int write_window(struct merge *m, struct input *in, struct profile_window *win,
			struct error *err)
{
	if (win->enabled == !in->off)
		return 0;
	in->off = !win->enabled;
	if (win->enabled ? m->on++ != 0 : --m->on != 0)
		return 0;
	win->time_ns = shifted(in, win->time_ns);
	return profile_write_window(m->w, win, err);
}

/* The reader gives a stack as its id in the input (chain), the writer
 * takes its frames: expand it at m->frames + *used.  An input recorded
 * without -g gives no callers (its thread-samples are their PC alone). */
static int expand_stack(struct merge *m, const struct input *in, struct profile_thread_sample *t,
			size_t *used, struct error *err)
{
	if (!in->info->stacks || !in->rec.stacks) {
		t->nframes = 0;
		t->stack_end = PROFILE_STACK_COMPLETE;
		return 0;
	}
	if (GROW_ARRAY(m->frames, m->frames_cap, *used + PROFILE_MAX_FRAMES) < 0)
		return error_set(err, "out of memory");
	t->nframes = profile_stack_frames(in->rec.stacks, t->chain, m->frames + *used,
					  PROFILE_MAX_FRAMES);
	*used += t->nframes;
	return 0;
}

/* m->shares[thread * nenergy + slot]: the uJ of each thread of the index-th
 * sample of in; past what the estimator saw, an energy channel's reading
 * by the end rule (as perf.data's export does), a power channel's none. */
static int sample_energy(struct merge *m, struct input *in, const struct profile_sample *s,
			 struct error *err)
{
	size_t index = in->index++;
	size_t need = (size_t)s->nthreads * (m->nenergy + 1) + 1;
	double *part;

	if (!m->nenergy)
		return 0;
	if (GROW_ARRAY(m->shares, m->shares_cap, need) < 0)
		return error_set(err, "out of memory");
	memset(m->shares, 0, need * sizeof(double));
	part = m->shares + (size_t)s->nthreads * m->nenergy;
	for (uint32_t j = 0; j < in->nen; j++) {
		const struct channel_desc *c =
			&in->info->channels[in->info->sample_channel[in->en_k[j]]];
		enum energy_rule rule = energy_source_sample(in->energy, index, s, 0, in->en_k[j],
							     part);

		if (rule == ENERGY_RULE_END && c->kind != CHANNEL_ENERGY)
			continue;
		for (uint32_t t = 0; t < s->nthreads; t++)
			m->shares[t * m->nenergy + in->en_slot[j]] =
				rule == ENERGY_RULE_END || isfinite(part[t]) ?
				part[t] * in->en_to_uj[j] : 0;
	}
	return 0;
}

/* The thread-samples' clock samples (in a merge that keeps them), their
 * stacks expanded after the thread-samples' own, at m->frames + *used
 * on (write_sample points at both once neither pool moves). */
static int copy_clock(struct merge *m, const struct input *in, const struct profile_sample *s,
		      size_t *used, struct error *err)
{
	size_t n = 0, k = 0, at = *used;

	for (uint32_t i = 0; i < s->nthreads; i++)
		n += m->ts[i].clocked ? m->ts[i].nclock : 0;
	if (!n) {
		for (uint32_t i = 0; i < s->nthreads; i++)
			m->ts[i].nclock = 0;
		return 0;
	}
	if (GROW_ARRAY(m->clock, m->clock_cap, n) < 0)
		return error_set(err, "out of memory");
	for (uint32_t i = 0; i < s->nthreads; i++)
		for (uint32_t j = 0; m->ts[i].clocked && j < m->ts[i].nclock; j++, k++) {
			m->clock[k] = s->threads[i].clock[j];
			m->clock[k].nframes = 0;
			if (!in->info->stacks || !in->rec.stacks)
				continue;
			if (GROW_ARRAY(m->frames, m->frames_cap, at + PROFILE_MAX_FRAMES) < 0)
				return error_set(err, "out of memory");
			m->clock[k].nframes = profile_stack_frames(in->rec.stacks, m->clock[k].chain,
								   m->frames + at, PROFILE_MAX_FRAMES);
			at += m->clock[k].nframes;
		}
	return 0;
}

static int write_sample(struct merge *m, struct input *in, struct profile_sample *s,
			struct error *err)
{
	struct profile_sample out = { .time_ns = shifted(in, s->time_ns), .nthreads = s->nthreads };
	uint32_t per = m->ncounters + m->nenergy;
	size_t used;

	if (GROW_ARRAY(m->ts, m->ts_cap, s->nthreads) < 0 ||
	    GROW_ARRAY(m->counters, m->counters_cap, (size_t)s->nthreads * per + 1) < 0)
		return error_set(err, "out of memory");
	if (sample_energy(m, in, s, err) < 0)
		return -1;
	used = 0;
	for (uint32_t i = 0; i < s->nthreads; i++) {
		m->ts[i] = s->threads[i];
		m->ts[i].counters = m->counters + (size_t)i * per;
		if (expand_stack(m, in, &m->ts[i], &used, err) < 0)
			return -1;
		if (map_ids(m, in, &m->ts[i].tid, &m->ts[i].pid, err) < 0)
			return -1;
		if (sum_deltas(m, m->ts[i].tid, s->threads[i].cpu_delta_ns,
			       s->threads[i].counter_deltas,
			       m->nenergy ? m->shares + (size_t)i * m->nenergy : NULL,
			       &m->ts[i].cpu_ns, m->ts[i].counters, err) < 0)
			return -1;
	}
	if (copy_clock(m, in, s, &used, err) < 0)
		return -1;
	/* the pool may have moved while filled; without stacks there is none */
	for (uint32_t i = 0, at = 0, k = 0; i < s->nthreads; at += m->ts[i].nframes, i++) {
		m->ts[i].frames = m->frames ? m->frames + at : NULL;
		m->ts[i].clock = m->ts[i].nclock ? m->clock + k : NULL;
		for (uint32_t j = 0; j < m->ts[i].nclock; j++, k++) {
			m->clock[k].frames = m->frames ? m->frames + used : NULL;
			used += m->clock[k].nframes;
		}
	}
	out.threads = m->ts;
	return profile_write_sample(m->w, &out, err);
}

static int write_record(struct merge *m, size_t i, struct error *err)
{
	struct input *in = &m->in[i];
	struct profile_record *rec = &in->rec;

	switch (rec->type) {
	case PROFILE_REC_PROCESS:
		if (map_ids(m, in, &rec->process.pid, &rec->process.ppid, err) < 0)
			return -1;
		rec->process.time_ns = shifted(in, rec->process.time_ns);
		if (rec->process.start_ns)	/* (one before the clock's start: none) */
			rec->process.start_ns = (int64_t)rec->process.start_ns + in->shift > 0 ?
						shifted(in, rec->process.start_ns) : 0;
		return profile_write_process(m->w, &rec->process, err);
	case PROFILE_REC_EXEC:
		if (map_ids(m, in, NULL, &rec->exec.pid, err) < 0)
			return -1;
		rec->exec.time_ns = shifted(in, rec->exec.time_ns);
		rename_comm(in, i, rec->exec.comm);
		return profile_write_exec(m->w, &rec->exec, err);
	case PROFILE_REC_THREAD:
		if (map_ids(m, in, &rec->thread.tid, &rec->thread.pid, err) < 0)
			return -1;
		rec->thread.time_ns = shifted(in, rec->thread.time_ns);
		return profile_write_thread(m->w, &rec->thread, err);
	case PROFILE_REC_EXIT:
		return write_exit(m, in, &rec->exit, err);
	case PROFILE_REC_MAP:
		if (map_ids(m, in, NULL, &rec->map.pid, err) < 0)
			return -1;
		rec->map.time_ns = shifted(in, rec->map.time_ns);
		return profile_write_map(m->w, &rec->map, err);
	case PROFILE_REC_SAMPLE:
		return write_sample(m, in, &rec->sample, err);
	case PROFILE_REC_WINDOW:
		return write_window(m, in, &rec->window, err);
	case PROFILE_REC_NAME:
		/* a thread's own name keeps the rank too (perf COMM per thread) */
		if (map_ids(m, in, &rec->name.tid, &rec->name.pid, err) < 0)
			return -1;
		rec->name.time_ns = shifted(in, rec->name.time_ns);
		rename_comm(in, i, rec->name.name);
		return profile_write_name(m->w, &rec->name, err);
	default:
		return 0;
	}
}

/* The first profile's facts, its per-thread channels and the energy
 * channels made of the inputs' per-sample ones; the run starts
 * with the earliest input (the ranks of a job start in any order), so that
 * no record comes before the start. */
static void merged_info(const struct merge *m, struct profile_info *info)
{
	const struct profile_info *first = m->in[0].info;

	*info = *first;
	for (size_t i = 1; i < m->n; i++) {
		uint64_t start = shifted(&m->in[i], m->in[i].info->host.start_ns);

		if (start < info->host.start_ns)
			info->host.start_ns = start;
	}
	info->nchannels = 0;
	for (uint32_t j = 0; j < first->nthread_channels; j++)
		info->channels[info->nchannels++] = first->channels[first->thread_channel[j]];
	for (uint32_t j = 0; j < m->nenergy; j++)
		info->channels[info->nchannels++] = m->energy[j];
	profile_info_index_channels(info);
	for (size_t i = 1; i < m->n; i++)
		info->stacks |= m->in[i].info->stacks;	/* with stacks if any input has them */
	info->format = PROFILE_FORMAT_NATIVE;
	/* clock samples if every input has them, with the same period */
	for (size_t i = 1; i < m->n; i++)
		if (!m->in[i].info->clock ||
		    m->in[i].info->clock_period_ns != info->clock_period_ns)
			info->clock = false;
	info->host.rank[0] = '\0';
	snprintf(info->host.cmdline, sizeof(info->host.cmdline),
		 "sampler-export: %zu profiles merged (first: %s)", m->n, m->in[0].path);
}

static int same_counters(const struct input *a, const struct input *b, struct error *err)
{
	const struct profile_info *x = a->info, *y = b->info;

	if (x->nthread_channels != y->nthread_channels)
		goto differ;
	for (uint32_t j = 0; j < x->nthread_channels; j++)
		if (strcmp(x->channels[x->thread_channel[j]].name, y->channels[y->thread_channel[j]].name))
			goto differ;
	return 0;
differ:
	return error_set(err, "cannot merge %s and %s: their per-thread counters differ (record every rank with the same -p options)",
			 a->path, b->path);
}

/* Every input is open at once: raise the soft limit of descriptors to
 * the hard one if need be, and say so when even that is too few. */
static int room_for_inputs(size_t n, struct error *err)
{
	struct rlimit lim;

	if (getrlimit(RLIMIT_NOFILE, &lim) < 0 || lim.rlim_cur == RLIM_INFINITY ||
	    n + FD_SPARE <= lim.rlim_cur)
		return 0;
	if (lim.rlim_max == RLIM_INFINITY || n + FD_SPARE < lim.rlim_max)
		lim.rlim_cur = n + FD_SPARE;
	else
		lim.rlim_cur = lim.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &lim) == 0 && n + FD_SPARE <= lim.rlim_cur)
		return 0;
	return error_set(err, "cannot merge %zu profiles: at most %llu files may be open (raise the limit: ulimit -n %zu)",
			 n, (unsigned long long)lim.rlim_max, n + FD_SPARE);
}

static int open_inputs(struct merge *m, char *const *paths, struct error *err)
{
	for (size_t i = 0; i < m->n; i++) {
		struct input *in = &m->in[i];

		in->path = paths[i];
		in->r = profile_reader_open(paths[i], err);
		if (!in->r)
			return -1;
		in->info = profile_reader_info(in->r);
		in->base = m->renumber ? 0 : (uint32_t)i << PID_BITS;
		in->shift = clock_offset(in->info) - clock_offset(m->in[0].info);
		if (i && same_counters(&m->in[0], in, err) < 0)
			return -1;
	}
	return 0;
}

/* The merged channel of an input's energy channel c, added if new:
 * "energy-NAME-uJ", a per-thread count (-1: no room left). */
static int energy_slot(struct merge *m, const struct channel_desc *c)
{
	struct channel_desc d = { .scale = 1e-6, .kind = CHANNEL_COUNTER,
				  .scope = CHANNEL_PER_THREAD };

	snprintf(d.name, sizeof(d.name), "energy-%.*s-uJ", CHANNEL_NAME_MAX - 11, c->name);
	snprintf(d.source, sizeof(d.source), "%s", c->source);
	snprintf(d.unit, sizeof(d.unit), "uJ");
	for (uint32_t j = 0; j < m->nenergy; j++)
		if (strcmp(m->energy[j].name, d.name) == 0)
			return (int)j;
	if (m->in[0].info->nthread_channels + m->nenergy >= PROFILE_MAX_CHANNELS)
		return -1;
	m->energy[m->nenergy] = d;
	return (int)m->nenergy++;
}

static void drop_energy(struct merge *m)
{
	for (size_t i = 0; i < m->n; i++) {
		energy_source_close(m->in[i].energy);
		m->in[i].energy = NULL;
		m->in[i].nen = 0;
	}
	m->nenergy = 0;
}

/* Why energy cannot be kept (NULL: it can): one warning line then. */
static const char *energy_obstacle(const struct merge *m, const struct export_options *opt,
				   char *why, size_t size)
{
	struct stat st;

	if (opt && opt->energy_rule != ENERGY_RULE_TRAPEZOID)
		return "--energy-rule end would give each rank the node's whole reading";
	for (size_t i = 0; i < m->n; i++) {
		size_t peers = 0;

		if (strcmp(m->in[i].path, "-") == 0 || stat(m->in[i].path, &st) < 0 ||
		    !S_ISREG(st.st_mode)) {
			snprintf(why, size, "%s is not a file (the estimator reads each profile twice)",
				 m->in[i].path);
			return why;
		}
		for (size_t j = 0; j < m->n; j++)
			peers += j != i && strcmp(m->in[j].info->host.hostname,
						  m->in[i].info->host.hostname) == 0;
		if (peers > ENERGY_MAX_PEERS) {
			snprintf(why, size, "host %s has %zu profiles, more than the %d the estimator divides a node among",
				 m->in[i].info->host.hostname, peers + 1, ENERGY_MAX_PEERS + 1);
			return why;
		}
	}
	return NULL;
}

/* Each input's rows' energy, its host's other inputs as its node peers
 * (see the top).  Where that cannot be done the per-sample channels are
 * left out, as before, with one warning line. */
static int divide_energy(struct merge *m, const struct export_options *opt, struct error *err)
{
	const char *peers[ENERGY_MAX_PEERS];
	struct energy_options eo = export_energy_options(opt);
	const char *why = NULL;
	char buf[512];
	bool any = false;

	for (size_t i = 0; i < m->n; i++) {
		struct input *in = &m->in[i];
		const struct profile_info *info = in->info;

		for (uint32_t k = 0; k < info->nsample_channels; k++) {
			const struct channel_desc *c = &info->channels[info->sample_channel[k]];
			double scale = c->scale > 0 && isfinite(c->scale) ? c->scale :
				       c->kind == CHANNEL_ENERGY ? 1e-6 : 1;	/* uJ, W: as perf.data */
			int slot;

			if (c->kind != CHANNEL_ENERGY && c->kind != CHANNEL_POWER)
				continue;
			any = true;
			slot = energy_slot(m, c);
			if (slot < 0) {
				why = "the merged profile has no room for more channels";
				goto drop;
			}
			in->en_k[in->nen] = k;
			in->en_slot[in->nen] = (uint32_t)slot;
			in->en_to_uj[in->nen++] = scale * 1e6;
		}
	}
	if (!any)
		return 0;
	why = energy_obstacle(m, opt, buf, sizeof(buf));
	if (why)
		goto drop;
	for (size_t i = 0; i < m->n; i++) {
		struct input *in = &m->in[i];

		if (!in->nen)
			continue;
		eo.npeers = 0;
		eo.peers = peers;
		eo.no_variance = true;
		for (size_t j = 0; j < m->n; j++)
			if (j != i && strcmp(m->in[j].info->host.hostname, in->info->host.hostname) == 0)
				peers[eo.npeers++] = m->in[j].path;
		in->energy = energy_source_open(in->info, in->path, &eo, err);
		if (!in->energy)
			return -1;
		if (energy_source_prepare(in->energy, err) < 0)
			return error_prefix(err, "cannot divide the energy of %s", in->path);
		if (!energy_source_estimated(in->energy)) {
			snprintf(buf, sizeof(buf), "%s is too large for the energy estimate", in->path);
			why = buf;
			goto drop;
		}
	}
	return 0;
drop:
	warn_print(EXPORT_PROG, "the merge leaves the energy and power channels out (%s): sampler-report --by rank divides them", why);
	drop_energy(m);
	return 0;
}

static int run_merge(struct merge *m, const char *out, struct error *err)
{
	struct profile_info info;
	sigset_t all, saved;
	struct outfile *o;

	merged_info(m, &info);
	m->stats.nchannels = info.nchannels;
	m->ncounters = info.nthread_channels - m->nenergy;
	m->on = m->n;
	idmap_init(&m->sums, (1 + (size_t)m->ncounters + 2 * (size_t)m->nenergy) * sizeof(uint64_t));
	/* out is the caller's temporary file: replaced, no out.old left.
	 * Until the writer has published its header under that name, the file
	 * has a name of its own the caller does not know, so signals wait
	 * (the caller removes out when one ends the process). */
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &saved);
	o = outfile_open(out, 0600, OUTFILE_FORCE, err);
	m->w = o ? profile_writer_open_out(o, PROFILE_FORMAT_NATIVE, &info, err) : NULL;
	sigprocmask(SIG_SETMASK, &saved, NULL);
	if (!m->w)
		return -1;
	for (size_t i = 0; i < m->n; i++) {
		if (advance(m, &m->in[i], err) < 0)
			goto out_abandon;
		if (m->in[i].have)
			heap_push(m, i);
	}
	while (m->nheap) {
		size_t best = m->heap[0].i;

		heap_pop(m);
		if (write_record(m, best, err) < 0 || advance(m, &m->in[best], err) < 0)
			goto out_abandon;
		if (m->in[best].have)
			heap_push(m, best);
	}
	return profile_writer_finish(m->w, &m->stats, NULL, err);

out_abandon:
	profile_writer_abandon(m->w);
	return -1;
}

int merge_profiles(char *const *paths, size_t n, const char *out,
		   const struct export_options *opt, struct error *err)
{
	struct merge m = { .n = n };
	int ret = -1;

	m.renumber = n > MERGE_ID_RANGES;
	m.in = calloc(n, sizeof(*m.in));
	m.heap = calloc(n, sizeof(*m.heap));
	if (!m.in || !m.heap) {
		free(m.in);
		free(m.heap);
		return error_set(err, "out of memory for %zu profiles", n);
	}
	for (size_t i = 0; i < n; i++)
		idmap_init(&m.in[i].ids, sizeof(uint32_t));
	if (room_for_inputs(n, err) < 0)
		goto out;
	if (open_inputs(&m, paths, err) == 0 && divide_energy(&m, opt, err) == 0)
		ret = run_merge(&m, out, err);	/* the writer is gone either way */
	drop_energy(&m);
out:
	for (size_t i = 0; i < n; i++) {
		if (m.in[i].r)
			profile_reader_close(m.in[i].r);
		idmap_free(&m.in[i].ids);
	}
	free(m.in);
	free(m.heap);
	free(m.ts);
	free(m.frames);
	free(m.clock);
	free(m.counters);
	free(m.shares);
	idmap_free(&m.sums);
	return ret;
}
