/* idmap.c - 32-bit id -> fixed-size value hash table (see idmap.h). */
#include "idmap.h"

#include <stdlib.h>
#include <string.h>

#define MIN_BITS 4

void idmap_init(struct idmap *m, size_t value_size)
{
	memset(m, 0, sizeof(*m));
	m->value_size = value_size;
}

void idmap_free(struct idmap *m)
{
	free(m->keys);
	free(m->used);
	free(m->values);
	idmap_init(m, m->value_size);
}

/* Fibonacci hashing: the top bits of id times 2^32 / phi, so that ids
 * that differ only in their high bits (pid namespaces, recycled pids)
 * spread over the whole table too. */
static inline size_t home_of(const struct idmap *m, uint32_t id)
{
	return (uint32_t)(id * 2654435761u) >> (32 - m->bits);
}

static inline size_t mask_of(const struct idmap *m)
{
	return ((size_t)1 << m->bits) - 1;
}

static inline void *value_at(const struct idmap *m, size_t slot)
{
	return m->values + slot * m->value_size;
}

/* The slot holding id, or the free slot where it would go. */
static size_t probe(const struct idmap *m, uint32_t id)
{
	size_t i = home_of(m, id), mask = mask_of(m);

	while (m->used[i] && m->keys[i] != id)
		i = (i + 1) & mask;
	return i;
}

void *idmap_find(const struct idmap *m, uint32_t id)
{
	size_t i;

	if (!m->bits)
		return NULL;
	i = probe(m, id);
	return m->used[i] ? value_at(m, i) : NULL;
}

static int grow(struct idmap *m)
{
	struct idmap bigger;
	size_t old_slots = m->bits ? (size_t)1 << m->bits : 0;

	idmap_init(&bigger, m->value_size);
	bigger.bits = m->bits ? m->bits + 1 : MIN_BITS;
	bigger.keys = malloc(((size_t)1 << bigger.bits) * sizeof(*bigger.keys));
	bigger.used = calloc((size_t)1 << bigger.bits, sizeof(*bigger.used));
	bigger.values = malloc(((size_t)1 << bigger.bits) * (m->value_size ? m->value_size : 1));
	if (!bigger.keys || !bigger.used || !bigger.values) {
		idmap_free(&bigger);
		return -1;
	}
	for (size_t s = 0; s < old_slots; s++) {
		size_t to;

		if (!m->used[s])
			continue;
		to = probe(&bigger, m->keys[s]);
		bigger.used[to] = true;
		bigger.keys[to] = m->keys[s];
		memcpy(value_at(&bigger, to), value_at(m, s), m->value_size);
	}
	bigger.count = m->count;
	idmap_free(m);
	*m = bigger;
	return 0;
}

void *idmap_get(struct idmap *m, uint32_t id, bool *created)
{
	void *v = idmap_find(m, id);
	size_t i;

	if (created)
		*created = false;
	if (v)
		return v;
	if ((m->count + 1) * 2 > ((size_t)1 << m->bits) && grow(m) < 0)
		return NULL;
	i = probe(m, id);
	m->used[i] = true;
	m->keys[i] = id;
	m->count++;
	if (created)
		*created = true;
	v = value_at(m, i);
	memset(v, 0, m->value_size);
	return v;
}

bool idmap_remove(struct idmap *m, uint32_t id)
{
	size_t mask, hole, i;

	if (!m->bits)
		return false;
	hole = probe(m, id);
	if (!m->used[hole])
		return false;
	mask = mask_of(m);
	m->used[hole] = false;
	m->count--;
	/* Backward shift: an entry later in the run moves into the hole
	 * unless its home lies cyclically after the hole (then the hole
	 * does not cut it off from its home). */
	for (i = (hole + 1) & mask; m->used[i]; i = (i + 1) & mask) {
		size_t home = home_of(m, m->keys[i]);

		if (((i - home) & mask) < ((i - hole) & mask))
			continue;
		m->used[hole] = true;
		m->keys[hole] = m->keys[i];
		memcpy(value_at(m, hole), value_at(m, i), m->value_size);
		m->used[i] = false;
		hole = i;
	}
	return true;
}

void *idmap_next(const struct idmap *m, size_t *pos, uint32_t *id)
{
	size_t slots = m->bits ? (size_t)1 << m->bits : 0;

	for (; *pos < slots; (*pos)++) {
		if (m->used[*pos]) {
			size_t i = (*pos)++;

			if (id)
				*id = m->keys[i];
			return value_at(m, i);
		}
	}
	return NULL;
}
