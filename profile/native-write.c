/* native-write.c - the writer of this project's profile format (native.h):
 * records coded into chunks, each flushed with its CRC. */
#include "internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../common/grow.h"
#include "codec.h"
#include "native.h"
#include "stacktree.h"
#include "tidtable.h"

#define CHUNK_TARGET (64 * 1024)		/* flush when a chunk reaches this */
#define FLUSH_INTERVAL_NS 1000000000ull	/* and at least once a second */
/* ... or ten times a second into a pipe: its reader is live (sampler top
 * refreshes every second; a chunk a second would leave every other
 * refresh empty).  Ten writes a second cost nothing measurable. */
#define PIPE_FLUSH_INTERVAL_NS 100000000ull

struct native_writer {
	struct profile_writer head;
	struct obuf chunk;		/* CHUNK_HEADER reserved bytes, then records */
	uint64_t period_ns;
	uint64_t prev_time;
	uint64_t flush_time;		/* sample time of the last timed flush */
	uint64_t flush_interval_ns;	/* FLUSH_INTERVAL_NS, or PIPE_... */
	uint32_t *prev_tids;		/* tid list of the previous sample */
	uint32_t nprev;
	size_t prev_cap;
	struct tid_table threads;
	struct stack_tree stacks;	/* info.stacks: every stack written */
};

static struct native_writer *to_native_writer(struct profile_writer *w)
{
	return (struct native_writer *)w;
}

static int native_flush(struct profile_writer *w, struct error *err)
{
	struct native_writer *nw = to_native_writer(w);
	size_t len = nw->chunk.len - CHUNK_HEADER;
	uint8_t *hdr = nw->chunk.data;
	uint32_t crc;

	if (!len)
		return 0;
	put_le32(hdr, (uint32_t)len);
	crc = crc32_update(0, hdr, 4);
	crc = crc32_update(crc, hdr + CHUNK_HEADER, len);
	put_le32(hdr + 4, crc);
	nw->chunk.len = CHUNK_HEADER;
	return sink_write(&w->sink, hdr, CHUNK_HEADER + len, true, err);
}

/* Room for a record of at most max bytes at the end of the chunk. */
static uint8_t *record_begin(struct native_writer *nw, size_t max, struct error *err)
{
	if (max > CHUNK_MAX - CHUNK_HEADER) {
		error_set(err, "profile record of %zu bytes exceeds the chunk limit", max);
		return NULL;
	}
	if (nw->chunk.len - CHUNK_HEADER + max > CHUNK_MAX && native_flush(&nw->head, err) < 0)
		return NULL;
	if (obuf_reserve(&nw->chunk, max) < 0) {
		error_set(err, "cannot buffer a profile record of %zu bytes: out of memory", max);
		return NULL;
	}
	return nw->chunk.data + nw->chunk.len;
}

/* Commit the record ending at p; flush the chunk when it is full or a
 * second of sample time has passed since the last flush. */
static int record_end(struct native_writer *nw, uint8_t *p, uint64_t time_ns,
		      struct error *err)
{
	nw->chunk.len = (size_t)(p - nw->chunk.data);
	if (nw->chunk.len - CHUNK_HEADER >= CHUNK_TARGET ||
	    (int64_t)(time_ns - nw->flush_time) >= (int64_t)nw->flush_interval_ns) {
		nw->flush_time = time_ns;
		return native_flush(&nw->head, err);
	}
	return 0;
}

static uint8_t *put_cstr(uint8_t *p, const char *s, size_t size)
{
	return put_string(p, s, strnlen(s, size - 1));
}

#define PUT_FIELD_STR(p, field) put_cstr(p, field, sizeof(field))

