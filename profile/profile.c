/* profile.c - the public profile interface: picks the format back-end
 * (native.c, pperf.c) and the byte stream (stream.c, plain or bzip2). */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void profile_info_index_channels(struct profile_info *info)
{
	info->nsample_channels = 0;
	info->nthread_channels = 0;
	if (info->nchannels > PROFILE_MAX_CHANNELS)
		info->nchannels = PROFILE_MAX_CHANNELS;
	for (uint32_t i = 0; i < info->nchannels; i++) {
		if (info->channels[i].scope == CHANNEL_PER_THREAD)
			info->thread_channel[info->nthread_channels++] = i;
		else
			info->sample_channel[info->nsample_channels++] = i;
	}
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

struct profile_writer *profile_writer_open(const char *path, enum profile_format format,
					   const struct profile_info *info,
					   struct error *err)
{
	bool compress = ends_with(path, ".bz2");

	if (info->nchannels > PROFILE_MAX_CHANNELS) {
		error_set(err, "cannot create %s: %u channels, at most %d fit in a profile",
			  path, info->nchannels, PROFILE_MAX_CHANNELS);
		return NULL;
	}
	switch (format) {
	case PROFILE_FORMAT_NATIVE:
		return native_writer_open(path, info, compress, err);
	case PROFILE_FORMAT_PPERF:
		return pperf_writer_open(path, info, compress, err);
	}
	error_set(err, "cannot create %s: unknown profile format %d", path, (int)format);
	return NULL;
}

/* Every record goes through here: a writer that failed once refuses the
 * rest with the same message, so that callers may check only at the end. */
static int check_writable(struct profile_writer *w, struct error *err)
{
	if (!w->failed)
		return 0;
	if (err)
		*err = w->failure;
	return -1;
}

static int after_write(struct profile_writer *w, int ret, struct error *err)
{
	if (ret < 0) {
		w->failed = true;
		if (err)
			w->failure = *err;
		else
			error_set(&w->failure, "profile write failed");
	}
	return ret;
}

#define WRITE_RECORD(w, op, rec, err)						\
	(check_writable(w, err) < 0 ? -1 : after_write(w, (w)->ops->op(w, rec, err), err))

int profile_write_process(struct profile_writer *w, const struct profile_process *p, struct error *err)
{
	return WRITE_RECORD(w, process, p, err);
}

int profile_write_exec(struct profile_writer *w, const struct profile_exec *e, struct error *err)
{
	return WRITE_RECORD(w, exec, e, err);
}

int profile_write_thread(struct profile_writer *w, const struct profile_thread *t, struct error *err)
{
	return WRITE_RECORD(w, thread, t, err);
}

int profile_write_exit(struct profile_writer *w, const struct profile_exit *e, struct error *err)
{
	return WRITE_RECORD(w, exit, e, err);
}

int profile_write_map(struct profile_writer *w, const struct profile_map *m, struct error *err)
{
	return WRITE_RECORD(w, map, m, err);
}

int profile_write_sample(struct profile_writer *w, const struct profile_sample *s, struct error *err)
{
	return WRITE_RECORD(w, sample, s, err);
}

int profile_writer_finish(struct profile_writer *w, const struct profile_stats *stats,
			  struct error *err)
{
	int ret;

	if (!w)
		return 0;
	if (w->failed && err)
		*err = w->failure;
	ret = w->ops->finish(w, stats, w->failed ? NULL : err);
	if (w->failed)
		ret = -1;
	free(w);
	return ret;
}

void profile_writer_abandon(struct profile_writer *w)
{
	if (!w)
		return;
	w->ops->finish(w, NULL, NULL);
	free(w);
}

/* ---- reading ---------------------------------------------------------- */

int reader_vcorrupt(struct profile_reader *r, uint64_t offset, struct error *err,
		    const char *fmt, va_list ap)
{
	char what[256];

	vsnprintf(what, sizeof(what), fmt, ap);
	error_set(&r->failure, "%s: corrupt profile at byte offset %llu%s: %s (the file is damaged; records before that offset are good)",
		  r->src.path, (unsigned long long)offset,
		  r->src.compressed ? " of the decompressed data" : "", what);
	r->failed = r->done = true;
	if (err)
		*err = r->failure;
	return -1;
}

int reader_failed(struct profile_reader *r, struct error *err)
{
	r->failed = r->done = true;
	if (err)
		r->failure = *err;
	else
		error_set(&r->failure, "%s: read failed", r->src.path);
	return -1;
}

int reader_truncated_at(struct profile_reader *r, uint64_t offset)
{
	r->truncated = true;
	r->good_bytes = offset;
	r->done = true;
	return 0;
}

struct profile_reader *profile_reader_open(const char *path, struct error *err)
{
	struct profile_reader *r;
	struct source src;
	uint8_t magic[NATIVE_MAGIC_LEN];
	long long got;

	if (source_open(&src, path, err) < 0)
		return NULL;
	/* Peek at the (decompressed) start to tell the formats apart. */
	got = source_read(&src, magic, sizeof(magic), err);
	if (got < 0 || source_rewind(&src, err) < 0)
		goto out_close;
	if (got == 0) {
		error_set(err, "%s: empty file, not a profile (was the sampler killed before it started?)", path);
		goto out_close;
	}
	if (got == NATIVE_MAGIC_LEN && memcmp(magic, NATIVE_MAGIC, NATIVE_MAGIC_LEN) == 0)
		r = native_reader_open(&src, err);
	else if (got >= 4 && magic[0] <= 3 && !magic[1] && !magic[2] && !magic[3])
		r = pperf_reader_open(&src, err);
	else {
		error_set(err, "%s: not a sampler profile (neither the native nor the pperf layout%s; is it a profile?)",
			  path, src.compressed ? " inside the bzip2 data" : "");
		goto out_close;
	}
	return r;	/* the back-end owns src, also when it failed */
out_close:
	source_close(&src);
	return NULL;
}

const struct profile_info *profile_reader_info(const struct profile_reader *r)
{
	return &r->info;
}

int profile_read_next(struct profile_reader *r, struct profile_record *rec, struct error *err)
{
	return r->ops->next(r, rec, err);
}

bool profile_reader_truncated(const struct profile_reader *r, uint64_t *good_bytes)
{
	if (r->truncated && good_bytes)
		*good_bytes = r->good_bytes;
	return r->truncated;
}

void profile_reader_close(struct profile_reader *r)
{
	if (!r)
		return;
	r->ops->close(r);
	source_close(&r->src);
	free(r);
}
