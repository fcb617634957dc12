/* pperf.c - the original tool's profile layout, byte for byte.
 *
 * Little-endian, packed (docs/FORMAT.md, "pperf"):
 *   header  u32 magic (0 none/custom, 1 current, 2 voltage, 3 power),
 *           u64 wall time (us), u64 latency (us), u64 samples,
 *           u32 PMU value size (8), u32 maps
 *   sample  u64 time since start (us), PMU value (double), u32 threads,
 *           threads x { u32 tid, u64 pc, u64 cpu time (ns) }
 *   map     u64 address, u64 size, char label[256] (NUL-padded)
 * The counts in the header are known only at the end: plain files get it
 * rewritten in place; .bz2 output is spooled to an unlinked temporary file
 * and compressed at finish.  The maps come last, so the reader finds them
 * with a first pass and hands them out before the samples.
 */
#include "internal.h"
#include "../common/fdio.h"
#include "../common/grow.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "codec.h"
#include "tidtable.h"

#define PPERF_HEADER 36
_Static_assert(PROBE_BYTES >= PPERF_HEADER, "the front must see a whole pperf header");
#define PPERF_VALUE_SIZE 8		/* what this writer always writes */
#define PPERF_VALUE_MAX 64		/* the reader skips values up to this size */
#define PPERF_THREAD 20
#define PPERF_LABEL 256
#define PPERF_MAP (16 + PPERF_LABEL)
#define PPERF_BUFFER (64 * 1024)

enum pperf_magic {
	PPERF_NONE = 0,
	PPERF_CURRENT = 1,
	PPERF_VOLTAGE = 2,
	PPERF_POWER = 3,
};

/* ---- writer ----------------------------------------------------------- */

struct pperf_writer {
	struct profile_writer head;
	bool compress;
	int spool_fd;			/* .bz2: the body until finish, else -1 */
	struct obuf body;		/* sample bytes not yet written out */
	struct obuf maps;		/* PPERF_MAP bytes per map, in order */
	uint64_t nsamples;
	uint64_t prev_time;		/* for energy -> mean power */
	const struct channel_desc *channel; /* the first per-sample channel */
	uint32_t magic;
};

static struct pperf_writer *to_pperf_writer(struct profile_writer *w)
{
	return (struct pperf_writer *)w;
}

/* pperf has no process, exec, thread, exit or name records. */
#define PPERF_IGNORE(name, type)						\
	static int name(struct profile_writer *w, const type *rec, struct error *err) \
	{									\
		(void)w;							\
		(void)rec;							\
		(void)err;							\
		return 0;							\
	}
PPERF_IGNORE(pperf_process, struct profile_process)
PPERF_IGNORE(pperf_exec, struct profile_exec)
PPERF_IGNORE(pperf_thread, struct profile_thread)
PPERF_IGNORE(pperf_exit, struct profile_exit)
PPERF_IGNORE(pperf_name, struct profile_name)

static int spool_fail(struct pperf_writer *pw, struct error *err)
{
	return error_set(err, "cannot write the temporary copy of %s: %s (check free space in its directory and TMPDIR)",
			 pw->head.sink.path, strerror(errno));
}

/* Write out the buffered body bytes. */
static int pperf_flush(struct profile_writer *w, struct error *err)
{
	struct pperf_writer *pw = to_pperf_writer(w);
	int ret = 0;

	if (!pw->body.len)
		return 0;
	if (pw->spool_fd >= 0) {
		if (write_all(pw->spool_fd, pw->body.data, pw->body.len) < 0)
			ret = spool_fail(pw, err);
	} else {
		ret = sink_write(&w->sink, pw->body.data, pw->body.len, true, err);
	}
	pw->body.len = 0;
	return ret;
}

