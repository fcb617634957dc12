/* idmap.h - the one hash table keyed by a 32-bit id (a pid or tid).
 *
 * Every part that keeps something per thread or per process uses it: the
 * recorder's table of tasks, the perf plug-in's counter descriptors, the
 * profile coder's per-thread state and the exporter's processes.  Values
 * are of one fixed size, stored in the table (no allocation per entry).
 *
 * Open addressing with linear probing on a Fibonacci hash; removal shifts
 * the later entries of a probe run back (no tombstones), so a table that
 * sees millions of ids come and go stays as large as its most live ids.
 * At most half the slots are used.
 *
 * A value pointer is valid until the next idmap_get or idmap_remove on the
 * same table (either may move values).
 */
#ifndef SAMPLER_COMMON_IDMAP_H
#define SAMPLER_COMMON_IDMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hash.h"

struct idmap {
	size_t value_size;
	unsigned bits;			/* log2 of the slot count (0: no slots yet) */
	size_t count;			/* ids in the table */
	uint32_t *keys;
	bool *used;
	unsigned char *values;		/* value_size bytes per slot */
};

void idmap_init(struct idmap *m, size_t value_size);
void idmap_free(struct idmap *m);

static inline size_t idmap_count(const struct idmap *m)
{
	return m->count;
}

/* The value for id, or NULL. */
void *idmap_find(const struct idmap *m, uint32_t id);

/* The value for id, zero-filled when new (then *created is set, if given);
 * NULL when out of memory. */
void *idmap_get(struct idmap *m, uint32_t id, bool *created);

/* Forget id (nothing when absent).  Returns whether it was there. */
bool idmap_remove(struct idmap *m, uint32_t id);

/* A key for a string (hash.h): a table of chains of things by name, each
 * chain compared by the name itself (two names may have one key). */
static inline uint32_t idmap_key_of_string(const char *s)
{
	uint64_t h = hash_string(HASH_SEED, s);

	return (uint32_t)(h ^ (h >> 32));
}

/* Iterate in no particular order: start with *pos = 0; returns the next
 * value (its id in *id, if given) or NULL at the end.  The table must not
 * change during the iteration. */
void *idmap_next(const struct idmap *m, size_t *pos, uint32_t *id);

#endif
