/* stream.h - where profile bytes go and come from: a plain file or a bzip2
 * stream (libbz2), so that the format code never cares which.
 *
 * The sink compresses with BZ2_bzCompress and ends the bzip2 stream at every
 * sink_write(..., flush = true), starting a new one with the next write
 * (concatenated streams, as pbzip2 writes and bzip2 -d reads): each chunk
 * the writer completes is then recoverable from a file cut short.  The source
 * detects bzip2 by content ("BZh") and decompresses transparently; offsets
 * it reports are in the decompressed stream.
 */
#ifndef SAMPLER_PROFILE_STREAM_H
#define SAMPLER_PROFILE_STREAM_H

#include <bzlib.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../common/error.h"
#include "../common/outfile.h"

struct sink {
	struct outfile *out;		/* common/outfile: where the bytes go */
	int fd;
	bool failed;			/* a write failed: the output is not kept */
	int error;			/* and its errno (0: not a write's) */
	bool compress;
	bz_stream bz;
	bool stream_open;		/* a bzip2 stream is begun in bz */
	uint8_t *zbuf;			/* compressed output, written per flush */
	size_t zcap;
	uint64_t bytes;			/* bytes written to the file */
	const char *path;		/* for messages: outfile_name() */
};

/* Write to out (the sink owns it from here, also when this fails);
 * compress with bzip2 when asked. */
int sink_open(struct sink *s, struct outfile *out, bool compress, struct error *err);

/* Put the output under its name now (outfile_publish): for formats that
 * are readable while they are written. */
int sink_publish(struct sink *s, struct error *err);

/* Append n bytes.  flush: also push everything out to the file (for
 * bzip2, end the current stream) - one write() per call for plain files. */
int sink_write(struct sink *s, const void *data, size_t n, bool flush, struct error *err);

/* Overwrite bytes already written (plain files only). */
int sink_pwrite(struct sink *s, const void *data, size_t n, uint64_t offset,
		struct error *err);

/* End the stream and close the output (published, unless a write failed
 * before it was: then the target stays as it was); the sink is released
 * in any case. */
int sink_close(struct sink *s, struct error *err);

/* An unlinked temporary file, read-write, in dir (NULL: $TMPDIR, else /tmp);
 * -1 with errno. */
int temp_file_open(const char *dir);

/* A stdio stream writing through a new sink on out (the stream owns out
 * from here; bzip2 when compress).  fclose() ends it as sink_close() does
 * and fails (errno set) when the output is incomplete.  NULL: err set. */
FILE *sink_fopen(struct outfile *out, bool compress, struct error *err);

/* Input that cannot be read twice (stdin, a pipe, a FIFO, a device) is
 * copied, as it is read, to an unlinked temporary file (the spool) until the
 * reader says it needs one pass only; source_rewind then reads the copy. */
struct source {
	int fd;
	bool regular;			/* a regular file: seekable, known size */
	int spool_fd;			/* copy of what was read from fd, or -1 */
	int spool_errno;		/* why there is no spool (0: not needed) */
	bool compressed;
	bz_stream *bz;			/* compressed input: allocated, as it must not move */
	bool bz_active;			/* a bzip2 stream is open in bz */
	bool in_eof;			/* no more compressed input */
	uint8_t *zin;			/* compressed input buffer */
	uint8_t *buf;			/* decoded bytes not yet consumed */
	size_t pos, len;
	uint64_t offset;		/* decoded bytes consumed so far */
	uint64_t file_size;		/* plain files: size at open */
	uint64_t raw_bytes;		/* bytes read from fd (compressed input) */
	uint64_t inflated;		/* bytes bzip2 produced from them */
	char *path;			/* for messages: "stdin" for "-" */
};

/* Decompressed data may be at most this many times the compressed bytes
 * read (once past SOURCE_BOMB_FLOOR): sampler profiles compress 3-200 fold;
 * a bzip2 bomb (4 GiB of zeros in 3 kB) a million fold. */
#define SOURCE_BOMB_RATIO 1000
#define SOURCE_BOMB_FLOOR (64ull * 1024 * 1024)

/* Open path ("-": stdin) for reading; bzip2 is detected by content. */
int source_open(struct source *s, const char *path, struct error *err);

/* Up to n (<= 4096) decoded bytes from the current position into dst,
 * without consuming them: the count (fewer only at the end), or -1. */
long long source_peek(struct source *s, void *dst, size_t n, struct error *err);

/* The reader will not rewind: stop copying input that cannot be re-read. */
void source_single_pass(struct source *s);

/* Copy the rest of the input into the spool and hand the spool over (the
 * caller closes it): the whole input, readable again.  -1 (err set). */
int source_keep_all(struct source *s, struct error *err);

/* Read up to n bytes into dst; fewer only at the end of the data.
 * Returns the count, or -1 (err set) on a read or decompression error. */
long long source_read(struct source *s, void *dst, size_t n, struct error *err);

/* Skip n bytes; returns the count skipped (fewer at the end), or -1. */
long long source_skip(struct source *s, uint64_t n, struct error *err);

/* Bytes that may still come: exact for plain files, UINT64_MAX when the
 * input is compressed (unknown until decompressed). */
uint64_t source_left_bound(const struct source *s);

/* Start again from the first byte (input that cannot be re-read: from the
 * spool, which holds what was read so far). */
int source_rewind(struct source *s, struct error *err);

void source_close(struct source *s);

#endif