static int pperf_map(struct profile_writer *w, const struct profile_map *m, struct error *err)
{
	struct pperf_writer *pw = to_pperf_writer(w);
	uint8_t entry[PPERF_MAP] = { 0 };

	put_le64(entry, m->start);
	put_le64(entry + 8, m->len);
	memcpy(entry + 16, m->path, strnlen(m->path, PPERF_LABEL - 1));
	/* Map sets are re-sent whole (after exec, dlopen): keep each once. */
	for (size_t off = 0; off < pw->maps.len; off += PPERF_MAP)
		if (memcmp(pw->maps.data + off, entry, PPERF_MAP) == 0)
			return 0;
	if (pw->maps.len / PPERF_MAP >= UINT32_MAX)
		return error_set(err, "too many memory maps for the pperf layout (at most %u)", UINT32_MAX);
	if (obuf_reserve(&pw->maps, PPERF_MAP) < 0)
		return error_set(err, "cannot keep a memory map: out of memory");
	memcpy(pw->maps.data + pw->maps.len, entry, PPERF_MAP);
	pw->maps.len += PPERF_MAP;
	return 0;
}

/* The one PMU value pperf has: SI units; energy becomes the mean power
 * since the previous sample, as the original's RAPL plug-in wrote it. */
static double pperf_value(struct pperf_writer *pw, const struct profile_sample *s)
{
	const struct channel_desc *c = pw->channel;
	double v, dt;

	if (!c)
		return 0.0;
	v = s->values[0] * c->scale;
	if (c->kind != CHANNEL_ENERGY)
		return v;
	dt = (double)(int64_t)(s->time_ns - pw->prev_time) / 1e9;
	return dt > 0 ? v / dt : 0.0;
}

/* The layout has no sampling windows: the samples alone are kept. */
static int pperf_window(struct profile_writer *w, const struct profile_window *win,
			struct error *err)
{
	(void)w;
	(void)win;
	(void)err;
	return 0;
}

static int pperf_sample(struct profile_writer *w, const struct profile_sample *s,
			struct error *err)
{
	struct pperf_writer *pw = to_pperf_writer(w);
	size_t size = 8 + PPERF_VALUE_SIZE + 4 + (size_t)s->nthreads * PPERF_THREAD;
	uint8_t *p;

	if (s->nthreads > PROFILE_MAX_THREADS)
		return error_set(err, "sample of %u threads exceeds the profile limit of %d",
				 s->nthreads, PROFILE_MAX_THREADS);
	if (obuf_reserve(&pw->body, size) < 0)
		return error_set(err, "cannot buffer a sample of %u threads: out of memory", s->nthreads);
	p = pw->body.data + pw->body.len;
	p = put_le64(p, (s->time_ns - w->info.host.start_ns) / 1000);
	p = put_double(p, pperf_value(pw, s));
	p = put_le32(p, s->nthreads);
	for (uint32_t i = 0; i < s->nthreads; i++) {
		p = put_le32(p, s->threads[i].tid);
		p = put_le64(p, s->threads[i].pc);
		p = put_le64(p, s->threads[i].cpu_ns);
	}
	pw->body.len += size;
	pw->prev_time = s->time_ns;
	pw->nsamples++;
	return pw->body.len >= PPERF_BUFFER ? pperf_flush(w, err) : 0;
}

static void pperf_header(struct pperf_writer *pw, const struct profile_stats *st, uint8_t *hdr)
{
	const struct profile_host *h = &pw->head.info.host;
	uint64_t wall_ns = st ? st->wall_ns : pw->prev_time - h->start_ns;

	put_le32(hdr, pw->magic);
	put_le64(hdr + 4, wall_ns / 1000);
	put_le64(hdr + 12, st ? st->latency_ns / 1000 : 0);
	put_le64(hdr + 20, pw->nsamples);
	put_le32(hdr + 28, PPERF_VALUE_SIZE);
	put_le32(hdr + 32, (uint32_t)(pw->maps.len / PPERF_MAP));
}

