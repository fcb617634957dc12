/* stream.c - plain or bzip2 byte streams under the profile formats. */
#include "stream.h"
#include "../common/fdio.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define ZBUF_SIZE (256 * 1024)
#define SOURCE_BUF_SIZE (64 * 1024)

static int sink_fail(struct sink *s, struct error *err)
{
	s->failed = true;
	s->error = errno;
	return outfile_write_error(s->out, errno, err);
}

int sink_open(struct sink *s, struct outfile *out, bool compress, struct error *err)
{
	memset(s, 0, sizeof(*s));
	s->out = out;
	s->fd = outfile_fd(out);
	s->path = outfile_name(out);
	if (compress && !(s->zbuf = malloc(ZBUF_SIZE))) {
		error_set(err, "cannot create %s: out of memory", s->path);
		outfile_abandon(out);
		memset(s, 0, sizeof(*s));
		s->fd = -1;
		return -1;
	}
	s->zcap = ZBUF_SIZE;
	s->compress = compress;
	return 0;
}

int sink_publish(struct sink *s, struct error *err)
{
	return outfile_publish(s->out, err);
}

/* Write out the compressed bytes bzip2 has produced so far. */
static int sink_drain(struct sink *s, struct error *err)
{
	size_t n = s->zcap - s->bz.avail_out;

	if (n && write_all(s->fd, s->zbuf, n) < 0)
		return sink_fail(s, err);
	s->bytes += n;
	s->bz.next_out = (char *)s->zbuf;
	s->bz.avail_out = (unsigned)s->zcap;
	return 0;
}

/* Run bzip2 with action until it says it is done (done_code). */
static int sink_compress(struct sink *s, int action, int done_code, struct error *err)
{
	for (;;) {
		int ret;

		if (s->bz.avail_out == 0 && sink_drain(s, err) < 0)
			return -1;
		ret = BZ2_bzCompress(&s->bz, action);
		if (ret < 0) {
			s->failed = true;
			return error_set(err, "cannot write %s: bzip2 compression failed (code %d)",
					 s->path, ret);
		}
		if (ret == done_code && (action != BZ_RUN || s->bz.avail_in == 0))
			return 0;
	}
}

/* Begin a bzip2 stream.  Blocks of 100 kB: a stream rarely holds more than
 * one 64 KiB chunk, and the compressor then needs ~1 MB, not ~8. */
static int stream_begin(struct sink *s, struct error *err)
{
	memset(&s->bz, 0, sizeof(s->bz));
	if (BZ2_bzCompressInit(&s->bz, 1, 0, 0) != BZ_OK)
		return error_set(err, "cannot write %s: bzip2 initialisation failed (out of memory?)",
				 s->path);
	s->bz.next_out = (char *)s->zbuf;
	s->bz.avail_out = (unsigned)s->zcap;
	s->stream_open = true;
	return 0;
}

/* End the stream and write all of it out.  A bzip2 block flushed inside a
 * stream (BZ_FLUSH) keeps its last bits in the compressor until the next
 * block, so a cut file would lose it: ending the stream writes them. */
static int stream_end(struct sink *s, struct error *err)
{
	int ret;

	s->bz.avail_in = 0;
	ret = sink_compress(s, BZ_FINISH, BZ_STREAM_END, err);
	if (ret == 0)
		ret = sink_drain(s, err);
	BZ2_bzCompressEnd(&s->bz);
	s->stream_open = false;
	return ret;
}

int sink_write(struct sink *s, const void *data, size_t n, bool flush, struct error *err)
{
	if (!s->compress) {
		if (write_all(s->fd, data, n) < 0)
			return sink_fail(s, err);
		s->bytes += n;
		return 0;
	}
	if (!s->stream_open && stream_begin(s, err) < 0)
		return -1;
	while (n) {
		unsigned part = n > (1u << 30) ? 1u << 30 : (unsigned)n;

		s->bz.next_in = (char *)data;
		s->bz.avail_in = part;
		if (sink_compress(s, BZ_RUN, BZ_RUN_OK, err) < 0)
			return -1;
		data = (const uint8_t *)data + part;
		n -= part;
	}
	return flush ? stream_end(s, err) : 0;
}

