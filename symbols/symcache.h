/* symcache.h - a persistent cache of the symbolizer's per-DSO tables.
 *
 * Reading a DSO's function symbols (for libc: the .symtab of its separate
 * debug file, tens of thousands of entries) and sorting them is most of
 * the start-up cost of a symbolized export.  The result only depends on
 * the file's content, so it is kept on disk, one file per GNU build-id,
 * and read back by later exports and reports.
 *
 * The cache is only an accelerator: an entry is used when it is intact
 * (every count and offset checked against the file's size, a checksum of the
 * whole file, symbols in order) and was made from the same file (build-id,
 * size and mtime of the DSO and of its debug file (debugfile.h), since strip
 * keeps the build-id); anything else is ignored and rewritten.  Failing to
 * read or write the cache is never an error.  See docs/EXPORT.md.
 */
#ifndef SAMPLER_EXPORT_SYMCACHE_H
#define SAMPLER_EXPORT_SYMCACHE_H

#include <stddef.h>
#include <stdint.h>

#include "../common/buildid.h"
#include "symtab.h"

/* Which file a table was made from. */
struct symcache_key {
	unsigned char build_id[BUILD_ID_MAX];
	size_t build_id_len;
	uint64_t size;
	int64_t mtime_ns;
	uint64_t debug_size;		/* 0, 0: no debug file */
	int64_t debug_mtime_ns;
};

/* The cache directory: $SAMPLER_CACHE_DIR, else $XDG_CACHE_HOME/sampler/
 * symbols, else $HOME/.cache/sampler/symbols.  -1 when the cache is off:
 * SAMPLER_CACHE_DIR set but empty, or no usable home. */
int symcache_default_dir(char *buf, size_t size);

/* The key of the ELF file at path; -1 when it has no build-id (not cached). */
int symcache_key(const char *path, struct symcache_key *key);

/* Fill t (arrays the caller frees) from the cache entry of key in dir; -1
 * (t untouched) when there is none, or it is damaged, foreign or stale. */
int symcache_load(const char *dir, const struct symcache_key *key, struct symbol_table *t);

/* Write t as the entry of key in dir, atomically; failures are ignored. */
void symcache_store(const char *dir, const struct symcache_key *key,
		    const struct symbol_table *t);

/* The cache file of key in dir ("<dir>/<build-id hex>.sym"); -1 if too long. */
int symcache_path(const char *dir, const struct symcache_key *key, char *buf, size_t size);

#endif