/* .bz2: header, then the spooled body, then the maps, all compressed. */
static int finish_compressed(struct pperf_writer *pw, const uint8_t *hdr, struct error *err)
{
	struct sink *sink = &pw->head.sink;
	uint8_t *buf;
	int ret = 0;

	if (sink_write(sink, hdr, PPERF_HEADER, false, err) < 0)
		return -1;
	if (lseek(pw->spool_fd, 0, SEEK_SET) < 0)
		return spool_fail(pw, err);
	buf = malloc(PPERF_BUFFER);
	if (!buf)
		return error_set(err, "cannot write %s: out of memory", sink->path);
	for (;;) {
		ssize_t got = read(pw->spool_fd, buf, PPERF_BUFFER);

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			ret = spool_fail(pw, err);
			break;
		}
		if (got == 0 || (ret = sink_write(sink, buf, (size_t)got, false, err)) < 0)
			break;
	}
	free(buf);
	if (ret == 0)
		ret = sink_write(sink, pw->maps.data, pw->maps.len, true, err);
	return ret;
}

/* Plain: the maps follow the body; the header is rewritten in place. */
static int finish_plain(struct pperf_writer *pw, const uint8_t *hdr, struct error *err)
{
	struct sink *sink = &pw->head.sink;

	if (sink_write(sink, pw->maps.data, pw->maps.len, true, err) < 0)
		return -1;
	return sink_pwrite(sink, hdr, PPERF_HEADER, 0, err);
}

/* Without stats (abandon) the file is still completed, with the wall time
 * up to the last sample and no latency: pperf has no truncation marker. */
static int pperf_finish(struct profile_writer *w, const struct profile_stats *st,
			struct error *err)
{
	struct pperf_writer *pw = to_pperf_writer(w);
	uint8_t hdr[PPERF_HEADER];
	int ret = 0;

	if (w->failed)
		err = NULL;
	pperf_header(pw, st, hdr);
	if (pperf_flush(w, err) < 0)
		ret = -1;
	else if (pw->compress)
		ret = finish_compressed(pw, hdr, err);
	else
		ret = finish_plain(pw, hdr, err);
	if (sink_close(&w->sink, ret < 0 ? NULL : err) < 0)
		ret = -1;
	if (pw->spool_fd >= 0)
		close(pw->spool_fd);
	obuf_free(&pw->body);
	obuf_free(&pw->maps);
	return ret;
}

static const struct writer_ops pperf_writer_ops = {
	.process = pperf_process,
	.exec = pperf_exec,
	.thread = pperf_thread,
	.exit = pperf_exit,
	.map = pperf_map,
	.sample = pperf_sample,
	.name = pperf_name,
	.window = pperf_window,
	.finish = pperf_finish,
};

/* An unlinked temporary file next to path (same disk), else in TMPDIR. */
static int open_spool(const char *path, struct error *err)
{
	char *copy = strdup(path);
	int fd = -1;

	if (copy) {
		fd = temp_file_open(dirname(copy));
		free(copy);
	}
	if (fd < 0)
		fd = temp_file_open(NULL);
	if (fd < 0)
		return error_set(err, "cannot create a temporary file for %s: %s (set TMPDIR to a writable directory)",
				 path, strerror(errno));
	return fd;
}

static uint32_t magic_of(const struct channel_desc *c)
{
	if (!c)
		return PPERF_NONE;
	switch (c->kind) {
	case CHANNEL_CURRENT:
		return PPERF_CURRENT;
	case CHANNEL_VOLTAGE:
		return PPERF_VOLTAGE;
	case CHANNEL_ENERGY:
	case CHANNEL_POWER:
		return PPERF_POWER;
	case CHANNEL_COUNTER:
		break;
	}
	return PPERF_NONE;
}