int sink_pwrite(struct sink *s, const void *data, size_t n, uint64_t offset,
		struct error *err)
{
	const uint8_t *p = data;

	while (n) {
		ssize_t done = pwrite(s->fd, p, n, (off_t)offset);

		if (done < 0 && errno == EINTR)
			continue;
		if (done <= 0)
			return sink_fail(s, err);
		p += done;
		n -= (size_t)done;
		offset += (uint64_t)done;
	}
	return 0;
}

int sink_close(struct sink *s, struct error *err)
{
	int ret = 0;

	if (!s->out)
		return 0;
	/* an empty compressed file is still one (empty) bzip2 stream */
	if (!s->failed && s->compress && !s->stream_open && !s->bytes &&
	    stream_begin(s, err) < 0)
		ret = -1;
	if (s->stream_open && s->failed) {
		BZ2_bzCompressEnd(&s->bz);	/* nothing more is written */
		s->stream_open = false;
	}
	if (s->stream_open && stream_end(s, ret < 0 ? NULL : err) < 0)
		ret = -1;
	if (s->failed)
		outfile_abandon(s->out);
	else if (outfile_close(s->out, ret < 0 ? NULL : err) < 0)
		ret = -1;
	s->out = NULL;
	s->fd = -1;
	free(s->zbuf);
	s->zbuf = NULL;
	return ret;
}

int temp_file_open(const char *dir)
{
	char templ[4096];
	int fd;

	if (!dir) {
		dir = getenv("TMPDIR");
		if (!dir || !*dir)
			dir = "/tmp";
	}
	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR))
		return fd;
	/* a file system without O_TMPFILE */
	if ((size_t)snprintf(templ, sizeof(templ), "%s/sampler.XXXXXX", dir) >= sizeof(templ)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	fd = mkostemp(templ, O_CLOEXEC);
	if (fd >= 0)
		unlink(templ);
	return fd;
}

/* ---- stdio over a sink (text outputs: CSV, summaries) -------------------- */

static ssize_t sink_cookie_write(void *cookie, const char *buf, size_t n)
{
	struct sink *s = cookie;
	struct error err;

	if (s->failed) {	/* again: the first failure's cause */
		errno = s->error ? s->error : EIO;
		return -1;
	}
	if (sink_write(s, buf, n, false, &err) < 0)
		return -1;	/* errno from the failed write */
	return (ssize_t)n;
}

static int sink_cookie_close(void *cookie)
{
	struct sink *s = cookie;
	int saved, ret;

	saved = errno;
	ret = sink_close(s, NULL);
	if (ret == 0)
		errno = saved;
	else if (!errno)
		errno = EIO;
	free(s);
	return ret;
}

FILE *sink_fopen(struct outfile *out, bool compress, struct error *err)
{
	static const cookie_io_functions_t io = {
		.write = sink_cookie_write,
		.close = sink_cookie_close,
	};
	struct sink *s = malloc(sizeof(*s));
	FILE *f;

	if (!s) {
		error_set(err, "cannot create %s: out of memory", outfile_name(out));
		outfile_abandon(out);
		return NULL;
	}
	if (sink_open(s, out, compress, err) < 0) {
		free(s);
		return NULL;
	}
	f = fopencookie(s, "w", io);
	if (!f) {
		error_set(err, "cannot create %s: out of memory", s->path);
		s->failed = true;
		sink_close(s, NULL);
		free(s);
	}
	return f;
}

/* ---- reading ---------------------------------------------------------- */

static int source_fail(struct source *s, struct error *err)
{
	return error_set(err, "cannot read %s: %s", s->path, strerror(errno));
}

