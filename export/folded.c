/* folded.c - call stacks in Brendan Gregg's collapsed form, one line per
 * distinct stack:  comm;outermost;...;leaf WEIGHT
 * which flamegraph.pl, inferno and speedscope read.  The weight of a
 * thread-sample is chosen with --weight (docs/EXPORT.md): samples, cpu
 * (ns), wall (ns), energy[:CHANNEL] (uJ, attributed by the one rule of
 * attribution.h) or a per-thread counter's delta: the values of the rows
 * of rows.h, so that the folded weights are the CSV's columns (the wall
 * interval of a window's first sample included).
 *
 * The stacks are summed on a tree of frames (node = (parent, name), names
 * interned), not as lines of text: a thousand stacks that share a trunk of
 * a thousand frames cost a thousand and one nodes, not a million frames of
 * text, so memory follows the nodes (the profile's own limit, 2^21 callers
 * nodes, times the distinct sampled functions) and never stacks times depth.
 * A row's leaf node is cached per (pid, tid, chain, pc) until the next
 * record that is not a sample (maps, names and exits change the names), so
 * a row costs a lookup, not a stack made into text.  The lines are written
 * at the end by walking the tree, each level in the order of its names.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "../common/grow.h"
#include "../common/hash.h"
#include "../common/idmap.h"
#include "rows.h"
#include "stackfmt.h"
#include "textout.h"
#include "weight.h"

struct folded_node {
	uint32_t parent;		/* node id; the root (0) is its own */
	uint32_t name;			/* offset in names */
	double weight;			/* of the stacks that end here */
};

/* A few recent rows' leaves: (pid, tid, chain, pc) -> node. */
#define LEAF_CACHE_SIZE 4096		/* a power of two */

struct leaf_cache_entry {
	uint32_t pid, tid, chain, node;	/* node 0: empty entry */
	uint64_t pc;			/* the leaves' key; the callers' key: how the stack ended */
};

struct folded_comm {
	char comm[PROFILE_COMM_MAX];
};

struct folded_writer {
	const char *path;
	bool force;			/* --force: no PATH.old */
	const struct profile_info *info;
	struct weight weight;		/* --weight (weight.h) */
	struct rows rows;		/* the rows, with a symbolizer */
	struct idmap comms;		/* pid -> folded_comm: the process's name */
	struct idmap names;		/* tid -> folded_comm: the thread's, once known */
	uint64_t frames[PROFILE_MAX_FRAMES];
	struct stack_text text;
	struct folded_node *nodes;	/* [0]: the root */
	uint32_t nnodes;
	size_t nodes_cap;
	uint32_t *node_slots;		/* open addressing on (parent, name): id + 1 */
	uint32_t node_bits;
	char *pool;			/* interned frame names, NUL-terminated, from offset 1 */
	size_t pool_len, pool_cap;
	uint32_t *name_slots;		/* open addressing on the text: offset */
	uint32_t name_bits, nnames;
	struct leaf_cache_entry *leaves;	/* LEAF_CACHE_SIZE */
	struct leaf_cache_entry *callers;	/* the same, (pid, tid, chain) -> the callers' node */
};

/* ---- the tree of frames ---------------------------------------------- */

/* (hash_mix64: the tables use the low bits) */
static uint64_t pair_hash(uint32_t parent, uint32_t name)
{
	return hash_mix64(((uint64_t)parent << 32) | name);
}

/* Slots of a table of 2^bits, doubled when half full; rehash re-places
 * one old entry. */
static int grow_slots(struct folded_writer *w, uint32_t **slots, uint32_t *bits, uint32_t count,
		      uint64_t (*hash)(const struct folded_writer *, uint32_t))
{
	uint32_t nbits = *bits ? *bits + 1 : 10, mask = (1u << nbits) - 1;
	uint32_t *n;

	if (*bits && (uint64_t)(count + 1) * 2 <= (1ull << *bits))
		return 0;
	if (nbits > 31)
		return -1;
	n = calloc((size_t)1 << nbits, sizeof(*n));
	if (!n)
		return -1;
	for (uint32_t i = 0; *bits && i < (1u << *bits); i++) {
		uint32_t j;

		if (!(*slots)[i])
			continue;
		for (j = hash(w, (*slots)[i]) & mask; n[j]; j = (j + 1) & mask)
			;
		n[j] = (*slots)[i];
	}
	free(*slots);
	*slots = n;
	*bits = nbits;
	return 0;
}

