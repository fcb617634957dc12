/* stacktree.h - the call stacks of a profile, stored once each as a prefix
 * tree (docs/FORMAT.md, "Call stacks").
 *
 * Node 0 is the empty stack.  Every other node is (parent, address): one
 * caller frame and the node of the frames outside it, so a stack is the
 * node of its innermost caller and stacks that share their outer frames
 * share nodes.  Nodes are numbered in the order they were added; both the
 * writer and the reader keep parent, address and depth of each, and the
 * writer also an index (parent, address) -> node to find stacks it has
 * already written.  At most PROFILE_MAX_STACK_NODES nodes, each at most
 * PROFILE_MAX_FRAMES deep: hostile input cannot make the reader allocate
 * more than that.
 */
#ifndef SAMPLER_PROFILE_STACKTREE_H
#define SAMPLER_PROFILE_STACKTREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct stack_tree {
	uint32_t n;			/* nodes, node 0 included (0: not set up) */
	uint32_t *parent;
	uint64_t *addr;
	uint16_t *depth;		/* frames from node 0 */
	size_t parent_cap, addr_cap, depth_cap;
	bool indexed;			/* the writer's: keeps the index below */
	uint32_t *index;		/* open addressing, node ids, 0 empty */
	unsigned bits;
};

void stack_tree_init(struct stack_tree *t, bool indexed);
void stack_tree_free(struct stack_tree *t);

/* Add the node (parent, addr): its id, or 0 when the tree is full, the
 * parent is unknown or too deep, or memory is out. */
uint32_t stack_tree_add(struct stack_tree *t, uint32_t parent, uint64_t addr);

/* The node (parent, addr) of an indexed tree, or 0. */
uint32_t stack_tree_find(const struct stack_tree *t, uint32_t parent, uint64_t addr);

/* The addresses of node and its ancestors, innermost first, into
 * frames[0..max-1]; returns how many (0 for node 0 or an unknown node). */
uint32_t stack_tree_frames(const struct stack_tree *t, uint32_t node, uint64_t *frames,
			   uint32_t max);

/* Nodes defined so far: node 0 always is. */
static inline uint32_t stack_tree_count(const struct stack_tree *t)
{
	return t->n ? t->n : 1;
}

static inline uint32_t stack_tree_depth(const struct stack_tree *t, uint32_t node)
{
	return node < t->n ? t->depth[node] : 0;
}

static inline uint64_t stack_tree_addr(const struct stack_tree *t, uint32_t node)
{
	return node < t->n ? t->addr[node] : 0;
}

#endif
