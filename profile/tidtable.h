/* tidtable.h - per-thread decoding state, keyed by tid.
 *
 * Both the writer and the reader keep one: the previous PC, CPU time and
 * counter values of every live thread (the bases of the deltas) and its
 * process.  The states live in the common id table (common/idmap.h); a
 * thread's exit record removes it.  Counter values live in a pool sized by
 * the live threads, not the table.  At most `max` (PROFILE_MAX_THREADS)
 * live threads: hostile input cannot make the reader allocate more.
 */
#ifndef SAMPLER_PROFILE_TIDTABLE_H
#define SAMPLER_PROFILE_TIDTABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../common/idmap.h"

struct tid_state {
	uint32_t tid;
	uint32_t pid;
	uint32_t slot;			/* index of its counters in the pool */
	uint64_t pc;			/* the previous PC */
	uint64_t pc_alt;		/* the previous PC of another code region */
	uint64_t cpu;
	uint32_t chain;			/* stack of the previous sample (profiles with stacks) */
	uint8_t stack_end;		/* and how it ended */
	uint64_t clock_pc;		/* the previous clock sample's PC */
	uint32_t clock_chain;		/* and its stack */
	uint8_t clock_stack_end;	/* (reader) and how it ended */
	uint64_t clock_owed;		/* reader: CPU time of intervals without
					 * clock samples, owed to the next ones */
	uint64_t seen_ns;		/* reader: time of its previous sample (0: none) */
};

/* PCs are coded as deltas from the nearer of a thread's two last code
 * regions (say the program and libc), the choice in one flag bit: a PC
 * more than this far from the base it was coded against opens a new
 * region, which replaces the older one. */
#define PC_REGION_BYTES (1u << 20)

static inline uint64_t pc_magnitude(uint64_t delta)
{
	return (int64_t)delta < 0 ? -delta : delta;
}

/* The thread moved to pc, coded against base alt (0: pc, 1: pc_alt). */
static inline void tid_state_move_pc(struct tid_state *s, unsigned alt, uint64_t delta,
				     uint64_t pc)
{
	if (alt || pc_magnitude(delta) > PC_REGION_BYTES)
		s->pc_alt = s->pc;
	s->pc = pc;
}

struct tid_table {
	struct idmap states;		/* tid -> struct tid_state */
	size_t max;			/* most live threads allowed */
	uint32_t ncounters;		/* counter values per thread */
	uint64_t *pool;			/* ncounters values per slot */
	uint32_t *free_slots;		/* slots released by removals */
	size_t nfree;
	size_t free_cap;
	size_t nslots;			/* slots handed out so far */
	size_t pool_cap;		/* values the pool has room for */
};

void tid_table_init(struct tid_table *t, uint32_t ncounters, size_t max);
void tid_table_free(struct tid_table *t);

/* The state of tid, created zeroed (pid = tid) when absent; NULL when the
 * table is full or out of memory.  Pointers stay valid until the next
 * tid_table_get or tid_table_remove. */
struct tid_state *tid_table_get(struct tid_table *t, uint32_t tid, bool *created);

/* The state of tid, or NULL. */
struct tid_state *tid_table_find(const struct tid_table *t, uint32_t tid);

static inline uint64_t *tid_table_counters(const struct tid_table *t,
					   const struct tid_state *s)
{
	return t->ncounters ? t->pool + (size_t)s->slot * t->ncounters : NULL;
}

void tid_table_remove(struct tid_table *t, uint32_t tid);

#endif
