/* native-read.c - the reader of this project's profile format (native.h):
 * every chunk's CRC and every field checked before it is used. */
#include "native-reader.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../common/grow.h"
#include "codec.h"
#include "native.h"
#include "stacktree.h"
#include "tidtable.h"

/* (struct native_reader: native-reader.h) */

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
