/* native-read.c - the reader of this project's profile format (native.h):
 * every chunk's CRC and every field checked before it is used. */
#include "internal.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../common/grow.h"
#include "codec.h"
#include "native.h"
#include "stacktree.h"
#include "tidtable.h"

struct native_reader {
	struct profile_reader head;
	uint8_t *chunk;			/* payload of the current chunk */
	size_t chunk_cap;
	struct cursor cur;		/* undecoded records of that chunk */
	uint64_t period_ns;
	uint64_t prev_time;
	uint32_t *prev_tids;		/* tid list of the previous sample */
	uint32_t nprev;
	size_t prev_cap;
	uint32_t cap;			/* threads ts and counters are set up for */
	struct profile_thread_sample *ts;
	size_t ts_cap;
	uint64_t *counters;		/* per thread: nc cumulative, nc deltas */
	size_t counters_cap;
	double *values;
	struct tid_table threads;
	struct stack_tree stacks;	/* info.stacks: every stack read */
	bool stats_seen;
	uint32_t version;		/* of the file */
	struct profile_clock_sample *clock;	/* the clock samples of the sample read */
	size_t nclock, clock_cap;
	bool disabled;		/* after a window record that switched sampling off */
	bool rebase;		/* the next sample starts a window: deltas 0 */
};

static struct native_reader *to_native_reader(struct profile_reader *r)
{
	return (struct native_reader *)r;
}

static int truncated_at(struct native_reader *nr, uint64_t offset)
{
	return reader_truncated_at(&nr->head, offset);
}

static int source_error(struct native_reader *nr, struct error *err)
{
	return reader_failed(&nr->head, err);
}

/* Read len payload bytes into the chunk buffer.  Memory grows only with
 * bytes actually read, so a hostile length cannot allocate much. */
static long long read_payload(struct native_reader *nr, uint32_t len, struct error *err)
{
	struct source *src = &nr->head.src;
	size_t have = 0;

	while (have < len) {
		size_t want = len;
		long long got;

		/* Unknown size (a compressed stream): grow with what came, by at
		 * least 1 MiB and by doubling, so that a length the data does not
		 * hold allocates nothing ahead of it and the copying of the
		 * reallocs stays linear (allocators without mremap, such as
		 * the sanitizers', copy every time: stepping by 1 MiB took 20 s
		 * of CPU on a 64 MiB bzip2 bomb there). */
		if (source_left_bound(src) == UINT64_MAX) {
			size_t step = have > 1024 * 1024 ? have : 1024 * 1024;

			if (want > have + step)
				want = have + step;
		}
		if (want > nr->chunk_cap) {
			uint8_t *buf = realloc(nr->chunk, want);

			if (!buf)
				return error_set(err, "cannot read %s: out of memory for a chunk of %u bytes",
						 src->path, len);
			nr->chunk = buf;
			nr->chunk_cap = want;
		}
		got = source_read(src, nr->chunk + have, want - have, err);
		if (got < 0)
			return -1;
		have += (size_t)got;
		if (have < want)
			break;
	}
	return (long long)have;
}

/* Load the next chunk: 1, 0 at a clean end or when truncated (flag set), -1. */
static int load_chunk(struct native_reader *nr, struct error *err)
{
	struct source *src = &nr->head.src;
	uint64_t start = src->offset;
	uint8_t hdr[CHUNK_HEADER];
	uint32_t len, crc;
	long long got;

	got = source_read(src, hdr, sizeof(hdr), err);
	if (got < 0)
		return source_error(nr, err);
	if (got == 0) {
		nr->head.done = true;
		if (!nr->stats_seen)
			truncated_at(nr, start);
		return 0;
	}
	if (got < CHUNK_HEADER)
		return truncated_at(nr, start);
	if (nr->stats_seen)
		return reader_corrupt(&nr->head, start, err, "data after the statistics record");
	len = get_le32(hdr);
	/* The writer never writes an empty chunk; a run of them (8 bytes
	 * each, a padded or forged file) would keep a reader busy for
	 * nothing: 10 GB of them took minutes. */
	if (len == 0)
		return reader_corrupt(&nr->head, start, err, "empty chunk (the writer never writes one)");
	if (len > CHUNK_MAX)
		return reader_corrupt(&nr->head, start, err, "chunk length %u exceeds the limit of %u", len, CHUNK_MAX);
	if (len > source_left_bound(src))
		return truncated_at(nr, start);
	got = read_payload(nr, len, err);
	if (got < 0)
		return source_error(nr, err);
	if (got < len)
		return truncated_at(nr, start);
	crc = crc32_update(crc32_update(0, hdr, 4), nr->chunk, len);
	if (crc != get_le32(hdr + 4))
		return reader_corrupt(&nr->head, start, err, "chunk of %u bytes fails its CRC check (stored 0x%08x, computed 0x%08x)",
				      len, get_le32(hdr + 4), crc);
	nr->cur = (struct cursor){ .start = nr->chunk, .p = nr->chunk,
				   .end = nr->chunk + len, .base = start + CHUNK_HEADER };
	return 1;
}

#define GET(c, fn, dst, what)							\
	do {									\
		if (fn(c, dst) < 0)						\
			return reader_corrupt(&nr->head, cursor_offset(c), err, "bad or cut %s", what); \
	} while (0)

#define GET_STR(c, field, what)							\
	do {									\
		if (cur_string(c, field, sizeof(field)) < 0)			\
			return reader_corrupt(&nr->head, cursor_offset(c), err,		\
					      "bad %s string (longer than %zu bytes, past the chunk end, or holding NUL)", \
					      what, sizeof(field) - 1);		\
	} while (0)