static long long read_some(int fd, void *dst, size_t n)
{
	for (;;) {
		ssize_t got = read(fd, dst, n);

		if (got >= 0 || errno != EINTR)
			return got;
	}
}

/* Read from the input; keep a copy in the spool while there is one.  A
 * spool that fails is dropped: only a rewind needs it, and says so. */
static long long read_input(struct source *s, void *dst, size_t n)
{
	long long got = read_some(s->fd, dst, n);

	if (got > 0 && s->spool_fd >= 0 && write_all(s->spool_fd, dst, (size_t)got) < 0) {
		s->spool_errno = errno;
		close(s->spool_fd);
		s->spool_fd = -1;
	}
	return got;
}

/* Read compressed input into zin when bzip2 has used it all. */
static int source_refill_input(struct source *s, struct error *err)
{
	long long got;

	if (s->bz->avail_in || s->in_eof)
		return 0;
	got = read_input(s, s->zin, SOURCE_BUF_SIZE);
	if (got < 0)
		return source_fail(s, err);
	if (got == 0)
		s->in_eof = true;
	s->raw_bytes += (uint64_t)got;
	s->bz->next_in = (char *)s->zin;
	s->bz->avail_in = (unsigned)got;
	return 0;
}

/* A bzip2 bomb: far more data than any profile compresses to. */
static int check_ratio(struct source *s, struct error *err)
{
	if (s->inflated <= SOURCE_BOMB_FLOOR || s->inflated / SOURCE_BOMB_RATIO <= s->raw_bytes)
		return 0;
	return error_set(err, "%s: the bzip2 data expands more than %d-fold (%llu MiB from %llu kB): a decompression bomb, not a profile (sampler profiles compress far less; check where the file came from)",
			 s->path, SOURCE_BOMB_RATIO, (unsigned long long)(s->inflated >> 20),
			 (unsigned long long)(s->raw_bytes / 1000));
}

/* Decompress up to cap bytes into dst: the count, 0 at the end, -1. */
static long long source_inflate(struct source *s, uint8_t *dst, size_t cap, struct error *err)
{
	for (;;) {
		size_t produced;
		int ret;

		if (source_refill_input(s, err) < 0)
			return -1;
		if (!s->bz->avail_in && s->in_eof)
			return 0;	/* end of file, maybe inside a stream */
		if (!s->bz_active) {	/* a (further) concatenated stream */
			char *next_in = s->bz->next_in;
			unsigned avail_in = s->bz->avail_in;

			if (BZ2_bzDecompressInit(s->bz, 0, 0) != BZ_OK)
				return error_set(err, "cannot read %s: bzip2 initialisation failed",
						 s->path);
			s->bz->next_in = next_in;
			s->bz->avail_in = avail_in;
			s->bz_active = true;
		}
		s->bz->next_out = (char *)dst;
		s->bz->avail_out = (unsigned)cap;
		ret = BZ2_bzDecompress(s->bz);
		produced = cap - s->bz->avail_out;
		if (ret == BZ_STREAM_END) {
			BZ2_bzDecompressEnd(s->bz);
			s->bz_active = false;
		} else if (ret != BZ_OK) {
			return error_set(err, "%s: corrupt bzip2 data (code %d) after byte offset %llu of the decompressed data (the file is damaged; records before that offset are good, bzip2recover may save more)",
					 s->path, ret, (unsigned long long)(s->offset + s->len - s->pos));
		}
		s->inflated += produced;
		if (check_ratio(s, err) < 0)
			return -1;
		if (produced)
			return (long long)produced;
	}
}

/* Append decoded bytes to buf after len: the count, 0 at the end, -1. */
static long long source_more(struct source *s, struct error *err)
{
	long long got;

	if (s->compressed)
		return source_inflate(s, s->buf + s->len, SOURCE_BUF_SIZE - s->len, err);
	got = read_input(s, s->buf + s->len, SOURCE_BUF_SIZE - s->len);
	if (got < 0)
		return source_fail(s, err);
	return got;
}