static int write_info(struct native_writer *nw, struct error *err)
{
	const struct profile_info *info = &nw->head.info;
	const struct profile_host *h = &info->host;
	uint8_t *p = record_begin(nw, sizeof(*info) + 64 * VARINT_MAX, err);

	if (!p)
		return -1;
	*p++ = REC_INFO;
	p = PUT_FIELD_STR(p, h->hostname);
	p = PUT_FIELD_STR(p, h->os_release);
	p = PUT_FIELD_STR(p, h->os_version);
	p = PUT_FIELD_STR(p, h->arch);
	p = PUT_FIELD_STR(p, h->cpu_desc);
	p = PUT_FIELD_STR(p, h->cpu_id);
	p = put_varint(p, h->nr_cpus_online);
	p = put_varint(p, h->nr_cpus_avail);
	p = put_varint(p, h->total_mem_kb);
	p = PUT_FIELD_STR(p, h->sampler_version);
	p = PUT_FIELD_STR(p, h->cmdline);
	p = put_varint(p, h->realtime_ns);
	p = put_varint(p, h->monotonic_ns);
	p = put_varint(p, h->start_ns);
	p = put_double(p, h->target_hz);
	p = put_varint(p, info->nchannels);
	for (uint32_t i = 0; i < info->nchannels; i++) {
		const struct channel_desc *c = &info->channels[i];

		p = PUT_FIELD_STR(p, c->name);
		p = PUT_FIELD_STR(p, c->source);
		p = PUT_FIELD_STR(p, c->unit);
		p = put_double(p, c->scale);
		*p++ = (uint8_t)c->kind;
		*p++ = (uint8_t)c->scope;
	}
	p = PUT_FIELD_STR(p, h->rank);
	p = PUT_FIELD_STR(p, h->job_id);
	for (uint32_t i = 0; i < info->nchannels; i++) {
		const struct channel_desc *c = &info->channels[i];

		*p++ = (uint8_t)(c->has_update | c->has_delay << 1 | c->reads_latest << 2);
		if (c->has_update)
			p = put_double(p, c->update_ms);
		if (c->has_delay)
			p = put_double(p, c->delay_ms);
	}
	if (info->clock)
		p = put_varint(p, info->clock_period_ns);
	nw->chunk.len = (size_t)(p - nw->chunk.data);
	return native_flush(&nw->head, err);
}

static int native_process(struct profile_writer *w, const struct profile_process *pr,
			  struct error *err)
{
	struct native_writer *nw = to_native_writer(w);
	uint8_t *p = record_begin(nw, 1 + 4 * VARINT_MAX, err);

	if (!p)
		return -1;
	*p++ = PROFILE_REC_PROCESS | (pr->start_ns ? PROCESS_START : 0);
	p = put_varint(p, pr->pid);
	p = put_varint(p, pr->ppid);
	p = put_varint(p, pr->time_ns);
	if (pr->start_ns)
		p = put_varint(p, pr->start_ns);
	return record_end(nw, p, pr->time_ns, err);
}

static int native_exec(struct profile_writer *w, const struct profile_exec *e,
		       struct error *err)
{
	struct native_writer *nw = to_native_writer(w);
	uint8_t *p = record_begin(nw, 1 + 4 * VARINT_MAX + sizeof(e->comm) + sizeof(e->argv), err);

	if (!p)
		return -1;
	*p++ = PROFILE_REC_EXEC;
	p = put_varint(p, e->pid);
	p = put_varint(p, e->time_ns);
	p = PUT_FIELD_STR(p, e->comm);
	p = PUT_FIELD_STR(p, e->argv);
	return record_end(nw, p, e->time_ns, err);
}

static int native_name(struct profile_writer *w, const struct profile_name *n,
		       struct error *err)
{
	struct native_writer *nw = to_native_writer(w);
	uint8_t *p = record_begin(nw, 1 + 3 * VARINT_MAX + sizeof(n->name), err);

	if (!p)
		return -1;
	*p++ = PROFILE_REC_NAME;
	p = put_varint(p, n->tid);
	p = put_varint(p, n->pid);
	p = put_varint(p, n->time_ns);
	p = PUT_FIELD_STR(p, n->name);
	return record_end(nw, p, n->time_ns, err);
}

static int too_many_threads(struct error *err)
{
	return error_set(err, "more than %d live threads to record (profile limit; exit records remove threads)",
			 PROFILE_MAX_THREADS);
}

static int native_thread(struct profile_writer *w, const struct profile_thread *t,
			 struct error *err)
{
	struct native_writer *nw = to_native_writer(w);
	uint8_t *p = record_begin(nw, 1 + 3 * VARINT_MAX, err);
	struct tid_state *st;
	bool created;

	if (!p)
		return -1;
	st = tid_table_get(&nw->threads, t->tid, &created);
	if (!st)
		return too_many_threads(err);
	st->pid = t->pid;	/* the reader does the same */
	*p++ = PROFILE_REC_THREAD;
	p = put_varint(p, t->tid);
	p = put_varint(p, t->pid);
	p = put_varint(p, t->time_ns);
	return record_end(nw, p, t->time_ns, err);
}

/* A thread's CPU time and counters as deltas against its state, which then
 * holds the new values (samples and final exit values alike). */
