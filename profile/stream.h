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

#include "../common/error.h"

struct sink {
	int fd;
	bool compress;
	bz_stream bz;
	bool stream_open;		/* a bzip2 stream is begun in bz */
	uint8_t *zbuf;			/* compressed output, written per flush */
	size_t zcap;
	uint64_t bytes;			/* bytes written to the file */
	char *path;
};

/* Create (truncate) path; compress with bzip2 when asked. */
int sink_open(struct sink *s, const char *path, bool compress, struct error *err);

/* Append n bytes.  flush: also push everything out to the file (for
 * bzip2, end the current stream) - one write() per call for plain files. */
int sink_write(struct sink *s, const void *data, size_t n, bool flush, struct error *err);

/* Overwrite bytes already written (plain files only). */
int sink_pwrite(struct sink *s, const void *data, size_t n, uint64_t offset,
		struct error *err);

/* End the stream and close the file; the sink is released in any case. */
int sink_close(struct sink *s, struct error *err);


struct source {
	int fd;
	bool compressed;
	bz_stream bz;
	bool bz_active;			/* a bzip2 stream is open in bz */
	bool in_eof;			/* no more compressed input */
	uint8_t *zin;			/* compressed input buffer */
	uint8_t *buf;			/* decoded bytes not yet consumed */
	size_t pos, len;
	uint64_t offset;		/* decoded bytes consumed so far */
	uint64_t file_size;		/* plain files: size at open */
	char *path;
};

/* Open path for reading; bzip2 is detected by content. */
int source_open(struct source *s, const char *path, struct error *err);

/* Read up to n bytes into dst; fewer only at the end of the data.
 * Returns the count, or -1 (err set) on a read or decompression error. */
long long source_read(struct source *s, void *dst, size_t n, struct error *err);

/* Skip n bytes; returns the count skipped (fewer at the end), or -1. */
long long source_skip(struct source *s, uint64_t n, struct error *err);

/* Bytes that may still come: exact for plain files, UINT64_MAX when the
 * input is compressed (unknown until decompressed). */
uint64_t source_left_bound(const struct source *s);

/* Start again from the first byte. */
int source_rewind(struct source *s, struct error *err);

void source_close(struct source *s);

#endif