/* Refill the decoded buffer: bytes now available, 0 at the end, -1. */
static long long source_fill(struct source *s, struct error *err)
{
	long long got;

	s->pos = s->len = 0;
	got = source_more(s, err);
	if (got > 0)
		s->len = (size_t)got;
	return got;
}

/* stdin, with an offset of its own when it is a regular file (so that two
 * readers of "-" do not move each other), else the pipe or device itself. */
static int open_stdin(void)
{
	struct stat st;
	int fd;

	if (fstat(STDIN_FILENO, &st) == 0 && S_ISREG(st.st_mode)) {
		fd = open("/proc/self/fd/0", O_RDONLY | O_CLOEXEC);
		if (fd >= 0)
			return fd;
	}
	return fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 3);
}

int source_open(struct source *s, const char *path, struct error *err)
{
	bool is_stdin = strcmp(path, "-") == 0;
	struct stat st;
	long long got;

	memset(s, 0, sizeof(*s));
	s->spool_fd = -1;
	s->path = strdup(is_stdin ? "stdin" : path);
	s->buf = malloc(SOURCE_BUF_SIZE);
	s->zin = malloc(SOURCE_BUF_SIZE);
	if (!s->path || !s->buf || !s->zin) {
		error_set(err, "cannot read %s: out of memory", path);
		goto out_free;
	}
	s->fd = is_stdin ? open_stdin() : open(path, O_RDONLY | O_CLOEXEC);
	if (s->fd < 0) {
		error_set(err, "cannot open %s: %s", s->path, strerror(errno));
		goto out_free;
	}
	s->file_size = UINT64_MAX;
	s->regular = fstat(s->fd, &st) == 0 && S_ISREG(st.st_mode);
	if (s->regular)
		s->file_size = (uint64_t)st.st_size;
	else if ((s->spool_fd = temp_file_open(NULL)) < 0)
		s->spool_errno = errno;
	got = read_input(s, s->zin, SOURCE_BUF_SIZE);
	if (got < 0) {
		source_fail(s, err);
		goto out_close;
	}
	if (got >= 4 && memcmp(s->zin, "BZh", 3) == 0 && s->zin[3] >= '1' && s->zin[3] <= '9') {
		/* on the heap: bzip2 keeps a pointer to it, and the readers
		 * move struct source into their own */
		s->bz = calloc(1, sizeof(*s->bz));
		if (!s->bz) {
			error_set(err, "cannot read %s: out of memory", s->path);
			goto out_close;
		}
		s->compressed = true;
		s->raw_bytes = (uint64_t)got;
		s->bz->next_in = (char *)s->zin;
		s->bz->avail_in = (unsigned)got;
		return 0;
	}
	memcpy(s->buf, s->zin, (size_t)got);
	s->len = (size_t)got;
	return 0;

out_close:
	close(s->fd);
out_free:
	if (s->spool_fd >= 0)
		close(s->spool_fd);
	free(s->path);
	free(s->buf);
	free(s->zin);
	memset(s, 0, sizeof(*s));
	s->fd = s->spool_fd = -1;
	return -1;
}

long long source_peek(struct source *s, void *dst, size_t n, struct error *err)
{
	if (n > 4096)
		n = 4096;
	if (s->len - s->pos < n && s->pos) {	/* room after what is left */
		memmove(s->buf, s->buf + s->pos, s->len - s->pos);
		s->len -= s->pos;
		s->pos = 0;
	}
	while (s->len - s->pos < n) {
		long long got = source_more(s, err);

		if (got < 0)
			return -1;
		if (got == 0)
			break;
		s->len += (size_t)got;
	}
	if (n > s->len - s->pos)
		n = s->len - s->pos;
	memcpy(dst, s->buf + s->pos, n);
	return (long long)n;
}