static uint8_t *put_thread_deltas(struct native_writer *nw, uint8_t *p, struct tid_state *st,
				  uint64_t cpu_ns, const uint64_t *counters)
{
	uint64_t *prev = tid_table_counters(&nw->threads, st);

	p = put_varint(p, cpu_ns - st->cpu);
	st->cpu = cpu_ns;
	for (uint32_t j = 0; j < nw->threads.ncounters; j++) {
		p = put_varint(p, counters[j] - prev[j]);
		prev[j] = counters[j];
	}
	return p;
}

/* ns to whole us, rounded down: a run read back holds the run written. */
static int64_t floor_us(int64_t ns)
{
	return ns >= 0 ? ns / 1000 : -((-ns + 999) / 1000);
}

/* Where a thread that ran since its previous sample ran, in us: 0 when
 * not known, else 1 + zigzag(run_from - the previous sample's time), then
 * zigzag(this sample's time - run_to) (docs/FORMAT.md): 2-3 bytes. */
static uint8_t *put_run(uint8_t *p, uint64_t prev_ns, uint64_t time_ns,
			const struct profile_thread_sample *t)
{
	if (!t->run_to_ns || t->run_to_ns <= t->run_from_ns)
		return put_varint(p, 0);
	p = put_varint(p, zigzag(floor_us((int64_t)(t->run_from_ns - prev_ns))) + 1);
	return put_varint(p, zigzag(floor_us((int64_t)(time_ns - t->run_to_ns))));
}

static int native_exit(struct profile_writer *w, const struct profile_exit *e,
		       struct error *err)
{
	struct native_writer *nw = to_native_writer(w);
	uint32_t nc = w->info.nthread_channels;
	uint8_t *p = record_begin(nw, 2 + (4 + nc) * VARINT_MAX, err);

	if (!p)
		return -1;
	*p++ = (uint8_t)(PROFILE_REC_EXIT | (e->final ? EXIT_FINAL : 0));
	p = put_varint(p, e->tid);
	p = put_varint(p, e->pid);
	p = put_varint(p, e->time_ns);
	*p++ = e->whole_process ? 1 : 0;
	if (e->final) {
		bool created;
		struct tid_state *st = tid_table_get(&nw->threads, e->tid, &created);

		if (!st)
			return too_many_threads(err);
		p = put_thread_deltas(nw, p, st, e->cpu_ns, e->counters);
	}
	tid_table_remove(&nw->threads, e->tid);
	return record_end(nw, p, e->time_ns, err);
}

static int native_map(struct profile_writer *w, const struct profile_map *m,
		      struct error *err)
{
	struct native_writer *nw = to_native_writer(w);
	uint8_t *p = record_begin(nw, 1 + 13 * VARINT_MAX + sizeof(m->path) + sizeof(m->build_id),
				  err);
	uint8_t idlen = m->build_id_len <= PROFILE_BUILD_ID_MAX ? m->build_id_len : 0;

	if (!p)
		return -1;
	*p++ = PROFILE_REC_MAP | (idlen ? MAP_BUILD_ID : 0) | (m->file_mtime_ns ? MAP_FILE_STAMP : 0);
	p = put_varint(p, m->pid);
	p = put_varint(p, m->time_ns);
	p = put_varint(p, m->start);
	p = put_varint(p, m->len);
	p = put_varint(p, m->pgoff);
	p = put_varint(p, m->dev_major);
	p = put_varint(p, m->dev_minor);
	p = put_varint(p, m->inode);
	p = put_varint(p, m->prot);
	p = PUT_FIELD_STR(p, m->path);
	if (idlen) {
		p = put_varint(p, idlen);
		memcpy(p, m->build_id, idlen);
		p += idlen;
	}
	if (m->file_mtime_ns) {
		p = put_varint(p, m->file_size);
		p = put_varint(p, m->file_mtime_ns);
	}
	return record_end(nw, p, m->time_ns, err);
}

static bool same_threads(const struct native_writer *nw, const struct profile_sample *s)
{
	if (s->nthreads != nw->nprev)
		return false;
	for (uint32_t i = 0; i < s->nthreads; i++)
		if (s->threads[i].tid != nw->prev_tids[i])
			return false;
	return true;
}

/* The tid list, as zigzag deltas between neighbours; remembered. */
static uint8_t *put_tids(struct native_writer *nw, uint8_t *p, const struct profile_sample *s)
{
	uint32_t prev = 0;

	p = put_varint(p, s->nthreads);
	for (uint32_t i = 0; i < s->nthreads; i++) {
		uint32_t tid = s->threads[i].tid;

		p = put_varint(p, zigzag((int64_t)tid - (int64_t)prev));
		nw->prev_tids[i] = prev = tid;
	}
	nw->nprev = s->nthreads;
	return p;
}

