/* profile.c - the public profile interface: picks the format back-end
 * (native-write.c, native-read.c, pperf.c) and the byte stream (stream.c, plain or bzip2). */
#include "internal.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

struct profile_writer *profile_writer_open_out(struct outfile *out, enum profile_format format,
					       const struct profile_info *info,
					       struct error *err)
{
	bool compress = ends_with(outfile_path(out), ".bz2");

	if (info->nchannels > PROFILE_MAX_CHANNELS) {
		error_set(err, "cannot create %s: %u channels, at most %d fit in a profile",
			  outfile_name(out), info->nchannels, PROFILE_MAX_CHANNELS);
		outfile_abandon(out);
		return NULL;
	}
	if (info->clock && (!info->clock_period_ns ||
			    info->clock_period_ns > PROFILE_MAX_CLOCK_PERIOD_NS)) {
		error_set(err, "cannot create %s: clock period of %llu ns out of range (1 ns to 10 s)",
			  outfile_name(out), (unsigned long long)info->clock_period_ns);
		outfile_abandon(out);
		return NULL;
	}
	switch (format) {
	case PROFILE_FORMAT_NATIVE:
		return native_writer_open(out, info, compress, err);
	case PROFILE_FORMAT_PPERF:
		if (info->stacks) {
			error_set(err, "cannot create %s: the pperf layout keeps no call stacks (use the native format)",
				  outfile_name(out));
			outfile_abandon(out);
			return NULL;
		}
		return pperf_writer_open(out, info, compress, err);
	}
	error_set(err, "cannot create %s: unknown profile format %d", outfile_name(out),
		  (int)format);
	outfile_abandon(out);
	return NULL;
}

struct profile_writer *profile_writer_open(const char *path, enum profile_format format,
					   const struct profile_info *info,
					   struct error *err)
{
	struct outfile *out = outfile_open(path, 0666, 0, err);