static int read_channel(struct native_reader *nr, struct cursor *c, struct channel_desc *ch,
			struct error *err)
{
	uint8_t kind, scope;

	GET_STR(c, ch->name, "channel name");
	GET_STR(c, ch->source, "channel source");
	GET_STR(c, ch->unit, "channel unit");
	GET(c, cur_double, &ch->scale, "channel scale");
	GET(c, cur_u8, &kind, "channel kind");
	if (kind > CHANNEL_COUNTER)
		return reader_corrupt(&nr->head, cursor_offset(c) - 1, err, "unknown channel kind %u", kind);
	GET(c, cur_u8, &scope, "channel scope");
	if (scope > CHANNEL_PER_THREAD)
		return reader_corrupt(&nr->head, cursor_offset(c) - 1, err, "unknown channel scope %u", scope);
	ch->kind = kind;
	ch->scope = scope;
	return 0;
}

static int read_info(struct native_reader *nr, struct error *err)
{
	struct profile_info *info = &nr->head.info;
	struct profile_host *h = &info->host;
	struct cursor *c = &nr->cur;
	uint8_t tag;

	GET(c, cur_u8, &tag, "info record");
	if (tag != REC_INFO)
		return reader_corrupt(&nr->head, cursor_offset(c) - 1, err, "first record is of type %u, not the info record", tag);
	GET_STR(c, h->hostname, "hostname");
	GET_STR(c, h->os_release, "os_release");
	GET_STR(c, h->os_version, "os_version");
	GET_STR(c, h->arch, "arch");
	GET_STR(c, h->cpu_desc, "cpu_desc");
	GET_STR(c, h->cpu_id, "cpu_id");
	GET(c, cur_u32, &h->nr_cpus_online, "nr_cpus_online");
	GET(c, cur_u32, &h->nr_cpus_avail, "nr_cpus_avail");
	GET(c, cur_varint, &h->total_mem_kb, "total_mem_kb");
	GET_STR(c, h->sampler_version, "sampler_version");
	GET_STR(c, h->cmdline, "cmdline");
	GET(c, cur_varint, &h->realtime_ns, "realtime_ns");
	GET(c, cur_varint, &h->monotonic_ns, "monotonic_ns");
	GET(c, cur_varint, &h->start_ns, "start_ns");
	GET(c, cur_double, &h->target_hz, "target_hz");
	GET(c, cur_u32, &info->nchannels, "channel count");
	if (info->nchannels > PROFILE_MAX_CHANNELS)
		return reader_corrupt(&nr->head, cursor_offset(c) - 1, err, "%u channels (at most %d)",
				      info->nchannels, PROFILE_MAX_CHANNELS);
	for (uint32_t i = 0; i < info->nchannels; i++)
		if (read_channel(nr, c, &info->channels[i], err) < 0)
			return -1;
	profile_info_index_channels(info);
	/* The job fields came later: an older profile's info chunk ends here. */
	if (cursor_left(c)) {
		GET_STR(c, h->rank, "rank");
		GET_STR(c, h->job_id, "job_id");
	}
	/* and the meters' declared timing later still */
	for (uint32_t i = 0; i < info->nchannels && cursor_left(c); i++) {
		struct channel_desc *ch = &info->channels[i];
		uint8_t declared;

		GET(c, cur_u8, &declared, "channel timing");
		if (declared > (nr->version >= 6 ? 7 : 3))
			return reader_corrupt(&nr->head, cursor_offset(c) - 1, err,
					      "unknown channel timing flags %u", declared);
		ch->has_update = declared & 1;
		ch->has_delay = declared >> 1 & 1;
		ch->reads_latest = declared >> 2 & 1;
		if (ch->has_update)
			GET(c, cur_double, &ch->update_ms, "channel update_ms");
		if (ch->has_delay)
			GET(c, cur_double, &ch->delay_ms, "channel delay_ms");
		if ((ch->has_update && !channel_timing_ok(ch->update_ms)) ||
		    (ch->has_delay && !channel_timing_ok(ch->delay_ms)))
			return reader_corrupt(&nr->head, cursor_offset(c) - 8, err,
					      "channel %s declares a timing out of range", ch->name);
	}
	if (info->clock) {
		GET(c, cur_varint, &info->clock_period_ns, "clock period");
		if (!info->clock_period_ns || info->clock_period_ns > PROFILE_MAX_CLOCK_PERIOD_NS)
			return reader_corrupt(&nr->head, cursor_offset(c), err, "clock period of %llu ns out of range",
					      (unsigned long long)info->clock_period_ns);
	}
	return 0;
}

static int read_process(struct native_reader *nr, struct cursor *c, uint8_t tag,
			struct profile_process *p, struct error *err)
{
	GET(c, cur_u32, &p->pid, "process pid");
	GET(c, cur_u32, &p->ppid, "process ppid");
	GET(c, cur_varint, &p->time_ns, "process time");
	p->start_ns = 0;
	if (!(tag & PROCESS_START))
		return 1;
	GET(c, cur_varint, &p->start_ns, "process start");
	if (!p->start_ns)
		return reader_corrupt(&nr->head, cursor_offset(c), err,
				      "process start 0 (the flag says it is known)");
	return 1;
}

