/* grow.h - the one way a growing array grows (git's ALLOC_GROW, without
 * dying: a failed allocation leaves the array as it was and returns -1).
 *
 *	if (GROW_ARRAY(t->items, t->cap, t->n + 1) < 0)
 *		return error_set(err, ...);
 *	t->items[t->n++] = item;
 *
 * cap is a size_t lvalue counted in elements (the compiler refuses any
 * other type).  The capacity at least doubles, from 8 elements, so n
 * appends copy O(n) elements in all; sizes are checked for overflow.
 */
#ifndef SAMPLER_COMMON_GROW_H
#define SAMPLER_COMMON_GROW_H

#include <stddef.h>

/* Makes *items hold at least need elements of elem bytes; updates *cap. */
int grow_array(void **items, size_t *cap, size_t need, size_t elem);

#define GROW_ARRAY(items, cap, need)					\
	((size_t)(need) <= (cap) ? 0 :					\
	 grow_array((void **)&(items), &(cap), (need), sizeof(*(items))))

#endif