struct profile_writer *pperf_writer_open(struct outfile *out, const struct profile_info *info,
					 bool compress, struct error *err)
{
	struct pperf_writer *pw = calloc(1, sizeof(*pw));
	static const uint8_t zeros[PPERF_HEADER];

	if (!pw) {
		error_set(err, "cannot create %s: out of memory", outfile_name(out));
		outfile_abandon(out);
		return NULL;
	}
	/* The header is written last: a plain pperf file must be rewritable. */
	if (!compress && !outfile_is_file(out)) {
		error_set(err, "cannot write the pperf layout to %s: its header is written last, which needs a file (write to a file, or to FILE.bz2)",
			  outfile_name(out));
		outfile_abandon(out);
		goto out_free;
	}
	pw->head.ops = &pperf_writer_ops;
	pw->head.info = *info;
	profile_info_index_channels(&pw->head.info);
	pw->compress = compress;
	pw->spool_fd = -1;
	pw->prev_time = info->host.start_ns;
	if (pw->head.info.nsample_channels) {
		pw->channel = &pw->head.info.channels[pw->head.info.sample_channel[0]];
		pw->magic = magic_of(pw->channel);
		if (pw->magic == PPERF_NONE)
			pw->channel = NULL;	/* a per-sample counter: not a PMU value */
	}
	if (compress && (pw->spool_fd = open_spool(outfile_path(out), err)) < 0) {
		outfile_abandon(out);
		goto out_free;
	}
	if (sink_open(&pw->head.sink, out, compress, err) < 0)
		goto out_close;
	/* Plain files: room for the header, rewritten at finish. */
	if (!compress && sink_write(&pw->head.sink, zeros, sizeof(zeros), false, err) < 0) {
		sink_close(&pw->head.sink, NULL);
		goto out_close;
	}
	return &pw->head;

out_close:
	if (pw->spool_fd >= 0)
		close(pw->spool_fd);
out_free:
	free(pw);
	return NULL;
}

/* ---- reader ----------------------------------------------------------- */

enum pperf_phase {
	PHASE_PROCESS,
	PHASE_THREAD,
	PHASE_MAPS,
	PHASE_SAMPLES,
	PHASE_STATS,
	PHASE_END,
};

struct pperf_reader {
	struct profile_reader head;
	uint32_t magic;
	uint32_t value_size;
	uint64_t wall_us, latency_us, nsamples, nmaps;
	uint64_t samples_ok;		/* complete samples (first pass) */
	uint64_t end_offset;		/* where the good data ends */
	bool trailing;			/* bytes follow the last map */
	bool cut;			/* the data ends inside a sample or map */
	bool deferred;			/* the first pass failed after samples_ok: */
	struct error deferred_error;	/* report it after those samples */
	uint8_t *maps;			/* raw map entries */
	uint64_t maps_ok;
	/* the run of maps of one file the current map continues */
	uint64_t run_base, run_end;
	char run_path[PPERF_LABEL + 1];
	bool have_pid;
	uint32_t pid;			/* the first sample's first tid */
	enum pperf_phase phase;
	uint64_t next_map, next_sample;
	struct tid_table threads;
	/* the current sample */
	struct profile_sample sample;
	size_t threads_cap;		/* of sample.threads */
	uint8_t *raw;			/* its thread bytes as read */
	size_t raw_cap;
	uint32_t *new_tids;		/* threads first seen in it */
	size_t new_tids_cap;
	uint32_t nnew, new_pos;
	bool sample_ready;
	double value;
	/* for the synthesised statistics */
	uint64_t thread_samples, missing, nvalues;
	double value_sum;
	uint32_t threads_seen;
};

static struct pperf_reader *to_pperf_reader(struct profile_reader *r)
{
	return (struct pperf_reader *)r;
}

/* Read exactly n bytes: 1, 0 when the data ends first, -1 on error. */
static int read_exact(struct pperf_reader *pr, void *dst, size_t n, struct error *err)
{
	long long got = source_read(&pr->head.src, dst, n, err);

	if (got < 0)
		return reader_failed(&pr->head, err);
	return (size_t)got == n;
}

static int skip_exact(struct pperf_reader *pr, uint64_t n, struct error *err)
{
	long long got = source_skip(&pr->head.src, n, err);

	if (got < 0)
		return reader_failed(&pr->head, err);
	return (uint64_t)got == n;
}