static uint64_t name_slot_hash(const struct folded_writer *w, uint32_t off)
{
	const char *s = w->pool + off;

	return hash_string(HASH_SEED, s);
}

static uint64_t node_slot_hash(const struct folded_writer *w, uint32_t id1)
{
	const struct folded_node *n = &w->nodes[id1 - 1];

	return pair_hash(n->parent, n->name);
}

/* The offset of the interned name s[0..len-1]; 0 when out of memory. */
static uint32_t intern_name(struct folded_writer *w, const char *s, size_t len)
{
	uint32_t mask, i;

	if (grow_slots(w, &w->name_slots, &w->name_bits, w->nnames, name_slot_hash) < 0)
		return 0;
	mask = (1u << w->name_bits) - 1;
	for (i = hash_bytes(HASH_SEED, s, len) & mask; w->name_slots[i]; i = (i + 1) & mask) {
		const char *t = w->pool + w->name_slots[i];

		if (strncmp(t, s, len) == 0 && t[len] == '\0')
			return w->name_slots[i];
	}
	if (w->pool_len + len + 1 > UINT32_MAX ||	/* offsets are 32-bit */
	    GROW_ARRAY(w->pool, w->pool_cap, w->pool_len + len + 1) < 0)
		return 0;
	memcpy(w->pool + w->pool_len, s, len);
	w->pool[w->pool_len + len] = '\0';
	w->name_slots[i] = (uint32_t)w->pool_len;
	w->pool_len += len + 1;
	w->nnames++;
	return w->name_slots[i];
}

/* The node (parent, name); 0 when out of memory. */
static uint32_t child_node(struct folded_writer *w, uint32_t parent, uint32_t name)
{
	uint32_t mask, i;

	if (grow_slots(w, &w->node_slots, &w->node_bits, w->nnodes, node_slot_hash) < 0)
		return 0;
	mask = (1u << w->node_bits) - 1;
	for (i = pair_hash(parent, name) & mask; w->node_slots[i]; i = (i + 1) & mask) {
		const struct folded_node *n = &w->nodes[w->node_slots[i] - 1];

		if (n->parent == parent && n->name == name)
			return w->node_slots[i] - 1;
	}
	if (w->nnodes == UINT32_MAX - 1 ||		/* slots hold id + 1 */
	    GROW_ARRAY(w->nodes, w->nodes_cap, (size_t)w->nnodes + 1) < 0)
		return 0;
	w->nodes[w->nnodes] = (struct folded_node){ .parent = parent, .name = name };
	w->node_slots[i] = ++w->nnodes;
	return w->nnodes - 1;
}

/* The leaf node of a stack's text (frames joined by ';') below node (0:
 * the root); 0 when out of memory. */
static uint32_t text_node(struct folded_writer *w, uint32_t node, const char *text)
{
	for (const char *p = text;;) {
		const char *end = strchr(p, ';');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		uint32_t name = intern_name(w, p, len);

		if (!name || !(node = child_node(w, node, name)))
			return 0;
		if (!end)
			return node;
		p = end + 1;
	}
}

/* ---- records ---------------------------------------------------------- */

/* The thread's name as perf shows it (its own, else its process's). */
static const char *comm_of(struct folded_writer *w, uint32_t pid, uint32_t tid)
{
	const struct folded_comm *c = idmap_find(&w->names, tid);

	if (!c || !c->comm[0])
		c = idmap_find(&w->comms, pid);
	return c ? c->comm : "";
}

/* The node of the row's callers (its comm when it has none; the root
 * without a comm either), cached per (pid, tid, chain): rows of one chain
 * and many PCs make its text once.  -1 when out of memory. */
