/* tidtable.c - per-thread coding state on the common id table (see tidtable.h). */
#include "tidtable.h"

#include <stdlib.h>
#include <string.h>

#include "../common/grow.h"

void tid_table_init(struct tid_table *t, uint32_t ncounters, size_t max)
{
	memset(t, 0, sizeof(*t));
	idmap_init(&t->states, sizeof(struct tid_state));
	t->ncounters = ncounters;
	t->max = max;
}

void tid_table_free(struct tid_table *t)
{
	idmap_free(&t->states);
	free(t->pool);
	free(t->free_slots);
	tid_table_init(t, t->ncounters, t->max);
}

/* A slot of ncounters values for a new thread. */
static int take_slot(struct tid_table *t, uint32_t *slot)
{
	if (t->nfree) {
		*slot = t->free_slots[--t->nfree];
	} else {
		if (t->ncounters &&
		    GROW_ARRAY(t->pool, t->pool_cap, (t->nslots + 1) * t->ncounters) < 0)
			return -1;
		*slot = (uint32_t)t->nslots++;
	}
	if (t->ncounters)
		memset(t->pool + (size_t)*slot * t->ncounters, 0,
		       t->ncounters * sizeof(uint64_t));
	return 0;
}

/* Return a slot to the free list, growing it as needed. */
static void release_slot(struct tid_table *t, uint32_t slot)
{
	if (GROW_ARRAY(t->free_slots, t->free_cap, t->nfree + 1) < 0)
		return;	/* the slot is just not reused */
	t->free_slots[t->nfree++] = slot;
}

struct tid_state *tid_table_get(struct tid_table *t, uint32_t tid, bool *created)
{
	struct tid_state *s = idmap_find(&t->states, tid);
	uint32_t slot;

	*created = false;
	if (s)
		return s;
	if (idmap_count(&t->states) >= t->max || take_slot(t, &slot) < 0)
		return NULL;
	s = idmap_get(&t->states, tid, NULL);
	if (!s) {
		release_slot(t, slot);
		return NULL;
	}
	*s = (struct tid_state){ .tid = tid, .pid = tid, .slot = slot };
	*created = true;
	return s;
}

struct tid_state *tid_table_find(const struct tid_table *t, uint32_t tid)
{
	return idmap_find(&t->states, tid);
}

void tid_table_remove(struct tid_table *t, uint32_t tid)
{
	struct tid_state *s = idmap_find(&t->states, tid);

	if (!s)
		return;
	release_slot(t, s->slot);
	idmap_remove(&t->states, tid);
}