void source_single_pass(struct source *s)
{
	if (s->spool_fd >= 0)
		close(s->spool_fd);
	s->spool_fd = -1;
	s->spool_errno = 0;
}

static int no_spool(struct source *s, struct error *err)
{
	errno = s->spool_errno ? s->spool_errno : ESPIPE;
	return error_set(err, "cannot read %s a second time: no temporary copy of it (%s; set TMPDIR to a directory with room, or save the profile to a file first)",
			 s->path, strerror(errno));
}

int source_keep_all(struct source *s, struct error *err)
{
	int fd;

	for (;;) {
		long long got = read_input(s, s->zin, SOURCE_BUF_SIZE);

		if (got < 0)
			return source_fail(s, err);
		if (got == 0)
			break;
	}
	if (s->spool_fd < 0)
		return no_spool(s, err);
	fd = s->spool_fd;
	s->spool_fd = -1;
	return fd;
}

long long source_read(struct source *s, void *dst, size_t n, struct error *err)
{
	uint8_t *out = dst;
	size_t done = 0;

	while (done < n) {
		size_t part;

		if (s->pos == s->len) {
			long long got;

			if (!s->compressed && n - done >= SOURCE_BUF_SIZE) {
				/* large plain reads skip the copy */
				got = read_input(s, out + done, n - done);
				if (got < 0)
					return source_fail(s, err);
				if (got == 0)
					break;
				done += (size_t)got;
				s->offset += (uint64_t)got;
				continue;
			}
			got = source_fill(s, err);
			if (got < 0)
				return -1;
			if (got == 0)
				break;
		}
		part = s->len - s->pos;
		if (part > n - done)
			part = n - done;
		memcpy(out + done, s->buf + s->pos, part);
		s->pos += part;
		s->offset += part;
		done += part;
	}
	return (long long)done;
}

long long source_skip(struct source *s, uint64_t n, struct error *err)
{
	uint64_t done = 0;

	while (done < n) {
		size_t part;

		if (s->pos == s->len) {
			long long got = source_fill(s, err);

			if (got < 0)
				return -1;
			if (got == 0)
				break;
		}
		part = s->len - s->pos;
		if (part > n - done)
			part = (size_t)(n - done);
		s->pos += part;
		s->offset += part;
		done += part;
	}
	return (long long)done;
}

uint64_t source_left_bound(const struct source *s)
{
	if (s->compressed || s->file_size == UINT64_MAX)
		return UINT64_MAX;
	return s->file_size > s->offset ? s->file_size - s->offset : 0;
}

/* Input that cannot be re-read continues from its spool, which holds every
 * byte read so far: all a second pass over the same bytes needs. */
static int switch_to_spool(struct source *s, struct error *err)
{
	if (s->spool_fd < 0)
		return no_spool(s, err);
	close(s->fd);
	s->fd = s->spool_fd;
	s->spool_fd = -1;
	s->regular = true;
	s->file_size = UINT64_MAX;	/* size unknown: the input may go on */
	return 0;
}

int source_rewind(struct source *s, struct error *err)
{
	if (!s->regular && switch_to_spool(s, err) < 0)
		return -1;
	if (lseek(s->fd, 0, SEEK_SET) < 0)
		return source_fail(s, err);
	if (s->bz_active)
		BZ2_bzDecompressEnd(s->bz);
	s->bz_active = false;
	if (s->bz)
		s->bz->avail_in = 0;
	s->in_eof = false;
	s->pos = s->len = 0;
	s->offset = 0;
	s->raw_bytes = s->inflated = 0;
	return 0;
}

void source_close(struct source *s)
{
	if (s->bz_active)
		BZ2_bzDecompressEnd(s->bz);
	if (s->fd >= 0)
		close(s->fd);
	if (s->spool_fd >= 0)
		close(s->spool_fd);
	free(s->bz);
	free(s->path);
	free(s->buf);
	free(s->zin);
	memset(s, 0, sizeof(*s));
	s->fd = s->spool_fd = -1;
}