static int callers_node(struct folded_writer *w, const struct row *row, uint32_t *node)
{
	uint64_t h = ((uint64_t)row->tid << 32 | row->chain) * 0x9e3779b97f4a7c15ull;
	struct leaf_cache_entry *e = &w->callers[h >> 52 & (LEAF_CACHE_SIZE - 1)];
	uint32_t n;

	if (e->node && e->pid == row->pid && e->tid == row->tid && e->chain == row->chain &&
	    e->pc == row->stack_end) {
		*node = e->node;
		return 0;
	}
	n = profile_stack_frames(row->stacks, row->chain, w->frames, PROFILE_MAX_FRAMES);
	if (stack_text_build(&w->text, w->rows.symbols, comm_of(w, row->pid, row->tid), row->pid,
			     n ? w->frames[0] : 0, true, w->frames + 1, n ? n - 1 : 0,
			     row->stack_end) < 0)
		return -1;
	if (!n) {		/* no callers: drop the frame made of pc 0 */
		char *semi = strrchr(w->text.buf, ';');

		*(semi ? semi : w->text.buf) = '\0';
	}
	*node = 0;
	if (w->text.buf[0] && !(*node = text_node(w, 0, w->text.buf)))
		return -1;
	*e = (struct leaf_cache_entry){ row->pid, row->tid, row->chain, *node, row->stack_end };
	return 0;
}

/* The node of the row's stack: its callers' node, then its own frame;
 * 0 when out of memory. */
static uint32_t leaf_node(struct folded_writer *w, const struct row *row)
{
	uint32_t node;

	/* (its text: the frame and the functions inlined there) */
	if (callers_node(w, row, &node) < 0 ||
	    stack_text_build(&w->text, w->rows.symbols, NULL, row->pid, row->pc, false, NULL, 0,
			     PROFILE_STACK_COMPLETE) < 0)
		return 0;
	return text_node(w, node, w->text.buf);
}

/* One row: its weight on the line of its stack.  An exit row (CPU time
 * and counts after the thread's last sample) goes to its last stack; a
 * thread never sampled has none. */
static int add_row(void *arg, const struct row *row, struct error *err)
{
	struct folded_writer *w = arg;
	double weight = weight_of_row(&w->weight, &w->rows, row);
	struct leaf_cache_entry *e;
	uint64_t h;

	if (!(weight > 0) || (row->exit && !row->pc))
		return 0;
	h = (((uint64_t)row->tid << 32 | row->chain) ^ row->pc) * 0x9e3779b97f4a7c15ull;
	e = &w->leaves[h >> 52 & (LEAF_CACHE_SIZE - 1)];
	if (e->node && e->pid == row->pid && e->tid == row->tid && e->chain == row->chain &&
	    e->pc == row->pc) {
		w->nodes[e->node].weight += weight;
		return 0;
	}
	*e = (struct leaf_cache_entry){ row->pid, row->tid, row->chain, leaf_node(w, row), row->pc };
	if (!e->node)
		return error_set(err, "out of memory for %" PRIu32 " frames of call stacks (%zu bytes of names)",
				 w->nnodes, w->pool_len);
	w->nodes[e->node].weight += weight;
	return 0;
}

static int on_process(struct folded_writer *w, const struct profile_process *p, struct error *err)
{
	const struct folded_comm *parent = idmap_find(&w->comms, p->ppid);
	struct folded_comm inherited = { "" }, *c;
	bool created;

	if (parent && p->ppid)	/* a fork child is its parent until exec */
		inherited = *parent;
	c = idmap_get(&w->comms, p->pid, &created);
	if (!c)
		return error_set(err, "out of memory for process %" PRIu32, p->pid);
	if (created || inherited.comm[0])
		*c = inherited;
	return 0;
}

static int on_exec(struct folded_writer *w, const struct profile_exec *e, struct error *err)
{
	bool created;
	struct folded_comm *c = idmap_get(&w->comms, e->pid, &created);

	if (!c)
		return error_set(err, "out of memory for process %" PRIu32, e->pid);
	snprintf(c->comm, sizeof(c->comm), "%s", e->comm);
	idmap_remove(&w->names, e->pid);	/* its name went with the old image */
	return 0;
}