/* A sample's head: time, value and thread count.  1, 0 (cut), -1. */
static int read_sample_head(struct pperf_reader *pr, uint64_t *time_us, double *value,
			    uint32_t *nthreads, struct error *err)
{
	uint8_t head[8 + PPERF_VALUE_MAX + 4];
	uint64_t start = pr->head.src.offset;
	int ret = read_exact(pr, head, 12 + pr->value_size, err);

	if (ret <= 0)
		return ret;
	*time_us = get_le64(head);
	*value = pr->value_size == 8 ? get_double(head + 8) : NAN;
	*nthreads = get_le32(head + 8 + pr->value_size);
	if (*nthreads > PROFILE_MAX_THREADS)
		return reader_corrupt(&pr->head, start + 8 + pr->value_size, err,
				      "sample of %u threads (at most %d)", *nthreads, PROFILE_MAX_THREADS);
	if (*time_us > UINT64_MAX / 1000)
		return reader_corrupt(&pr->head, start, err, "sample time %llu us out of range",
				      (unsigned long long)*time_us);
	return 1;
}

/* First pass: where the samples end, the first tid, and the maps. */
static int scan_samples(struct pperf_reader *pr, struct error *err)
{
	for (uint64_t i = 0; i < pr->nsamples; i++) {
		uint64_t start = pr->head.src.offset, time_us;
		uint32_t n, skip = 0;
		uint8_t tid[4];
		double value;
		int ret = read_sample_head(pr, &time_us, &value, &n, err);

		if (ret == 1 && n && !pr->have_pid) {
			ret = read_exact(pr, tid, sizeof(tid), err);
			pr->pid = get_le32(tid);
			pr->have_pid = ret == 1;
			skip = sizeof(tid);
		}
		if (ret == 1)
			ret = skip_exact(pr, (uint64_t)n * PPERF_THREAD - skip, err);
		if (ret < 0)
			return -1;
		if (ret == 0) {
			pr->end_offset = start;
			return 0;
		}
		pr->samples_ok++;
	}
	pr->end_offset = pr->head.src.offset;
	return 1;
}

static int scan_maps(struct pperf_reader *pr, struct error *err)
{
	size_t cap = 0;

	for (uint64_t i = 0; i < pr->nmaps; i++) {
		int ret;

		/* grows with the data, not the count */
		if (GROW_ARRAY(pr->maps, cap, (pr->maps_ok + 1) * PPERF_MAP) < 0) {
			error_set(err, "cannot read %s: out of memory for its memory maps",
				  pr->head.src.path);
			return reader_failed(&pr->head, err);
		}
		ret = read_exact(pr, pr->maps + pr->maps_ok * PPERF_MAP, PPERF_MAP, err);
		if (ret <= 0)
			return ret;
		pr->maps_ok++;
		pr->end_offset = pr->head.src.offset;
	}
	return 1;
}

bool pperf_probe(const uint8_t *head, size_t n)
{
	uint32_t value_size;

	if (n < PPERF_HEADER)
		return false;
	value_size = get_le32(head + 28);
	return get_le32(head) <= PPERF_POWER && value_size >= 1 && value_size <= PPERF_VALUE_MAX;
}

static int read_pperf_header(struct pperf_reader *pr, struct error *err)
{
	uint8_t hdr[PPERF_HEADER];
	int ret = read_exact(pr, hdr, sizeof(hdr), err);

	if (ret < 0)
		return -1;
	if (ret == 0)
		return error_set(err, "%s: too short for a pperf header (%d bytes)",
				 pr->head.src.path, PPERF_HEADER);
	pr->magic = get_le32(hdr);
	pr->wall_us = get_le64(hdr + 4);
	pr->latency_us = get_le64(hdr + 12);
	pr->nsamples = get_le64(hdr + 20);
	pr->value_size = get_le32(hdr + 28);
	pr->nmaps = get_le32(hdr + 32);
	if (pr->magic > PPERF_POWER)
		return reader_corrupt(&pr->head, 0, err, "pperf magic %u is not 0-3", pr->magic);
	if (pr->value_size > PPERF_VALUE_MAX)
		return reader_corrupt(&pr->head, 28, err, "PMU value size %u exceeds %d bytes",
				      pr->value_size, PPERF_VALUE_MAX);
	return 0;
}