/* The PC as a delta from the nearer of the thread's two region bases. */
static uint8_t *put_pc(uint8_t *p, struct tid_state *st, uint64_t pc)
{
	uint64_t delta = pc - st->pc, delta_alt = pc - st->pc_alt;
	unsigned alt = pc_magnitude(delta_alt) < pc_magnitude(delta);

	if (alt)
		delta = delta_alt;
	tid_state_move_pc(st, alt, delta, pc);
	return put_varint_flag(p, zigzag((int64_t)delta), alt);
}

/* The thread-sample's stack: the node of a stack written before, or the
 * nodes it adds to the deepest one that is (its outer frames). */
static uint8_t *put_stack(struct native_writer *nw, uint8_t *p, struct tid_state *st,
			  const struct profile_thread_sample *t)
{
	struct stack_tree *tree = &nw->stacks;
	unsigned end = t->stack_end < PROFILE_STACK_NENDS ? t->stack_end : PROFILE_STACK_DROPPED;
	uint32_t node = 0, i = t->nframes, parent;
	uint64_t prev;

	while (i > 0) {
		uint32_t child = stack_tree_find(tree, node, t->frames[i - 1]);

		if (!child)
			break;
		node = child;
		i--;
	}
	if (i && (uint64_t)stack_tree_count(tree) + i > PROFILE_MAX_STACK_NODES) {
		i = 0;		/* no room: the outer frames known, marked */
		end = PROFILE_STACK_DROPPED;
	}
	if (!i) {
		uint64_t sel = node == st->chain ? STACK_SAME : STACK_ID_BASE + (uint64_t)node;

		st->chain = node;
		return put_varint(p, sel << STACK_END_BITS | end);
	}
	p = put_varint(p, STACK_NEW << STACK_END_BITS | end);
	p = put_varint(p, stack_tree_count(tree) - node);
	p = put_varint(p, i);
	parent = node;
	prev = stack_tree_addr(tree, parent);
	while (i-- > 0) {
		p = put_varint(p, zigzag((int64_t)(t->frames[i] - prev)));
		prev = t->frames[i];
		node = stack_tree_add(tree, node, prev);
	}
	st->chain = node;
	return p;
}

/* The thread-sample's clock samples: how many (0: not clocked, else one
 * more than the count), then each one's PC as a delta from the thread's
 * previous clock sample's and, with stacks, its stack as put_stack codes
 * a thread-sample's, "the same" meaning the previous clock sample's. */
static uint8_t *put_clock(struct native_writer *nw, uint8_t *p, struct tid_state *st,
			  const struct profile_thread_sample *t)
{
	uint32_t chain = st->chain;	/* (the thread-sample's stays the thread's) */

	st->chain = st->clock_chain;
	p = put_varint(p, t->clocked ? 1 + (uint64_t)t->nclock : 0);
	for (uint32_t k = 0; t->clocked && k < t->nclock; k++) {
		const struct profile_clock_sample *c = &t->clock[k];
		struct profile_thread_sample stack = {
			.frames = c->frames, .nframes = c->nframes, .stack_end = c->stack_end,
		};

		p = put_varint(p, zigzag((int64_t)(c->pc - st->clock_pc)));
		st->clock_pc = c->pc;
		if (nw->head.info.stacks)
			p = put_stack(nw, p, st, &stack);
	}
	st->clock_chain = st->chain;
	st->chain = chain;
	return p;
}

/* One stack within the format's limits (the reader refuses others). */
static int check_stack(const uint64_t *frames, uint32_t nframes, size_t *total, struct error *err)
{
	if (nframes > PROFILE_MAX_FRAMES)
		return error_set(err, "stack of %u frames exceeds the profile limit of %d",
				 nframes, PROFILE_MAX_FRAMES);
	if (nframes && !frames)
		return error_set(err, "stack of %u frames given as a reader's chain, not its frames (expand it with profile_stack_frames)",
				 nframes);
	*total += nframes;
	return 0;
}

/* Stacks and clock samples within the format's limits: *frames the stack
 * frames, *clock the clock samples of the sample. */