static int read_exec(struct native_reader *nr, struct cursor *c, struct profile_exec *e,
		     struct error *err)
{
	GET(c, cur_u32, &e->pid, "exec pid");
	GET(c, cur_varint, &e->time_ns, "exec time");
	GET_STR(c, e->comm, "exec comm");
	GET_STR(c, e->argv, "exec argv");
	return 1;
}

static int read_thread(struct native_reader *nr, struct cursor *c, struct profile_thread *t,
		       struct error *err)
{
	uint64_t start = cursor_offset(c);
	struct tid_state *st;
	bool created;

	GET(c, cur_u32, &t->tid, "thread tid");
	GET(c, cur_u32, &t->pid, "thread pid");
	GET(c, cur_varint, &t->time_ns, "thread time");
	st = tid_table_get(&nr->threads, t->tid, &created);
	if (!st)
		return reader_corrupt(&nr->head, start, err, "more than %d live threads", PROFILE_MAX_THREADS);
	st->pid = t->pid;
	return 1;
}

/* A thread runs on one CPU at a time: its CPU time since its previous
 * sample (since boot, CLOCK_MONOTONIC's origin, at its first) cannot
 * exceed the time between them, give or take the stops in which both
 * were read (CPU_SLACK_NS, and a quarter for a clock that drifts).  A
 * counter that ran back wraps to a delta of 2^63 or more. */
#define CPU_SLACK_NS 1000000000ULL
#define COUNTER_BACK (1ULL << 63)

static bool cpu_delta_possible(const struct tid_state *st, uint64_t time_ns, uint64_t delta)
{
	uint64_t since = time_ns > st->seen_ns ? time_ns - st->seen_ns : 0;

	return delta <= since + since / 4 + CPU_SLACK_NS;
}

/* Set right what the recorder never writes (profile_repair_kind). */
static void repair_thread_deltas(struct native_reader *nr, const struct tid_state *st,
				 uint64_t time_ns, uint64_t *cpu_delta, uint64_t *deltas)
{
	if (!cpu_delta_possible(st, time_ns, *cpu_delta)) {
		*cpu_delta = 0;
		nr->head.repaired[PROFILE_REPAIR_CPU]++;
	}
	for (uint32_t j = 0; j < nr->threads.ncounters; j++)
		if (deltas[j] >= COUNTER_BACK) {
			deltas[j] = 0;
			nr->head.repaired[PROFILE_REPAIR_COUNTER]++;
		}
}

/* The reading side of put_thread_deltas: deltas and the new cumulative
 * values, kept in the thread's state; deltas the recorder cannot have
 * written are repaired (the cumulative values stay as written). */
static int read_thread_deltas(struct native_reader *nr, struct cursor *c, struct tid_state *st,
			      uint64_t time_ns, uint64_t *cpu_delta, uint64_t *cpu_ns,
			      uint64_t *deltas, uint64_t *counters, struct error *err)
{
	uint64_t *prev = tid_table_counters(&nr->threads, st);

	GET(c, cur_varint, cpu_delta, "thread cpu time");
	st->cpu += *cpu_delta;
	*cpu_ns = st->cpu;
	for (uint32_t j = 0; j < nr->threads.ncounters; j++) {
		GET(c, cur_varint, &deltas[j], "thread counter");
		prev[j] += deltas[j];
		counters[j] = prev[j];
	}
	repair_thread_deltas(nr, st, time_ns, cpu_delta, deltas);
	st->seen_ns = time_ns;
	return 0;
}

/* Outside the sampling windows nothing is counted (struct profile_window). */
static void zero_deltas(const struct native_reader *nr, uint64_t *cpu_delta, uint64_t *deltas)
{
	*cpu_delta = 0;
	if (nr->threads.ncounters)
		memset(deltas, 0, nr->threads.ncounters * sizeof(*deltas));
}

/* What the exiting thread owed its clock samples (charge_clock) goes
 * where its last clock sample was: e->owed.  It ran that inside a
 * window, also when it exits outside one. */
static void exit_owed(struct native_reader *nr, struct profile_exit *e)
{
	struct tid_state *st = tid_table_find(&nr->threads, e->tid);

	memset(&e->owed, 0, sizeof(e->owed));
	if (!st || !st->clock_owed)
		return;
	e->owed.pc = st->clock_pc;
	e->owed.cpu_ns = st->clock_owed;
	e->owed.chain = st->clock_chain;
	e->owed.stack_end = st->clock_stack_end;
	if (nr->head.info.stacks)
		e->owed.nframes = stack_tree_depth(&nr->stacks, st->clock_chain);
}

static int read_exit(struct native_reader *nr, struct cursor *c, uint8_t flags,
		     struct profile_exit *e, struct error *err)
{
	uint8_t whole;

	GET(c, cur_u32, &e->tid, "exit tid");
	GET(c, cur_u32, &e->pid, "exit pid");
	GET(c, cur_varint, &e->time_ns, "exit time");
	GET(c, cur_u8, &whole, "exit flag");
	if (whole > 1)
		return reader_corrupt(&nr->head, cursor_offset(c) - 1, err, "exit flag %u is not 0 or 1", whole);
	e->whole_process = whole;
	e->final = flags & EXIT_FINAL;
	if (e->final) {
		bool created;
		struct tid_state *st = tid_table_get(&nr->threads, e->tid, &created);

		if (!st)
			return reader_corrupt(&nr->head, cursor_offset(c), err, "more than %d live threads",
					      PROFILE_MAX_THREADS);
		e->last_pc = st->pc;
		e->last_chain = st->chain;
		e->last_stack_end = st->stack_end;
		if (read_thread_deltas(nr, c, st, e->time_ns, &e->cpu_delta_ns, &e->cpu_ns,
				       e->counter_deltas, e->counters, err) < 0)
			return -1;
		if (nr->disabled)
			zero_deltas(nr, &e->cpu_delta_ns, e->counter_deltas);
	}
	exit_owed(nr, e);
	tid_table_remove(&nr->threads, e->tid);
	return 1;
}

