/* stacktree.c - the prefix tree of call stacks (see stacktree.h). */
#include "stacktree.h"

#include <stdlib.h>
#include <string.h>

#include "../common/grow.h"
#include "../common/hash.h"
#include "profile.h"

#define MIN_CAP 256

void stack_tree_init(struct stack_tree *t, bool indexed)
{
	memset(t, 0, sizeof(*t));
	t->indexed = indexed;
}

void stack_tree_free(struct stack_tree *t)
{
	free(t->parent);
	free(t->addr);
	free(t->depth);
	free(t->index);
	stack_tree_init(t, t->indexed);
}

static inline uint32_t node_hash(uint32_t parent, uint64_t addr, unsigned bits)
{
	return (uint32_t)(hash_u64(addr ^ (uint64_t)parent << 40 ^ (uint64_t)parent) >> (64 - bits));
}

static void index_put(struct stack_tree *t, uint32_t node)
{
	uint32_t mask = (1u << t->bits) - 1;
	uint32_t i = node_hash(t->parent[node], t->addr[node], t->bits);

	while (t->index[i])
		i = (i + 1) & mask;
	t->index[i] = node;
}

static int index_grow(struct stack_tree *t)
{
	unsigned bits = t->bits ? t->bits + 1 : 10;
	uint32_t *index = calloc((size_t)1 << bits, sizeof(*index));

	if (!index)
		return -1;
	free(t->index);
	t->index = index;
	t->bits = bits;
	for (uint32_t node = 1; node < t->n; node++)
		index_put(t, node);
	return 0;
}

/* Room for one more node (node 0 is made with the first).  The caller
 * keeps n below PROFILE_MAX_STACK_NODES, a power of two: the capacities,
 * doubled from MIN_CAP, never pass it. */
static int reserve(struct stack_tree *t)
{
	size_t need = t->n < MIN_CAP ? MIN_CAP : (size_t)t->n + 1;

	if (GROW_ARRAY(t->parent, t->parent_cap, need) < 0 ||
	    GROW_ARRAY(t->addr, t->addr_cap, need) < 0 ||
	    GROW_ARRAY(t->depth, t->depth_cap, need) < 0)
		return -1;
	if (t->n == 0) {
		t->parent[0] = 0;
		t->addr[0] = 0;
		t->depth[0] = 0;
		t->n = 1;
	}
	return 0;
}

uint32_t stack_tree_add(struct stack_tree *t, uint32_t parent, uint64_t addr)
{
	uint32_t node;

	if (t->n >= PROFILE_MAX_STACK_NODES || reserve(t) < 0)
		return 0;
	if (parent >= t->n || t->depth[parent] >= PROFILE_MAX_FRAMES)
		return 0;
	if (t->indexed && (uint64_t)(t->n + 1) * 2 > (1ull << t->bits) && index_grow(t) < 0)
		return 0;
	node = t->n++;
	t->parent[node] = parent;
	t->addr[node] = addr;
	t->depth[node] = (uint16_t)(t->depth[parent] + 1);
	if (t->indexed)
		index_put(t, node);
	return node;
}

uint32_t stack_tree_find(const struct stack_tree *t, uint32_t parent, uint64_t addr)
{
	uint32_t mask, i;

	if (!t->bits)
		return 0;
	mask = (1u << t->bits) - 1;
	for (i = node_hash(parent, addr, t->bits); t->index[i]; i = (i + 1) & mask) {
		uint32_t node = t->index[i];

		if (t->parent[node] == parent && t->addr[node] == addr)
			return node;
	}
	return 0;
}

uint32_t stack_tree_frames(const struct stack_tree *t, uint32_t node, uint64_t *frames,
			   uint32_t max)
{
	uint32_t n = 0;

	if (node >= t->n)
		return 0;
	while (node && n < max) {
		frames[n++] = t->addr[node];
		node = t->parent[node];
	}
	return n;
}
