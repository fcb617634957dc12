#include "symcache.h"

#include "../common/buildid.h"
#include "../common/fdio.h"
#include "debugfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* File layout (native byte order, this machine only): the header, then
 * nsegments segments, nsymbols symbols sorted as the symbolizer sorts
 * them, then names_size bytes of NUL-terminated names. */
#define SYMCACHE_MAGIC "SMPLSYMC"
#define SYMCACHE_VERSION 2	/* 2: labels, PLT entries, perf's end and alias rules */
#define SYMCACHE_MAX_FILE (1u << 30)	/* larger is not ours: ignore it */

struct cache_header {
	char magic[8];
	uint32_t version;
	uint32_t header_size;
	uint64_t checksum;		/* of the whole file, this field 0 */
	uint32_t build_id_len;
	unsigned char build_id[BUILD_ID_MAX];
	uint64_t size;
	int64_t mtime_ns;
	uint64_t debug_size;
	int64_t debug_mtime_ns;
	uint64_t nsegments;
	uint64_t nsymbols;
	uint64_t names_size;
};

struct cache_symbol {
	uint64_t addr;
	uint64_t end;
	uint32_t name;			/* offset in the names */
	uint8_t bind;
	uint8_t pad[3];
};

_Static_assert(sizeof(struct cache_header) == 104, "cache header has padding");
_Static_assert(sizeof(struct cache_symbol) == 24, "cache symbol has padding");
_Static_assert(sizeof(struct load_segment) == 24, "segment has padding");

/* A 64-bit check of the whole file, eight bytes a step (a byte-wise CRC
 * would cost the warm run a millisecond per 400 KB).  It catches damage;
 * a hostile file with a right checksum is still held by the bounds checks. */
