/* idmap.h - a hash table from a 32-bit id (pid, tid) to a fixed-size value.
 *
 * The exporters keep one small entry per process or thread they have seen;
 * their number grows with the threads of the run, never with its samples.
 */
#ifndef SAMPLER_EXPORT_IDMAP_H
#define SAMPLER_EXPORT_IDMAP_H

#include <stddef.h>
#include <stdint.h>

struct idmap {
	size_t value_size;
	size_t cap;			/* slots, a power of two (0: empty) */
	size_t used;
	uint32_t *keys;
	unsigned char *used_slot;
	unsigned char *values;
};

void idmap_init(struct idmap *m, size_t value_size);
void idmap_free(struct idmap *m);

/* The value for id, or NULL. */
void *idmap_find(const struct idmap *m, uint32_t id);

/* The value for id, zero-filled when new (*created set); NULL when out of memory. */
void *idmap_get(struct idmap *m, uint32_t id, int *created);

/* Iterate: start with *pos = 0; returns the next value or NULL at the end. */
void *idmap_next(const struct idmap *m, size_t *pos, uint32_t *id);

#endif