static int read_name(struct native_reader *nr, struct cursor *c, struct profile_name *n,
		     struct error *err)
{
	GET(c, cur_u32, &n->tid, "name tid");
	GET(c, cur_u32, &n->pid, "name pid");
	GET(c, cur_varint, &n->time_ns, "name time");
	GET_STR(c, n->name, "thread name");
	return 1;
}

static int read_map(struct native_reader *nr, struct cursor *c, uint8_t tag,
		    struct profile_map *m, struct error *err)
{
	uint64_t idlen = 0;

	GET(c, cur_u32, &m->pid, "map pid");
	GET(c, cur_varint, &m->time_ns, "map time");
	GET(c, cur_varint, &m->start, "map start");
	GET(c, cur_varint, &m->len, "map length");
	GET(c, cur_varint, &m->pgoff, "map offset");
	GET(c, cur_u32, &m->dev_major, "map device major");
	GET(c, cur_u32, &m->dev_minor, "map device minor");
	GET(c, cur_varint, &m->inode, "map inode");
	GET(c, cur_u32, &m->prot, "map protection");
	GET_STR(c, m->path, "map path");
	m->build_id_len = 0;
	m->file_size = m->file_mtime_ns = 0;
	if (tag & MAP_BUILD_ID) {
		GET(c, cur_varint, &idlen, "map build ID length");
		if (idlen < 1 || idlen > PROFILE_BUILD_ID_MAX || idlen > (uint64_t)(c->end - c->p))
			return reader_corrupt(&nr->head, cursor_offset(c), err,
					      "map build ID of %" PRIu64 " bytes (1 to %d, within the chunk)",
					      idlen, PROFILE_BUILD_ID_MAX);
		memcpy(m->build_id, c->p, idlen);
		c->p += idlen;
		m->build_id_len = (uint8_t)idlen;
	}
	if (!(tag & MAP_FILE_STAMP))
		return 1;
	GET(c, cur_varint, &m->file_size, "map file size");
	GET(c, cur_varint, &m->file_mtime_ns, "map file modification time");
	if (!m->file_mtime_ns)
		return reader_corrupt(&nr->head, cursor_offset(c), err,
				      "map file modification time 0 (the flag says it is known)");
	return 1;
}

/* The flags a map record's tag may carry in a file of this version. */
static uint8_t map_flags(const struct native_reader *nr)
{
	return (nr->version >= 3 ? MAP_BUILD_ID : 0) | (nr->version >= 7 ? MAP_FILE_STAMP : 0);
}

static int read_window(struct native_reader *nr, struct cursor *c, uint8_t flags,
		       struct profile_window *win, struct error *err)
{
	GET(c, cur_varint, &win->time_ns, "window time");
	win->enabled = flags & WINDOW_ENABLED;
	/* Deltas restart at the window: see struct profile_window. */
	nr->disabled = !win->enabled;
	nr->rebase = win->enabled;
	return 1;
}

/* Version 5: the readings refused per channel, as many as the totals. */
static int read_refused(struct native_reader *nr, struct cursor *c, struct profile_stats *s,
			struct error *err)
{
	uint32_t n;

	GET(c, cur_u32, &n, "stats refused count");
	if (n != s->nchannels)
		return reader_corrupt(&nr->head, cursor_offset(c) - 1, err,
				      "%u refused counts for %u channel totals", n, s->nchannels);
	for (uint32_t i = 0; i < n; i++)
		GET(c, cur_varint, &s->channel_refused[i], "stats refused readings");
	return 0;
}

static int read_stats(struct native_reader *nr, struct cursor *c, struct profile_stats *s,
		      struct error *err)
{
	uint64_t status;

	memset(s, 0, sizeof(*s));
	GET(c, cur_varint, &s->wall_ns, "stats wall");
	GET(c, cur_varint, &s->latency_ns, "stats latency");
	GET(c, cur_varint, &s->samples, "stats samples");
	GET(c, cur_varint, &s->thread_samples, "stats thread_samples");
	GET(c, cur_varint, &s->missed_slots, "stats missed");
	GET(c, cur_varint, &s->missing_readings, "stats missing");
	GET(c, cur_varint, &s->signals_delivered, "stats signals");
	GET(c, cur_u32, &s->threads_seen, "stats threads");
	GET(c, cur_u32, &s->processes_seen, "stats processes");
	GET(c, cur_varint, &status, "stats exit status");
	if (status > UINT32_MAX)
		return reader_corrupt(&nr->head, cursor_offset(c) - 1, err, "exit status out of range");
	s->exit_status = (int32_t)unzigzag(status);
	GET(c, cur_u32, &s->nchannels, "stats channel count");
	if (s->nchannels > PROFILE_MAX_CHANNELS)
		return reader_corrupt(&nr->head, cursor_offset(c) - 1, err, "%u channel totals (at most %d)",
				      s->nchannels, PROFILE_MAX_CHANNELS);
	for (uint32_t i = 0; i < s->nchannels; i++)
		GET(c, cur_double, &s->channel_totals[i], "stats channel total");
	s->hold_ns = s->latency_ns;	/* (a profile written before the hold: the best guess) */
	if (cursor_left(c))
		GET(c, cur_varint, &s->hold_ns, "stats hold");
	if (cursor_left(c) && read_refused(nr, c, s, err) < 0)
		return -1;
	if (cursor_left(c))
		return reader_corrupt(&nr->head, cursor_offset(c), err, "record after the statistics record");
	nr->stats_seen = true;
	return 1;
}