static uint64_t checksum(const void *data, size_t len)
{
	const unsigned char *p = data;
	uint64_t h = 0x9e3779b97f4a7c15ull ^ len, w;

	for (; len >= 8; p += 8, len -= 8) {
		memcpy(&w, p, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	w = 0;
	memcpy(&w, p, len);
	h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
	return h ^ (h >> 29);
}

int symcache_default_dir(char *buf, size_t size)
{
	const char *dir = getenv("SAMPLER_CACHE_DIR");
	int n;

	if (dir) {
		if (!dir[0])
			return -1;
		n = snprintf(buf, size, "%s", dir);
	} else if ((dir = getenv("XDG_CACHE_HOME")) && dir[0] == '/') {
		n = snprintf(buf, size, "%s/sampler/symbols", dir);
	} else if ((dir = getenv("HOME")) && dir[0] == '/') {
		n = snprintf(buf, size, "%s/.cache/sampler/symbols", dir);
	} else {
		return -1;
	}
	return n > 0 && (size_t)n < size ? 0 : -1;
}

static int64_t mtime_ns(const struct stat *st)
{
	return (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
}

int symcache_key(const char *path, struct symcache_key *key)
{
	char debug[PATH_MAX];
	struct stat st;

	memset(key, 0, sizeof(*key));
	key->build_id_len = elf_build_id(path, key->build_id);
	if (!key->build_id_len || stat(path, &st) < 0)
		return -1;
	key->size = st.st_size;
	key->mtime_ns = mtime_ns(&st);
	if (debug_file_find(path, debug, sizeof(debug)) == 0 && stat(debug, &st) == 0 &&
	    S_ISREG(st.st_mode)) {
		key->debug_size = st.st_size;
		key->debug_mtime_ns = mtime_ns(&st);
	}
	return 0;
}

int symcache_path(const char *dir, const struct symcache_key *key, char *buf, size_t size)
{
	int n = snprintf(buf, size, "%s/", dir);

	for (size_t i = 0; i < key->build_id_len && n > 0 && (size_t)n < size; i++)
		n += snprintf(buf + n, size - n, "%02x", key->build_id[i]);
	if (n > 0 && (size_t)n < size)
		n += snprintf(buf + n, size - n, ".sym");
	return n > 0 && (size_t)n < size ? 0 : -1;
}

/* ---- reading: nothing in the file is trusted ---------------------------- */

static bool key_matches(const struct cache_header *h, const struct symcache_key *key)
{
	return h->build_id_len == key->build_id_len &&
	       memcmp(h->build_id, key->build_id, key->build_id_len) == 0 &&
	       h->size == key->size && h->mtime_ns == key->mtime_ns &&
	       h->debug_size == key->debug_size && h->debug_mtime_ns == key->debug_mtime_ns;
}

/* The header, if the file is intact and made for key: sizes add up to the
 * file's and the checksum matches. */
static const struct cache_header *check_header(char *buf, size_t len,
					       const struct symcache_key *key)
{
	struct cache_header *h = (struct cache_header *)buf;
	uint64_t sum;

	if (len < sizeof(*h) || memcmp(h->magic, SYMCACHE_MAGIC, 8) != 0 ||
	    h->version != SYMCACHE_VERSION || h->header_size != sizeof(*h) ||
	    !key_matches(h, key))
		return NULL;
	/* Each bound alone keeps the sum below from overflowing. */
	if (h->nsegments > len / sizeof(struct load_segment) ||
	    h->nsymbols > len / sizeof(struct cache_symbol) || h->names_size > len)
		return NULL;
	if (sizeof(*h) + h->nsegments * sizeof(struct load_segment) +
	    h->nsymbols * sizeof(struct cache_symbol) + h->names_size != len)
		return NULL;
	sum = h->checksum;
	h->checksum = 0;
	if (checksum(buf, len) != sum)
		return NULL;
	h->checksum = sum;
	return h;
}

/* Symbols point inside the names and come in the symbolizer's order. */
static bool symbols_valid(const struct cache_symbol *cs, size_t n, const char *names,
			  uint64_t names_size)
{
	if (n && (names_size == 0 || names[names_size - 1] != '\0'))
		return false;
	for (size_t i = 0; i < n; i++) {
		if (cs[i].name >= names_size || (i && cs[i].addr < cs[i - 1].addr))
			return false;
	}
	return true;
}

/* The names stay where they were read: buf becomes the table's names
 * (freed with it) and is consumed on success. */
static int decode(char *buf, const struct cache_header *h, struct symbol_table *t)
{
	const char *segs = buf + sizeof(*h);
	const char *syms = segs + h->nsegments * sizeof(struct load_segment);
	const char *names = syms + h->nsymbols * sizeof(struct cache_symbol);
	const struct cache_symbol *cs = (const struct cache_symbol *)syms;
	struct symbol_table out = { 0 };

	if (!symbols_valid(cs, h->nsymbols, names, h->names_size))
		return -1;
	out.segments = calloc(h->nsegments + 1, sizeof(*out.segments));
	out.symbols = calloc(h->nsymbols + 1, sizeof(*out.symbols));
	if (!out.segments || !out.symbols) {
		free(out.segments);
		free(out.symbols);
		return -1;
	}
	out.nsegments = h->nsegments;
	memcpy(out.segments, segs, h->nsegments * sizeof(struct load_segment));
	out.names = buf;
	out.nsymbols = h->nsymbols;
	for (size_t i = 0; i < out.nsymbols; i++) {
		out.symbols[i].addr = cs[i].addr;
		out.symbols[i].end = cs[i].end;
		out.symbols[i].name = names + cs[i].name;
		out.symbols[i].bind = cs[i].bind;
	}
	*t = out;
	return 0;
}

int symcache_load(const char *dir, const struct symcache_key *key, struct symbol_table *t)
{
	const struct cache_header *h;
	char path[PATH_MAX];
	struct stat st;
	char *buf = NULL;
	int fd, ret = -1;

	if (symcache_path(dir, key, path, sizeof(path)) < 0)
		return -1;
	fd = open_typed(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW, S_IFREG);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || st.st_size < (off_t)sizeof(*h) || st.st_size > SYMCACHE_MAX_FILE)
		goto out;
	/* 8-byte aligned, for the header and records read in place */
	buf = aligned_alloc(8, (st.st_size + 7) & ~(off_t)7);
	if (!buf || read_all(fd, buf, st.st_size) < 0)
		goto out;
	h = check_header(buf, st.st_size, key);
	if (h)
		ret = decode(buf, h, t);
	if (ret == 0)
		buf = NULL;		/* the table's names now */
out:
	free(buf);
	close(fd);
	return ret;
}

/* ---- writing ------------------------------------------------------------ */

/* mkdir -p, directories as umask says. */
static int make_dirs(const char *dir)
{
	char path[PATH_MAX];
	int n = snprintf(path, sizeof(path), "%s", dir);

	if (n <= 0 || (size_t)n >= sizeof(path))
		return -1;
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0777) < 0 && errno != EEXIST)
			return -1;
		*p = '/';
	}
	return mkdir(path, 0777) < 0 && errno != EEXIST ? -1 : 0;
}