static int on_name(struct folded_writer *w, const struct profile_name *n, struct error *err)
{
	bool created;
	struct folded_comm *c = idmap_get(&w->names, n->tid, &created);

	if (!c)
		return error_set(err, "out of memory for thread %" PRIu32, n->tid);
	snprintf(c->comm, sizeof(c->comm), "%s", n->name);
	return 0;
}

/* The names first (the rows are named by them), then the rows. */
static int folded_record(void *state, const struct profile_record *rec, struct error *err)
{
	struct folded_writer *w = state;
	int ret = 0;

	if (rec->type != PROFILE_REC_SAMPLE)	/* names and maps may change */
		{
		memset(w->leaves, 0, LEAF_CACHE_SIZE * sizeof(*w->leaves));
		memset(w->callers, 0, LEAF_CACHE_SIZE * sizeof(*w->callers));
	}
	switch (rec->type) {
	case PROFILE_REC_PROCESS:
		ret = on_process(w, &rec->process, err);
		break;
	case PROFILE_REC_EXEC:
		ret = on_exec(w, &rec->exec, err);
		break;
	case PROFILE_REC_NAME:
		ret = on_name(w, &rec->name, err);
		break;
	default:
		break;
	}
	if (ret < 0 || rows_record(&w->rows, rec, add_row, w, err) < 0)
		return -1;
	if (rec->type == PROFILE_REC_EXIT)
		idmap_remove(&w->names, rec->exit.tid);	/* a later thread may reuse the tid */
	return 0;
}

/* ---- open and finish -------------------------------------------------- */

static void folded_free(struct folded_writer *w)
{
	free(w->nodes);
	free(w->node_slots);
	free(w->pool);
	free(w->name_slots);
	free(w->leaves);
	free(w->callers);
	stack_text_free(&w->text);
	idmap_free(&w->comms);
	idmap_free(&w->names);
	rows_free(&w->rows);
	free(w);
}

static void *folded_open(const struct profile_info *info, const struct export_options *opt,
			 struct energy_source *energy, struct error *err)
{
	struct folded_writer *w = calloc(1, sizeof(*w));
	struct export_options symbolized = *opt;	/* frames are always named */

	if (!w) {
		error_set(err, "out of memory for the folded writer");
		return NULL;
	}
	w->info = info;
	w->path = opt->output;
	w->nodes_cap = 1024;
	w->nodes = calloc(w->nodes_cap, sizeof(*w->nodes));
	w->leaves = calloc(LEAF_CACHE_SIZE, sizeof(*w->leaves));
	w->callers = calloc(LEAF_CACHE_SIZE, sizeof(*w->callers));
	w->pool_cap = 4096;
	w->pool = calloc(w->pool_cap, 1);
	if (!w->nodes || !w->leaves || !w->callers || !w->pool) {
		free(w->nodes);
		free(w->leaves);
		free(w->callers);
		free(w->pool);
		free(w);
		error_set(err, "out of memory for the folded writer");
		return NULL;
	}
	w->nnodes = 1;			/* the root */
	w->pool_len = 1;		/* offset 0: no name */
	w->force = opt->force;
	idmap_init(&w->comms, sizeof(struct folded_comm));
	idmap_init(&w->names, sizeof(struct folded_comm));
	symbolized.symbols = true;
	if (rows_init(&w->rows, info, &symbolized, energy, err) < 0) {
		idmap_free(&w->comms);
		idmap_free(&w->names);
		free(w->nodes);
		free(w->leaves);
		free(w->callers);
		free(w->pool);
		free(w);
		return NULL;
	}
	if (weight_parse(&w->weight, info, opt->weight, "cpu", err) < 0)
		goto fail;
	return w;
fail:
	folded_free(w);
	return NULL;
}

/* For the sort of the nodes: by parent, then by name. */
static const struct folded_writer *sorting;

static int by_parent_name(const void *a, const void *b)
{
	const struct folded_node *x = &sorting->nodes[*(const uint32_t *)a];
	const struct folded_node *y = &sorting->nodes[*(const uint32_t *)b];

	if (x->parent != y->parent)
		return x->parent < y->parent ? -1 : 1;
	return strcmp(sorting->pool + x->name, sorting->pool + y->name);
}