/* Make the per-sample arrays hold n threads (they only grow). */
static int reserve_threads(struct native_reader *nr, uint32_t n, struct error *err)
{
	uint32_t nc = nr->head.info.nthread_channels;

	if (n <= nr->cap)
		return 0;
	if (GROW_ARRAY(nr->ts, nr->ts_cap, n) < 0 ||
	    GROW_ARRAY(nr->prev_tids, nr->prev_cap, n) < 0 ||
	    (nc && GROW_ARRAY(nr->counters, nr->counters_cap, (size_t)n * 2 * nc) < 0))
		return error_set(err, "cannot read %s: out of memory for a sample of %u threads",
				 nr->head.src.path, n);
	for (uint32_t i = 0; i < n; i++) {
		nr->ts[i].counters = nc ? nr->counters + (size_t)i * 2 * nc : NULL;
		nr->ts[i].counter_deltas = nc ? nr->counters + (size_t)i * 2 * nc + nc : NULL;
	}
	nr->cap = n;
	return 0;
}

static int read_tids(struct native_reader *nr, struct cursor *c, struct error *err)
{
	uint32_t nc = nr->head.info.nthread_channels;
	uint64_t start = cursor_offset(c);
	int64_t tid = 0;
	uint32_t n;

	GET(c, cur_u32, &n, "sample thread count");
	if (n > PROFILE_MAX_THREADS)
		return reader_corrupt(&nr->head, start, err, "sample of %u threads (at most %d)", n, PROFILE_MAX_THREADS);
	/* each thread takes at least one byte of tid, pc, cpu and counter */
	if ((uint64_t)n * (3 + nc) > cursor_left(c))
		return reader_corrupt(&nr->head, start, err, "sample of %u threads does not fit in the %zu bytes left in its chunk",
				      n, cursor_left(c));
	if (reserve_threads(nr, n, err) < 0)
		return source_error(nr, err);
	for (uint32_t i = 0; i < n; i++) {
		uint64_t v;

		GET(c, cur_varint, &v, "sample tid");
		tid += unzigzag(v);
		if (tid < 0 || tid > UINT32_MAX)
			return reader_corrupt(&nr->head, cursor_offset(c), err, "tid %lld out of range", (long long)tid);
		nr->prev_tids[i] = (uint32_t)tid;
	}
	nr->nprev = n;
	return 0;
}

/* The reading side of put_stack: every id and node checked against the
 * stacks read so far and the limits. */
static int read_stack(struct native_reader *nr, struct cursor *c, struct tid_state *st,
		      struct profile_thread_sample *t, struct error *err)
{
	struct stack_tree *tree = &nr->stacks;
	uint64_t code, sel, delta, k, prev;
	uint64_t start = cursor_offset(c);
	uint32_t node, nodes = stack_tree_count(tree);

	GET(c, cur_varint, &code, "thread stack");
	t->stack_end = code & ((1 << STACK_END_BITS) - 1);
	sel = code >> STACK_END_BITS;
	if (sel == STACK_SAME) {
		node = st->chain;
	} else if (sel >= STACK_ID_BASE) {
		if (sel - STACK_ID_BASE >= nodes)
			return reader_corrupt(&nr->head, start, err, "stack %llu not defined (%u so far)",
					      (unsigned long long)(sel - STACK_ID_BASE), nodes);
		node = (uint32_t)(sel - STACK_ID_BASE);
	} else {
		GET(c, cur_varint, &delta, "stack parent");
		GET(c, cur_varint, &k, "stack length");
		if (delta == 0 || delta > nodes)
			return reader_corrupt(&nr->head, start, err, "stack parent %llu back of %u stack nodes",
					      (unsigned long long)delta, nodes);
		node = nodes - (uint32_t)delta;
		if (k == 0)
			return reader_corrupt(&nr->head, start, err, "stack with an empty run of new frames");
		if (k > PROFILE_MAX_FRAMES || k + stack_tree_depth(tree, node) > PROFILE_MAX_FRAMES)
			return reader_corrupt(&nr->head, start, err, "stack of %llu frames (at most %d)",
					      (unsigned long long)(k + stack_tree_depth(tree, node)), PROFILE_MAX_FRAMES);
		if (k > cursor_left(c))
			return reader_corrupt(&nr->head, start, err, "stack of %llu new frames does not fit in the %zu bytes left in its chunk",
					      (unsigned long long)k, cursor_left(c));
		if (nodes + k > PROFILE_MAX_STACK_NODES)
			return reader_corrupt(&nr->head, start, err, "more than %u distinct stack nodes (the reader's limit)",
					      PROFILE_MAX_STACK_NODES);
		prev = stack_tree_addr(tree, node);
		while (k--) {
			GET(c, cur_varint, &delta, "stack frame");
			prev += (uint64_t)unzigzag(delta);
			node = stack_tree_add(tree, node, prev);
			if (!node)
				return error_set(err, "cannot read %s: out of memory for its call stacks",
						 nr->head.src.path);
		}
	}
	st->chain = node;
	st->stack_end = t->stack_end;
	t->chain = node;
	t->nframes = stack_tree_depth(tree, node);
	t->frames = NULL;
	return 0;
}