/* The whole file in memory: header, records and the names rebuilt from
 * the symbols (so only what the symbols use is kept). */
static char *encode(const struct symcache_key *key, const struct symbol_table *t, size_t *len)
{
	struct cache_header h = { .version = SYMCACHE_VERSION, .header_size = sizeof(h) };
	size_t names_size = 0, off;
	struct cache_symbol *cs;
	char *buf, *names;

	for (size_t i = 0; i < t->nsymbols; i++)
		names_size += strlen(t->symbols[i].name) + 1;
	if (names_size > UINT32_MAX)
		return NULL;
	memcpy(h.magic, SYMCACHE_MAGIC, 8);
	h.build_id_len = key->build_id_len;
	memcpy(h.build_id, key->build_id, key->build_id_len);
	h.size = key->size;
	h.mtime_ns = key->mtime_ns;
	h.debug_size = key->debug_size;
	h.debug_mtime_ns = key->debug_mtime_ns;
	h.nsegments = t->nsegments;
	h.nsymbols = t->nsymbols;
	h.names_size = names_size;
	*len = sizeof(h) + t->nsegments * sizeof(struct load_segment) +
	       t->nsymbols * sizeof(*cs) + names_size;
	if (*len > SYMCACHE_MAX_FILE)		/* would never be read back */
		return NULL;
	buf = calloc(1, *len);
	if (!buf)
		return NULL;
	memcpy(buf, &h, sizeof(h));
	memcpy(buf + sizeof(h), t->segments, t->nsegments * sizeof(struct load_segment));
	cs = (struct cache_symbol *)(buf + sizeof(h) + t->nsegments * sizeof(struct load_segment));
	names = (char *)(cs + t->nsymbols);
	off = 0;
	for (size_t i = 0; i < t->nsymbols; i++) {
		size_t n = strlen(t->symbols[i].name) + 1;

		cs[i].addr = t->symbols[i].addr;
		cs[i].end = t->symbols[i].end;
		cs[i].bind = t->symbols[i].bind;
		cs[i].name = off;
		memcpy(names + off, t->symbols[i].name, n);
		off += n;
	}
	h.checksum = checksum(buf, *len);
	memcpy(buf + offsetof(struct cache_header, checksum), &h.checksum, sizeof(h.checksum));
	return buf;
}

/* Readers see the old entry or the new one, never half of one: write a
 * temporary file (a name no other writer uses) and rename it over. */
void symcache_store(const char *dir, const struct symcache_key *key,
		    const struct symbol_table *t)
{
	char path[PATH_MAX], tmp[PATH_MAX + 64];
	struct timespec now;
	size_t len;
	char *buf;
	int fd, n, ok;

	if (symcache_path(dir, key, path, sizeof(path)) < 0 || make_dirs(dir) < 0)
		return;
	clock_gettime(CLOCK_REALTIME, &now);
	n = snprintf(tmp, sizeof(tmp), "%s.%ld.%ld%09ld.tmp", path, (long)getpid(),
		     (long)now.tv_sec, (long)now.tv_nsec);
	if (n <= 0 || (size_t)n >= sizeof(tmp))
		return;
	buf = encode(key, t, &len);
	if (!buf)
		return;
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0666);
	if (fd < 0) {
		free(buf);
		return;
	}
	ok = write_all(fd, buf, len) == 0;
	ok = (close(fd) == 0) && ok;
	if (!ok || rename(tmp, path) < 0)
		unlink(tmp);
	free(buf);
}