/* The nodes in the order of the lines: children of node p lie together
 * in order[first[p] .. first[p + 1] - 1], sorted by name. */
struct line_order {
	uint32_t *order;
	uint32_t *first;
};

static int order_lines(struct folded_writer *w, struct line_order *o, struct error *err)
{
	uint32_t n = w->nnodes - 1;

	o->order = malloc(((size_t)n + 1) * sizeof(*o->order));
	o->first = calloc((size_t)w->nnodes + 1, sizeof(*o->first));
	if (!o->order || !o->first) {
		free(o->order);
		free(o->first);
		return error_set(err, "out of memory for %" PRIu32 " frames of call stacks", n);
	}
	for (uint32_t i = 0; i < n; i++)
		o->order[i] = i + 1;
	sorting = w;
	qsort(o->order, n, sizeof(*o->order), by_parent_name);
	sorting = NULL;
	for (uint32_t i = 0; i < n; i++)
		o->first[w->nodes[o->order[i]].parent + 1]++;
	for (uint32_t p = 0; p < w->nnodes; p++)
		o->first[p + 1] += o->first[p];
	return 0;
}

/* Append name to the line cut at len; -1 when out of memory. */
static int line_put(struct stack_text *line, size_t len, const char *name)
{
	size_t n = strlen(name);

	if (GROW_ARRAY(line->buf, line->cap, len + n + 2) < 0)
		return -1;
	if (len)
		line->buf[len++] = ';';
	memcpy(line->buf + len, name, n + 1);
	line->len = len + n;
	return 0;
}

/* The lines, depth first; the path is kept as the nodes of the open
 * levels and the line's length at each, no recursion (stacks are up to
 * 1,024 frames deep). */
static int write_lines(struct folded_writer *w, const struct line_order *o, FILE *f,
		       struct error *err)
{
	/* at depth k: the node, its next child's index, the line's length */
	uint32_t node_at[PROFILE_MAX_FRAMES + 4], next_at[PROFILE_MAX_FRAMES + 4], depth = 0;
	size_t len_at[PROFILE_MAX_FRAMES + 4];

	node_at[0] = 0;
	next_at[0] = o->first[0];
	len_at[0] = 0;
	while (1) {
		uint32_t node;
		double v;

		if (next_at[depth] == o->first[node_at[depth] + 1]) {	/* every child done */
			if (depth-- == 0)
				break;
			continue;
		}
		node = o->order[next_at[depth]++];
		if (depth + 1 >= PROFILE_MAX_FRAMES + 4)	/* comm, 1,024 callers, pc: never */
			continue;
		if (line_put(&w->text, len_at[depth], w->pool + w->nodes[node].name) < 0)
			return error_set(err, "out of memory for a line of %" PRIu32 " frames", depth + 1);
		depth++;
		node_at[depth] = node;
		next_at[depth] = o->first[node];
		len_at[depth] = w->text.len;
		v = round(w->nodes[node].weight);
		if (v >= 1)
			fprintf(f, "%s %.0f\n", w->text.buf, v);
	}
	return 0;
}

static int folded_finish(void *state, const struct export_result *result, struct error *err)
{
	struct folded_writer *w = state;
	struct line_order o;
	FILE *f;
	int ret = -1;

	(void)result;
	if (!err) {		/* the export failed: nothing to write */
		folded_free(w);
		return -1;
	}
	if (order_lines(w, &o, err) < 0)
		goto out_free;
	f = textout_open(w->path, w->force, err);
	if (f) {
		struct error ignored;

		if (write_lines(w, &o, f, err) < 0)
			textout_close(f, w->path, &ignored);	/* err tells why */
		else
			ret = textout_close(f, w->path, err);
	}
	free(o.order);
	free(o.first);
out_free:
	folded_free(w);
	return ret;
}

const struct exporter folded_exporter = {
	.name = "folded",
	.reads_input_twice = true,	/* the energy estimate (attribution.h) */
	.open = folded_open,
	.record = folded_record,
	.finish = folded_finish,
};