/* Where a thread that ran since its previous sample ran (put_run). */
static int read_run(struct native_reader *nr, struct cursor *c, uint64_t time_ns,
		    struct profile_thread_sample *t, struct error *err)
{
	uint64_t from, to;

	GET(c, cur_varint, &from, "thread run");
	if (!from)
		return 0;
	GET(c, cur_varint, &to, "thread run end");
	t->run_from_ns = nr->prev_time + (uint64_t)unzigzag(from - 1) * 1000;
	t->run_to_ns = time_ns - (uint64_t)unzigzag(to) * 1000;
	if (t->run_to_ns <= t->run_from_ns)
		return reader_corrupt(&nr->head, cursor_offset(c), err, "thread run ends before it begins");
	return 0;
}

/* The thread's CPU time since its previous sample, with what it owed
 * before, divided between its clock samples and its PC (docs/FORMAT.md,
 * "Clock samples").  A clock sample stands for a period of the thread's
 * CPU time, but the kernel takes fewer than the time holds: none in the
 * kernel (exclude_kernel) and, for a thread that runs in bursts shorter
 * than a period, the part period it was in at each switch out is often
 * lost (examples/bursts: half its time).  That time was spent where the
 * thread ran, so it is owed to its next clock samples, up to
 * SAMPLE_PERIODS_MAX periods each (one sample that follows a long stretch
 * does not take it all) and OWED_PERIODS in all: beyond, it is a thread
 * that spends its time in system calls, charged to its PC as in profiles
 * without clock samples. */
#define SAMPLE_PERIODS_MAX 2
#define OWED_PERIODS 16

static void charge_clock(const struct native_reader *nr, struct tid_state *st,
			 struct profile_thread_sample *t, struct profile_clock_sample *cs)
{
	uint64_t period = nr->head.info.clock_period_ns;
	uint64_t avail, each = 0, rest;
	uint32_t n = t->nclock;

	if (nr->rebase)		/* a window's first sample: nothing before counts */
		st->clock_owed = 0;
	avail = (nr->rebase ? 0 : t->cpu_delta_ns) + st->clock_owed;
	if (n)
		each = avail / n < SAMPLE_PERIODS_MAX * period ? avail / n : SAMPLE_PERIODS_MAX * period;
	rest = avail - each * n;
	for (uint32_t k = 0; k < n; k++) {	/* (what avail / n leaves, one ns each) */
		uint64_t extra = each < SAMPLE_PERIODS_MAX * period && k < rest;

		cs[k].cpu_ns = each + extra;
	}
	if (n && each < SAMPLE_PERIODS_MAX * period)
		rest = 0;
	st->clock_owed = rest < OWED_PERIODS * period ? rest : OWED_PERIODS * period;
	t->pc_cpu_ns = rest - st->clock_owed;
}

/* The reading side of put_clock: the clock samples, appended to
 * nr->clock (read_sample points the thread-samples at them). */
static int read_clock(struct native_reader *nr, struct cursor *c, struct tid_state *st,
		      struct profile_thread_sample *t, struct error *err)
{
	uint32_t chain = st->chain;
	uint8_t end = st->stack_end;
	uint64_t v;

	GET(c, cur_varint, &v, "clock sample count");
	if (!v) {	/* not sampled so: what it owed goes to its PC */
		t->pc_cpu_ns += nr->rebase ? 0 : st->clock_owed;
		st->clock_owed = 0;
		return 0;
	}
	if (v - 1 > PROFILE_MAX_CLOCK_SAMPLES || v - 1 > cursor_left(c))
		return reader_corrupt(&nr->head, cursor_offset(c), err, "%llu clock samples in one thread-sample (at most %d, one byte each)",
				      (unsigned long long)(v - 1), PROFILE_MAX_CLOCK_SAMPLES);
	t->clocked = true;
	t->nclock = (uint32_t)(v - 1);
	if (GROW_ARRAY(nr->clock, nr->clock_cap, nr->nclock + t->nclock) < 0)
		return error_set(err, "cannot read %s: out of memory for its clock samples", nr->head.src.path);
	st->chain = st->clock_chain;
	for (uint32_t k = 0; k < t->nclock; k++) {
		struct profile_clock_sample *cs = &nr->clock[nr->nclock++];
		struct profile_thread_sample stack = { 0 };

		GET(c, cur_varint, &v, "clock sample pc");
		st->clock_pc += (uint64_t)unzigzag(v);
		*cs = (struct profile_clock_sample){ .pc = st->clock_pc };
		if (nr->head.info.stacks && read_stack(nr, c, st, &stack, err) < 0)
			return -1;
		cs->chain = stack.chain;
		cs->nframes = stack.nframes;
		cs->stack_end = stack.stack_end;
	}
	st->clock_chain = st->chain;
	st->clock_stack_end = st->stack_end;
	st->chain = chain;
	st->stack_end = end;
	charge_clock(nr, st, t, t->nclock ? nr->clock + nr->nclock - t->nclock : NULL);
	return 0;
}