static void synthesize_info(struct pperf_reader *pr)
{
	static const struct {
		const char *name, *unit;
		enum channel_kind kind;
	} kinds[] = {
		[PPERF_CURRENT] = { "current", "A", CHANNEL_CURRENT },
		[PPERF_VOLTAGE] = { "voltage", "V", CHANNEL_VOLTAGE },
		[PPERF_POWER] = { "power", "W", CHANNEL_POWER },
	};
	struct profile_info *info = &pr->head.info;

	info->format = PROFILE_FORMAT_PPERF;
	info->compressed = pr->head.src.compressed;
	if (pr->magic != PPERF_NONE) {
		struct channel_desc *c = &info->channels[0];

		strcpy(c->name, kinds[pr->magic].name);
		strcpy(c->source, "pperf");
		strcpy(c->unit, kinds[pr->magic].unit);
		c->scale = 1;
		c->kind = kinds[pr->magic].kind;
		c->scope = CHANNEL_PER_SAMPLE;
		info->nchannels = 1;
	}
	profile_info_index_channels(info);
}

static int reserve_sample(struct pperf_reader *pr, uint32_t n, struct error *err)
{
	if (GROW_ARRAY(pr->sample.threads, pr->threads_cap, n) < 0 ||
	    GROW_ARRAY(pr->new_tids, pr->new_tids_cap, n) < 0 ||
	    GROW_ARRAY(pr->raw, pr->raw_cap, (size_t)n * PPERF_THREAD) < 0)
		return error_set(err, "cannot read %s: out of memory for a sample of %u threads",
				 pr->head.src.path, n);
	return 0;
}

/* Decode the next sample; note the threads it shows for the first time. */
static int load_sample(struct pperf_reader *pr, struct error *err)
{
	struct profile_sample *s = &pr->sample;
	uint64_t start = pr->head.src.offset, time_us;
	uint32_t n;
	int ret = read_sample_head(pr, &time_us, &pr->value, &n, err);

	if (ret == 1) {
		if (reserve_sample(pr, n, err) < 0)
			return reader_failed(&pr->head, err);
		ret = read_exact(pr, pr->raw, (size_t)n * PPERF_THREAD, err);
	}
	if (ret < 0)
		return -1;
	if (ret == 0)	/* the first pass saw it whole */
		return reader_corrupt(&pr->head, start, err, "sample changed while being read");
	s->time_ns = time_us * 1000;
	s->nthreads = n;
	s->values = pr->magic != PPERF_NONE ? &pr->value : NULL;
	pr->nnew = pr->new_pos = 0;
	for (uint32_t i = 0; i < n; i++) {
		struct profile_thread_sample *t = &s->threads[i];
		const uint8_t *raw = pr->raw + (size_t)i * PPERF_THREAD;
		struct tid_state *st;
		bool created;

		t->tid = get_le32(raw);
		t->pc = get_le64(raw + 4);
		t->cpu_ns = get_le64(raw + 12);
		st = tid_table_get(&pr->threads, t->tid, &created);
		if (!st)
			return reader_corrupt(&pr->head, start, err, "more than %d threads", PROFILE_MAX_THREADS);
		if (created)
			pr->new_tids[pr->nnew++] = t->tid;
		t->pid = pr->pid;
		t->cpu_delta_ns = t->cpu_ns - st->cpu;
		st->cpu = t->cpu_ns;
		t->counters = t->counter_deltas = NULL;
		t->clocked = false;	/* no clock samples in this layout */
		t->nclock = 0;
		t->clock = NULL;
		t->pc_cpu_ns = t->cpu_delta_ns;
	}
	pr->threads_seen += pr->nnew;
	pr->thread_samples += n;
	if (pr->magic != PPERF_NONE) {
		if (isnan(pr->value)) {
			pr->missing++;
		} else {
			pr->value_sum += pr->value;
			pr->nvalues++;
		}
	}
	pr->next_sample++;
	pr->sample_ready = true;
	return 1;
}