static int check_stacks(const struct profile_writer *w, const struct profile_sample *s,
			size_t *frames, size_t *clock, struct error *err)
{
	*frames = *clock = 0;
	for (uint32_t i = 0; i < s->nthreads; i++) {
		const struct profile_thread_sample *t = &s->threads[i];

		if (w->info.stacks && check_stack(t->frames, t->nframes, frames, err) < 0)
			return -1;
		if (!w->info.clock || !t->clocked)
			continue;
		if (t->nclock > PROFILE_MAX_CLOCK_SAMPLES)
			return error_set(err, "%u clock samples in one thread-sample exceed the profile limit of %d",
					 t->nclock, PROFILE_MAX_CLOCK_SAMPLES);
		*clock += t->nclock;
		for (uint32_t k = 0; w->info.stacks && k < t->nclock; k++)
			if (check_stack(t->clock[k].frames, t->clock[k].nframes, frames, err) < 0)
				return -1;
	}
	return 0;
}

static int native_sample(struct profile_writer *w, const struct profile_sample *s,
			 struct error *err)
{
	struct native_writer *nw = to_native_writer(w);
	uint32_t nc = w->info.nthread_channels;
	uint64_t residual;
	size_t max, frames = 0, clock = 0;
	uint8_t *p;
	bool same;

	if (s->nthreads > PROFILE_MAX_THREADS)
		return error_set(err, "sample of %u threads exceeds the profile limit of %d",
				 s->nthreads, PROFILE_MAX_THREADS);
	if (GROW_ARRAY(nw->prev_tids, nw->prev_cap, s->nthreads) < 0)
		return error_set(err, "cannot record a sample of %u threads: out of memory",
				 s->nthreads);
	if (check_stacks(w, s, &frames, &clock, err) < 0)
		return -1;
	max = 1 + 2 * VARINT_MAX + (size_t)s->nthreads * VARINT_MAX * (3 + nc) +
	      8 * (size_t)w->info.nsample_channels;
	if (w->info.stacks)
		max += (size_t)s->nthreads * 3 * VARINT_MAX + frames * VARINT_MAX;
	if (w->info.runs)
		max += (size_t)s->nthreads * 2 * VARINT_MAX;
	if (w->info.clock)
		max += (s->nthreads + clock * (w->info.stacks ? 4 : 1)) * VARINT_MAX;
	p = record_begin(nw, max, err);
	if (!p)
		return -1;
	same = same_threads(nw, s);
	residual = zigzag((int64_t)(s->time_ns - nw->prev_time - nw->period_ns));
	*p++ = (uint8_t)(PROFILE_REC_SAMPLE | (same ? SAMPLE_SAME_THREADS : 0) |
			 (residual & ((1 << SAMPLE_TIME_BITS) - 1)) << SAMPLE_TIME_SHIFT);
	p = put_varint(p, residual >> SAMPLE_TIME_BITS);
	if (!same)
		p = put_tids(nw, p, s);
	for (uint32_t i = 0; i < s->nthreads; i++) {
		const struct profile_thread_sample *t = &s->threads[i];
		struct tid_state *st;
		bool created, ran;

		st = tid_table_get(&nw->threads, t->tid, &created);
		if (!st)
			return too_many_threads(err);
		p = put_pc(p, st, t->pc);
		ran = t->cpu_ns != st->cpu;
		p = put_thread_deltas(nw, p, st, t->cpu_ns, t->counters);
		if (w->info.runs && ran)
			p = put_run(p, nw->prev_time, s->time_ns, t);
		if (w->info.stacks)
			p = put_stack(nw, p, st, t);
		if (w->info.clock)
			p = put_clock(nw, p, st, t);
	}
	for (uint32_t j = 0; j < w->info.nsample_channels; j++)
		p = put_double(p, s->values[j]);
	nw->prev_time = s->time_ns;
	return record_end(nw, p, s->time_ns, err);
}

static int native_window(struct profile_writer *w, const struct profile_window *win,
			 struct error *err)
{
	struct native_writer *nw = to_native_writer(w);
	uint8_t *p = record_begin(nw, 1 + VARINT_MAX, err);

	if (!p)
		return -1;
	*p++ = (uint8_t)(PROFILE_REC_WINDOW | (win->enabled ? WINDOW_ENABLED : 0));
	p = put_varint(p, win->time_ns);
	return record_end(nw, p, win->time_ns, err);
}

static int write_stats(struct native_writer *nw, const struct profile_stats *st,
		       struct error *err)
{
	uint32_t nch = st->nchannels <= PROFILE_MAX_CHANNELS ? st->nchannels : 0;
	uint8_t *p = record_begin(nw, 1 + 14 * VARINT_MAX + (8 + VARINT_MAX) * nch, err);