static int read_thread_sample(struct native_reader *nr, struct cursor *c, uint32_t tid,
			      uint64_t time_ns, struct profile_thread_sample *t, struct error *err)
{
	struct tid_state *st;
	uint64_t v;
	unsigned alt;
	bool created;

	st = tid_table_get(&nr->threads, tid, &created);
	if (!st)
		return reader_corrupt(&nr->head, cursor_offset(c), err, "more than %d live threads", PROFILE_MAX_THREADS);
	if (cur_varint_flag(c, &v, &alt) < 0)
		return reader_corrupt(&nr->head, cursor_offset(c), err, "bad or cut thread pc");
	v = (uint64_t)unzigzag(v);
	tid_state_move_pc(st, alt, v, (alt ? st->pc_alt : st->pc) + v);
	t->tid = tid;
	t->pid = st->pid;
	t->pc = st->pc;
	if (read_thread_deltas(nr, c, st, time_ns, &t->cpu_delta_ns, &t->cpu_ns,
			       t->counter_deltas, t->counters, err) < 0)
		return -1;
	t->run_from_ns = t->run_to_ns = 0;
	if (nr->head.info.runs && t->cpu_delta_ns && read_run(nr, c, time_ns, t, err) < 0)
		return -1;
	if (nr->head.info.stacks && read_stack(nr, c, st, t, err) < 0)
		return -1;
	t->clocked = false;
	t->nclock = 0;
	t->clock = NULL;
	t->pc_cpu_ns = t->cpu_delta_ns;
	return nr->head.info.clock ? read_clock(nr, c, st, t, err) : 0;
}

/* The thread-samples' clock samples, in thread order in nr->clock (which
 * may have moved while they were read). */
static void point_clock(struct native_reader *nr)
{
	size_t k = 0;

	for (uint32_t i = 0; i < nr->nprev; i++) {
		nr->ts[i].clock = nr->ts[i].nclock ? nr->clock + k : NULL;
		k += nr->ts[i].nclock;
	}
}

/* An energy reading is what a meter counted since the previous sample
 * (since sampling began, at the first): never below 0, and at most
 * PROFILE_MAX_WATTS over that time and a second's slack.  Any other is
 * a missing reading, as the recorder writes a refused one. */
static void repair_energy(struct native_reader *nr, uint64_t time_ns)
{
	const struct profile_info *info = &nr->head.info;
	uint64_t from = nr->prev_time;	/* host.start_ns before the first */
	double secs = (time_ns > from ? (double)(time_ns - from) : 0) * 1e-9 + 1;

	for (uint32_t j = 0; j < info->nsample_channels; j++) {
		const struct channel_desc *ch = &info->channels[info->sample_channel[j]];
		double joules = nr->values[j] * ch->scale;

		if (ch->kind != CHANNEL_ENERGY || isnan(joules))
			continue;
		if (joules >= 0 && joules <= PROFILE_MAX_WATTS * secs)
			continue;
		nr->values[j] = NAN;
		nr->head.repaired[PROFILE_REPAIR_ENERGY]++;
	}
}

static int read_sample(struct native_reader *nr, struct cursor *c, uint8_t flags,
		       struct profile_sample *s, struct error *err)
{
	uint32_t nc = nr->head.info.nthread_channels;
	uint32_t nv = nr->head.info.nsample_channels;
	uint64_t v;

	GET(c, cur_varint, &v, "sample time");
	if (v >> (64 - SAMPLE_TIME_BITS))
		return reader_corrupt(&nr->head, cursor_offset(c), err, "sample time residual out of range");
	v = v << SAMPLE_TIME_BITS | flags >> SAMPLE_TIME_SHIFT;
	s->time_ns = nr->prev_time + nr->period_ns + (uint64_t)unzigzag(v);
	if (!(flags & SAMPLE_SAME_THREADS) && read_tids(nr, c, err) < 0)
		return -1;
	if ((uint64_t)nr->nprev * (2 + nc) > cursor_left(c))
		return reader_corrupt(&nr->head, cursor_offset(c), err, "sample of %u threads does not fit in the %zu bytes left in its chunk",
				      nr->nprev, cursor_left(c));
	nr->nclock = 0;
	for (uint32_t i = 0; i < nr->nprev; i++)
		if (read_thread_sample(nr, c, nr->prev_tids[i], s->time_ns, &nr->ts[i], err) < 0)
			return -1;
	point_clock(nr);
	if (cursor_left(c) < 8 * (size_t)nv)
		return reader_corrupt(&nr->head, cursor_offset(c), err, "sample values cut short");
	for (uint32_t j = 0; j < nv; j++) {
		nr->values[j] = get_double(c->p);
		c->p += 8;
	}
	repair_energy(nr, s->time_ns);
	nr->prev_time = s->time_ns;
	s->nthreads = nr->nprev;
	s->threads = nr->ts;
	s->values = nr->values;
	if (nr->rebase) {
		nr->rebase = false;
		for (uint32_t i = 0; i < s->nthreads; i++) {
			zero_deltas(nr, &s->threads[i].cpu_delta_ns, s->threads[i].counter_deltas);
			s->threads[i].pc_cpu_ns = 0;	/* (charge_clock charged nothing) */
		}
	}
	return 1;
}