/* pperf keeps no file offset: every map reads pgoff 0.  The loader maps an
 * ELF's segments in file order from one base, so within a run of
 * consecutive maps of one file the offset is start - base: put it back here,
 * so that every consumer sees the same maps as from a native profile. */
static void restore_pgoff(struct pperf_reader *pr, struct profile_map *m)
{
	bool same_run = pr->next_map > 1 && m->start >= pr->run_end &&
			strcmp(m->path, pr->run_path) == 0;

	if (!same_run) {
		pr->run_base = m->start;
		memcpy(pr->run_path, m->path, sizeof(pr->run_path));
	}
	pr->run_end = m->start + m->len;
	if (same_run && m->path[0] == '/')
		m->pgoff = m->start - pr->run_base;
}

static void fill_map(struct pperf_reader *pr, struct profile_map *m)
{
	const uint8_t *raw = pr->maps + pr->next_map++ * PPERF_MAP;

	memset(m, 0, offsetof(struct profile_map, path));
	m->pid = pr->pid;
	m->start = get_le64(raw);
	m->len = get_le64(raw + 8);
	m->prot = PROT_READ | PROT_EXEC;	/* pperf keeps no protection */
	memcpy(m->path, raw + 16, PPERF_LABEL);
	m->path[PPERF_LABEL] = '\0';
	m->build_id_len = 0;	/* the layout has no build IDs */
	restore_pgoff(pr, m);
}

static void fill_stats(struct pperf_reader *pr, struct profile_stats *s)
{
	memset(s, 0, sizeof(*s));
	s->wall_ns = pr->wall_us * 1000;
	s->latency_ns = pr->latency_us * 1000;
	s->hold_ns = s->latency_ns;	/* the layout has no hold of its own */
	s->samples = pr->samples_ok;
	s->thread_samples = pr->thread_samples;
	s->missing_readings = pr->missing;
	s->threads_seen = pr->threads_seen;
	s->processes_seen = pr->have_pid;
	s->nchannels = pr->head.info.nchannels;
	if (s->nchannels)
		s->channel_totals[0] = pr->nvalues ? pr->value_sum / (double)pr->nvalues : 0;
}

/* The end of the data: truncated, or bytes nobody accounts for. */
static int pperf_end(struct pperf_reader *pr, struct error *err)
{
	if (pr->deferred) {
		if (err)
			*err = pr->deferred_error;
		return reader_failed(&pr->head, &pr->deferred_error);
	}
	if (pr->trailing)
		return reader_corrupt(&pr->head, pr->end_offset, err,
				      "unexpected data after the last of %llu samples and %llu maps (the header counts are wrong: was the writer killed?)",
				      (unsigned long long)pr->nsamples, (unsigned long long)pr->nmaps);
	if (pr->cut)
		return reader_truncated_at(&pr->head, pr->end_offset);
	pr->head.done = true;
	return 0;
}

static int next_sample_record(struct pperf_reader *pr, struct profile_record *rec,
			      struct error *err)
{
	int ret;

	if (!pr->sample_ready) {
		if (pr->next_sample == pr->samples_ok) {
			pr->phase = PHASE_STATS;
			return 0;
		}
		ret = load_sample(pr, err);
		if (ret <= 0)
			return -1;
	}
	if (pr->new_pos < pr->nnew) {	/* announce new threads first */
		rec->type = PROFILE_REC_THREAD;
		rec->thread = (struct profile_thread){ .tid = pr->new_tids[pr->new_pos++],
						       .pid = pr->pid,
						       .time_ns = pr->sample.time_ns };
		return 1;
	}
	pr->sample_ready = false;
	rec->type = PROFILE_REC_SAMPLE;
	rec->sample = pr->sample;
	return 1;
}