	if (!p)
		return -1;
	*p++ = PROFILE_REC_STATS;
	p = put_varint(p, st->wall_ns);
	p = put_varint(p, st->latency_ns);
	p = put_varint(p, st->samples);
	p = put_varint(p, st->thread_samples);
	p = put_varint(p, st->missed_slots);
	p = put_varint(p, st->missing_readings);
	p = put_varint(p, st->signals_delivered);
	p = put_varint(p, st->threads_seen);
	p = put_varint(p, st->processes_seen);
	p = put_varint(p, zigzag(st->exit_status));
	p = put_varint(p, nch);
	for (uint32_t i = 0; i < nch; i++)
		p = put_double(p, st->channel_totals[i]);
	p = put_varint(p, st->hold_ns);
	p = put_varint(p, nch);		/* version 5 */
	for (uint32_t i = 0; i < nch; i++)
		p = put_varint(p, st->channel_refused[i]);
	nw->chunk.len = (size_t)(p - nw->chunk.data);
	return 0;
}

/* stats NULL (abandon): flush what is buffered; the file reads back as
 * truncated.  After a failed write nothing more is attempted. */
static int native_finish(struct profile_writer *w, const struct profile_stats *st,
			 struct error *err)
{
	struct native_writer *nw = to_native_writer(w);
	int ret = 0;

	if (!w->failed) {
		if (st)
			ret = write_stats(nw, st, err);
		if (native_flush(w, ret < 0 ? NULL : err) < 0)
			ret = -1;
	}
	if (sink_close(&w->sink, ret < 0 ? NULL : err) < 0)
		ret = -1;
	obuf_free(&nw->chunk);
	free(nw->prev_tids);
	tid_table_free(&nw->threads);
	stack_tree_free(&nw->stacks);
	return ret;
}

static const struct writer_ops native_writer_ops = {
	.process = native_process,
	.exec = native_exec,
	.thread = native_thread,
	.exit = native_exit,
	.map = native_map,
	.sample = native_sample,
	.name = native_name,
	.window = native_window,
	.finish = native_finish,
};

struct profile_writer *native_writer_open(struct outfile *out, const struct profile_info *info,
					  bool compress, struct error *err)
{
	struct native_writer *nw = calloc(1, sizeof(*nw));
	uint8_t header[HEADER_SIZE];
	struct stat sb;

	if (!nw) {
		error_set(err, "cannot create %s: out of memory", outfile_name(out));
		outfile_abandon(out);
		return NULL;
	}
	nw->head.ops = &native_writer_ops;
	nw->head.info = *info;
	profile_info_index_channels(&nw->head.info);
	nw->period_ns = profile_period_ns(info->host.target_hz);
	nw->prev_time = nw->flush_time = info->host.start_ns;
	tid_table_init(&nw->threads, nw->head.info.nthread_channels, PROFILE_MAX_THREADS);
	stack_tree_init(&nw->stacks, true);
	if (obuf_reserve(&nw->chunk, CHUNK_TARGET + CHUNK_HEADER) < 0) {
		error_set(err, "cannot create %s: out of memory", outfile_name(out));
		outfile_abandon(out);
		goto out_free;
	}
	nw->chunk.len = CHUNK_HEADER;
	if (sink_open(&nw->head.sink, out, compress, err) < 0)
		goto out_free;
	nw->flush_interval_ns = fstat(nw->head.sink.fd, &sb) == 0 && S_ISFIFO(sb.st_mode) ?
				PIPE_FLUSH_INTERVAL_NS : FLUSH_INTERVAL_NS;
	memcpy(header, NATIVE_MAGIC, NATIVE_MAGIC_LEN);
	put_le32(header + 8, NATIVE_VERSION);
	put_le32(header + 12, (info->stacks ? HEADER_STACKS : 0) | (info->runs ? HEADER_RUNS : 0) |
			      (info->clock ? HEADER_CLOCK : 0));
	/* The header and info go out at once, and the file takes its name
	 * then: it is readable from the start, whenever the sampler dies. */
	if (sink_write(&nw->head.sink, header, sizeof(header), false, err) < 0 ||
	    write_info(nw, err) < 0 || sink_publish(&nw->head.sink, err) < 0) {
		nw->head.sink.failed = true;	/* the target stays as it was */
		sink_close(&nw->head.sink, NULL);
		goto out_free;
	}
	return &nw->head;

out_free:
	obuf_free(&nw->chunk);
	free(nw);
	return NULL;
}