static int decode_record(struct native_reader *nr, struct profile_record *rec, struct error *err)
{
	struct cursor *c = &nr->cur;
	uint64_t start = cursor_offset(c);
	uint8_t tag = *c->p++;
	uint8_t type = tag & REC_TYPE_MASK;

	if (tag & ~REC_TYPE_MASK && type != PROFILE_REC_SAMPLE &&
	    !(type == PROFILE_REC_EXIT && (tag & ~REC_TYPE_MASK) == EXIT_FINAL) &&
	    !(type == PROFILE_REC_WINDOW && (tag & ~REC_TYPE_MASK) == WINDOW_ENABLED) &&
	    !(type == PROFILE_REC_MAP && !(tag & ~REC_TYPE_MASK & ~map_flags(nr))) &&
	    !(type == PROFILE_REC_PROCESS && (tag & ~REC_TYPE_MASK) == PROCESS_START &&
	      nr->version >= 7))
		return reader_corrupt(&nr->head, start, err, "record tag 0x%02x has unknown flags", tag);
	if (nr->stats_seen)
		return reader_corrupt(&nr->head, start, err, "record after the statistics record");
	rec->type = type;
	switch (type) {
	case PROFILE_REC_PROCESS:
		return read_process(nr, c, tag, &rec->process, err);
	case PROFILE_REC_EXEC:
		return read_exec(nr, c, &rec->exec, err);
	case PROFILE_REC_THREAD:
		return read_thread(nr, c, &rec->thread, err);
	case PROFILE_REC_EXIT:
		return read_exit(nr, c, tag, &rec->exit, err);
	case PROFILE_REC_MAP:
		return read_map(nr, c, tag, &rec->map, err);
	case PROFILE_REC_SAMPLE:
		return read_sample(nr, c, tag, &rec->sample, err);
	case PROFILE_REC_STATS:
		return read_stats(nr, c, &rec->stats, err);
	case PROFILE_REC_NAME:
		if (nr->version < 2)
			break;
		return read_name(nr, c, &rec->name, err);
	case PROFILE_REC_WINDOW:
		if (nr->version < 2)
			break;
		return read_window(nr, c, tag, &rec->window, err);
	default:
		break;
	}
	return reader_corrupt(&nr->head, start, err, "unknown record type %u", type);
}

static int native_next(struct profile_reader *r, struct profile_record *rec, struct error *err)
{
	struct native_reader *nr = to_native_reader(r);

	while (!r->done) {
		int ret;

		if (nr->cur.p < nr->cur.end)
			return decode_record(nr, rec, err);
		ret = load_chunk(nr, err);
		if (ret <= 0)
			return ret;
	}
	if (r->failed) {
		if (err)
			*err = r->failure;
		return -1;
	}
	return 0;
}

static void native_close(struct profile_reader *r)
{
	struct native_reader *nr = to_native_reader(r);

	free(nr->chunk);
	free(nr->prev_tids);
	free(nr->ts);
	free(nr->counters);
	free(nr->values);
	free(nr->clock);
	tid_table_free(&nr->threads);
	stack_tree_free(&nr->stacks);
}

static const struct reader_ops native_reader_ops = {
	.next = native_next,
	.close = native_close,
};

static int read_header(struct native_reader *nr, struct error *err)
{
	uint8_t header[HEADER_SIZE];
	long long got = source_read(&nr->head.src, header, sizeof(header), err);
	uint32_t version;

	if (got < 0)
		return -1;
	if (got < HEADER_SIZE || memcmp(header, NATIVE_MAGIC, NATIVE_MAGIC_LEN) != 0)
		return error_set(err, "%s: not a sampler profile (too short or bad magic)", nr->head.src.path);
	version = get_le32(header + 8);
	if (version < 1 || version > NATIVE_VERSION)
		return error_set(err, "%s: profile format version %u, this reader knows versions 1-%d (use a matching sampler release)",
				 nr->head.src.path, version, NATIVE_VERSION);
	nr->version = version;
	if (get_le32(header + 12) & ~(HEADER_STACKS | (version >= 4 ? HEADER_RUNS : 0) |
				      (version >= 6 ? HEADER_CLOCK : 0)))
		return error_set(err, "%s: corrupt profile at byte offset 12: unknown header flags 0x%08x",
				 nr->head.src.path, get_le32(header + 12));
	nr->head.info.stacks = get_le32(header + 12) & HEADER_STACKS;
	nr->head.info.runs = get_le32(header + 12) & HEADER_RUNS;
	nr->head.info.clock = get_le32(header + 12) & HEADER_CLOCK;
	return 0;
}

struct profile_reader *native_reader_open(struct source *src, struct error *err)
{
	struct native_reader *nr = calloc(1, sizeof(*nr));
	struct profile_info *info;

	if (!nr) {
		error_set(err, "cannot read %s: out of memory", src->path);
		source_close(src);
		return NULL;
	}
	nr->head.ops = &native_reader_ops;
	nr->head.src = *src;
	info = &nr->head.info;
	if (read_header(nr, err) < 0)
		goto out_free;
	if (load_chunk(nr, err) <= 0) {
		if (!nr->head.failed)
			error_set(err, "%s: profile cut short before its host information (offset %llu; the sampler died at start)",
				  src->path, (unsigned long long)nr->head.good_bytes);
		goto out_free;
	}
	if (read_info(nr, err) < 0)
		goto out_free;
	info->format = PROFILE_FORMAT_NATIVE;
	info->compressed = src->compressed;
	nr->period_ns = profile_period_ns(info->host.target_hz);
	nr->prev_time = info->host.start_ns;
	tid_table_init(&nr->threads, info->nthread_channels, PROFILE_MAX_THREADS);
	stack_tree_init(&nr->stacks, false);
	nr->head.stacks = &nr->stacks;
	if (info->nsample_channels) {
		nr->values = calloc(info->nsample_channels, sizeof(*nr->values));
		if (!nr->values) {
			error_set(err, "cannot read %s: out of memory", src->path);
			goto out_free;
		}
	}
	return &nr->head;

out_free:
	native_close(&nr->head);
	source_close(&nr->head.src);
	free(nr);
	return NULL;
}
