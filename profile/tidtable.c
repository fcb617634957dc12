/* tidtable.c - tid -> per-thread state hash table (see tidtable.h). */
#include "tidtable.h"

#include <stdlib.h>
#include <string.h>

#define MIN_BITS 4

void tid_table_init(struct tid_table *t, uint32_t ncounters, size_t max)
{
	memset(t, 0, sizeof(*t));
	t->ncounters = ncounters;
	t->max = max;
}

void tid_table_free(struct tid_table *t)
{
	free(t->entries);
	free(t->pool);
	free(t->free_slots);
	tid_table_init(t, t->ncounters, t->max);
}

static inline size_t tid_hash(uint32_t tid, unsigned bits)
{
	return (uint32_t)(tid * 2654435761u) >> (32 - bits);
}

static struct tid_state *probe(const struct tid_table *t, uint32_t tid)
{
	size_t mask = ((size_t)1 << t->bits) - 1;
	size_t i = tid_hash(tid, t->bits);

	while (t->entries[i].used && t->entries[i].tid != tid)
		i = (i + 1) & mask;
	return &t->entries[i];
}

static int grow(struct tid_table *t)
{
	unsigned bits = t->bits ? t->bits + 1 : MIN_BITS;
	struct tid_state *old = t->entries;
	size_t old_size = t->bits ? (size_t)1 << t->bits : 0;
	struct tid_state *entries = calloc((size_t)1 << bits, sizeof(*entries));

	if (!entries)
		return -1;
	t->entries = entries;
	t->bits = bits;
	for (size_t i = 0; i < old_size; i++)
		if (old[i].used)
			*probe(t, old[i].tid) = old[i];
	free(old);
	return 0;
}

/* A slot of ncounters values for a new thread. */
static int take_slot(struct tid_table *t, uint32_t *slot)
{
	if (t->nfree) {
		*slot = t->free_slots[--t->nfree];
	} else {
		if (t->nslots == t->pool_cap && t->ncounters) {
			size_t cap = t->pool_cap ? t->pool_cap * 2 : 16;
			uint64_t *pool = realloc(t->pool, cap * t->ncounters * sizeof(*pool));

			if (!pool)
				return -1;
			t->pool = pool;
			t->pool_cap = cap;
		}
		*slot = (uint32_t)t->nslots++;
	}
	if (t->ncounters)
		memset(t->pool + (size_t)*slot * t->ncounters, 0,
		       t->ncounters * sizeof(uint64_t));
	return 0;
}

struct tid_state *tid_table_get(struct tid_table *t, uint32_t tid, bool *created)
{
	struct tid_state *s;
	uint32_t slot;

	*created = false;
	if (t->bits) {
		s = probe(t, tid);
		if (s->used)
			return s;
	}
	if (t->count >= t->max)
		return NULL;
	if ((t->count + 1) * 2 > ((size_t)1 << t->bits) && grow(t) < 0)
		return NULL;
	if (take_slot(t, &slot) < 0)
		return NULL;
	s = probe(t, tid);
	*s = (struct tid_state){ .tid = tid, .pid = tid, .used = 1, .slot = slot };
	t->count++;
	*created = true;
	return s;
}

struct tid_state *tid_table_find(const struct tid_table *t, uint32_t tid)
{
	struct tid_state *s;

	if (!t->bits)
		return NULL;
	s = probe(t, tid);
	return s->used ? s : NULL;
}

/* Return a slot to the free list, growing it as needed. */
static void release_slot(struct tid_table *t, uint32_t slot)
{
	if (t->nfree == t->free_cap) {
		size_t cap = t->free_cap ? t->free_cap * 2 : 16;
		uint32_t *slots = realloc(t->free_slots, cap * sizeof(*slots));

		if (!slots)
			return;	/* the slot is just not reused */
		t->free_slots = slots;
		t->free_cap = cap;
	}
	t->free_slots[t->nfree++] = slot;
}

void tid_table_remove(struct tid_table *t, uint32_t tid)
{
	size_t mask = ((size_t)1 << t->bits) - 1;
	struct tid_state *s = tid_table_find(t, tid);
	size_t hole, i;

	if (!s)
		return;
	release_slot(t, s->slot);
	hole = (size_t)(s - t->entries);
	t->entries[hole].used = 0;
	t->count--;
	/* Backward shift: move later entries of the run into the hole when
	 * their home position does not lie between the hole and them. */
	for (i = (hole + 1) & mask; t->entries[i].used; i = (i + 1) & mask) {
		size_t home = tid_hash(t->entries[i].tid, t->bits);

		if (((i - home) & mask) >= ((i - hole) & mask)) {
			t->entries[hole] = t->entries[i];
			t->entries[i].used = 0;
			hole = i;
		}
	}
}