static int pperf_next(struct profile_reader *r, struct profile_record *rec, struct error *err)
{
	struct pperf_reader *pr = to_pperf_reader(r);
	bool created;
	int ret;

	while (!r->done) {
		switch (pr->phase) {
		case PHASE_PROCESS:
			pr->phase = PHASE_THREAD;
			if (!pr->have_pid)
				continue;
			rec->type = PROFILE_REC_PROCESS;
			rec->process = (struct profile_process){ .pid = pr->pid };
			return 1;
		case PHASE_THREAD:
			pr->phase = PHASE_MAPS;
			if (!pr->have_pid)
				continue;
			tid_table_get(&pr->threads, pr->pid, &created);
			pr->threads_seen++;
			rec->type = PROFILE_REC_THREAD;
			rec->thread = (struct profile_thread){ .tid = pr->pid, .pid = pr->pid };
			return 1;
		case PHASE_MAPS:
			if (pr->next_map == pr->maps_ok) {
				pr->phase = PHASE_SAMPLES;
				continue;
			}
			rec->type = PROFILE_REC_MAP;
			fill_map(pr, &rec->map);
			return 1;
		case PHASE_SAMPLES:
			ret = next_sample_record(pr, rec, err);
			if (ret != 0)
				return ret;
			continue;
		case PHASE_STATS:
			pr->phase = PHASE_END;
			if (pr->cut || pr->trailing || pr->deferred)
				continue;
			rec->type = PROFILE_REC_STATS;
			fill_stats(pr, &rec->stats);
			return 1;
		case PHASE_END:
			return pperf_end(pr, err);
		}
	}
	if (r->failed) {
		if (err)
			*err = r->failure;
		return -1;
	}
	return 0;
}

static void pperf_close(struct profile_reader *r)
{
	struct pperf_reader *pr = to_pperf_reader(r);

	free(pr->maps);
	free(pr->sample.threads);
	free(pr->new_tids);
	free(pr->raw);
	tid_table_free(&pr->threads);
}

static const struct reader_ops pperf_reader_ops = {
	.next = pperf_next,
	.close = pperf_close,
};

/* Walk the whole file once (maps come last), then rewind to the samples. */
static int first_pass(struct pperf_reader *pr, struct error *err)
{
	uint8_t extra;
	int ret;

	if (read_pperf_header(pr, err) < 0)
		return -1;
	ret = scan_samples(pr, err);
	if (ret == 1)
		ret = scan_maps(pr, err);
	if (ret < 0) {
		/* hand out the good samples first, then this error */
		pr->deferred = true;
		pr->deferred_error = pr->head.failure;
		pr->head.failed = pr->head.done = false;
		pr->maps_ok = 0;
	} else if (ret == 0) {
		pr->cut = true;
	} else {
		ret = read_exact(pr, &extra, 1, err);
		if (ret < 0)
			return -1;
		pr->trailing = ret == 1;
	}
	if (source_rewind(&pr->head.src, err) < 0 || skip_exact(pr, PPERF_HEADER, err) != 1)
		return -1;
	return 0;
}

struct profile_reader *pperf_reader_open(struct source *src, struct error *err)
{
	struct pperf_reader *pr = calloc(1, sizeof(*pr));

	if (!pr) {
		error_set(err, "cannot read %s: out of memory", src->path);
		source_close(src);
		return NULL;
	}
	pr->head.ops = &pperf_reader_ops;
	pr->head.src = *src;
	tid_table_init(&pr->threads, 0, PROFILE_MAX_THREADS);
	if (first_pass(pr, err) < 0) {
		if (pr->head.failed && err)
			*err = pr->head.failure;
		pperf_close(&pr->head);
		source_close(&pr->head.src);
		free(pr);
		return NULL;
	}
	synthesize_info(pr);
	return &pr->head;
}