	return out ? profile_writer_open_out(out, format, info, err) : NULL;
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

int profile_write_window(struct profile_writer *w, const struct profile_window *win, struct error *err)
{
	return WRITE_RECORD(w, window, win, err);
}

int profile_write_name(struct profile_writer *w, const struct profile_name *n, struct error *err)
{
	return WRITE_RECORD(w, name, n, err);
}

int profile_writer_finish(struct profile_writer *w, const struct profile_stats *stats,
			  uint64_t *bytes, struct error *err)
{
	int ret;

	if (!w)
		return 0;
	if (w->failed && err)
		*err = w->failure;
	ret = w->ops->finish(w, stats, w->failed ? NULL : err);
	if (w->failed)
		ret = -1;
	if (bytes)
		*bytes = w->sink.bytes;
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

int reader_corrupt(struct profile_reader *r, uint64_t offset, struct error *err,
		   const char *fmt, ...)
{
	char what[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
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

static bool all_zero(const uint8_t *p, size_t n)
{
	while (n--)
		if (*p++)
			return false;
	return true;
}

/* Tell the formats apart by the (decompressed) first bytes, without
 * consuming them: no seek, so pipes and stdin work too.  The format, or -1
 * (err set) for what is no profile. */
static int identify(struct source *src, struct error *err)
{
	uint8_t head[PROBE_BYTES];
	long long got = source_peek(src, head, sizeof(head), err);

	if (got < 0)
		return -1;
	if (got == 0)
		return error_set(err, "%s: empty file, not a profile (was the sampler killed before it started?)",
				 src->path);
	if (got >= NATIVE_MAGIC_LEN && memcmp(head, NATIVE_MAGIC, NATIVE_MAGIC_LEN) == 0)
		return PROFILE_FORMAT_NATIVE;
	if (pperf_probe(head, (size_t)got))
		return PROFILE_FORMAT_PPERF;
	if (all_zero(head, (size_t)got))
		return error_set(err, "%s: starts with %lld zero bytes%s: not a profile (a pperf profile whose writer was killed has such a header, and its samples cannot be told apart)",
				 src->path, got, src->compressed ? " inside the bzip2 data" : "");
	return error_set(err, "%s: not a sampler profile (neither the native nor the pperf layout%s; is it a profile?)",
			 src->path, src->compressed ? " inside the bzip2 data" : "");
}

struct profile_reader *profile_reader_open(const char *path, struct error *err)
{
	struct source src;

	if (source_open(&src, path, err) < 0)
		return NULL;
	switch (identify(&src, err)) {
	case PROFILE_FORMAT_NATIVE:
		source_single_pass(&src);	/* one pass, streamed */
		return native_reader_open(&src, err);	/* it owns src now */
	case PROFILE_FORMAT_PPERF:
		return pperf_reader_open(&src, err);	/* rewinds, from the spool if need be */
	}
	source_close(&src);
	return NULL;
}

/* Regular files (and "-" redirected from one) can be opened again as they
 * are; anything else is copied whole, once it looks like a profile. */
int profile_input_keep(const char *path, struct profile_input *in, struct error *err)
{
	struct source src;
	struct stat st;
	int fd;

	in->path = path;
	in->fd = -1;
	if (strcmp(path, "-") == 0 ? fstat(STDIN_FILENO, &st) == 0 && S_ISREG(st.st_mode)
				   : stat(path, &st) == 0 && S_ISREG(st.st_mode))
		return 0;
	if (source_open(&src, path, err) < 0)
		return -1;
	fd = identify(&src, err) < 0 ? -1 : source_keep_all(&src, err);
	source_close(&src);
	if (fd < 0)
		return -1;
	in->fd = fd;
	snprintf(in->fd_path, sizeof(in->fd_path), "/dev/fd/%d", fd);
	in->path = in->fd_path;
	return 0;
}

void profile_input_release(struct profile_input *in)
{
	if (in->fd >= 0)
		close(in->fd);
	in->fd = -1;
}

const struct profile_info *profile_reader_info(const struct profile_reader *r)
{
	return &r->info;
}

int profile_read_next(struct profile_reader *r, struct profile_record *rec, struct error *err)
{
	rec->stacks = r->stacks;
	return r->ops->next(r, rec, err);
}

bool profile_reader_truncated(const struct profile_reader *r, uint64_t *good_bytes)
{
	if (r->truncated && good_bytes)
		*good_bytes = r->good_bytes;
	return r->truncated;
}

uint64_t profile_reader_repaired(const struct profile_reader *r, enum profile_repair_kind kind)
{
	return kind < PROFILE_REPAIR_KINDS ? r->repaired[kind] : 0;
}

void profile_repair_warn(const char *prog, const char *input,
			 const uint64_t repaired[PROFILE_REPAIR_KINDS])
{
	static const char *const what[PROFILE_REPAIR_KINDS] = {
		[PROFILE_REPAIR_CPU] = "whose CPU time ran back or faster than the clock: counted as no CPU time",
		[PROFILE_REPAIR_COUNTER] = "whose counter ran back: counted as 0 events",
		[PROFILE_REPAIR_ENERGY] = "below 0, not finite or beyond 1e7 W: counted as missing",
	};
	static const char *const unit[PROFILE_REPAIR_KINDS][2] = {
		[PROFILE_REPAIR_CPU] = { "thread-sample", "thread-samples" },
		[PROFILE_REPAIR_COUNTER] = { "thread-sample", "thread-samples" },
		[PROFILE_REPAIR_ENERGY] = { "energy reading", "energy readings" },
	};

	for (unsigned k = 0; k < PROFILE_REPAIR_KINDS; k++)
		if (repaired[k])
			warn_print(prog, "%s: %" PRIu64 " %s %s (values the recorder never writes: a damaged or hand-made profile)",
				   input, repaired[k], unit[k][repaired[k] != 1], what[k]);
}

uint32_t profile_stack_frames(const struct stack_tree *stacks, uint32_t chain,
			      uint64_t *frames, uint32_t max)
{
	return stacks ? stack_tree_frames(stacks, chain, frames, max) : 0;
}

uint32_t profile_stack_depth(const struct stack_tree *stacks, uint32_t chain)
{
	return stacks ? stack_tree_depth(stacks, chain) : 0;
}

const char *profile_stack_end_name(unsigned end)
{
	static const char *const names[PROFILE_STACK_NENDS] = {
		[PROFILE_STACK_COMPLETE] = "complete",
		[PROFILE_STACK_NO_CFI] = "no-cfi",
		[PROFILE_STACK_COPY_SHORT] = "copy-short",
		[PROFILE_STACK_UNKNOWN_MAP] = "unknown-map",
		[PROFILE_STACK_MAX_DEPTH] = "max-depth",
		[PROFILE_STACK_BAD_FRAME] = "bad-frame",
		[PROFILE_STACK_UNREADABLE] = "unreadable",
		[PROFILE_STACK_DROPPED] = "dropped",
	};

	return end < PROFILE_STACK_NENDS ? names[end] : NULL;
}

void profile_reader_close(struct profile_reader *r)
{
	if (!r)
		return;
	r->ops->close(r);
	source_close(&r->src);
	free(r);
}

uint64_t profile_period_ns(double target_hz)
{
	double period;

	if (!(target_hz > 0) || !isfinite(target_hz))
		return 0;
	period = 1e9 / target_hz;
	if (!(period < 1e18))
		return 0;
	return (uint64_t)(period + 0.5);
}
