/* framenames.c - the frames of the JSON stack outputs (framenames.h). */
#include <stdlib.h>
#include <string.h>

#include "../common/grow.h"
#include "framenames.h"
#include "stackfmt.h"

uint64_t frame_names_hash(uint64_t h, const void *p, size_t n)
{
	const unsigned char *s = p;

	while (n--)
		h = (h ^ *s++) * 1099511628211ull;	/* FNV-1a */
	return h;
}

static size_t slot_of(const char *name, size_t cap)
{
	return frame_names_hash(FRAME_NAMES_HASH_SEED, name, strlen(name)) & (cap - 1);
}

static int grow_slots(struct frame_names *t)
{
	size_t cap = t->slots_cap ? t->slots_cap * 2 : 1024;
	uint32_t *slots = calloc(cap, sizeof(*slots));

	if (!slots)
		return -1;
	for (size_t i = 0; i < t->n; i++) {
		size_t j = slot_of(t->names[i], cap);

		while (slots[j])
			j = (j + 1) & (cap - 1);
		slots[j] = (uint32_t)i + 1;
	}
	free(t->slots);
	t->slots = slots;
	t->slots_cap = cap;
	return 0;
}

int64_t frame_names_index(struct frame_names *t, const char *name)
{
	size_t i;

	if ((t->n + 1) * 2 > t->slots_cap && grow_slots(t) < 0)
		return -1;
	for (i = slot_of(name, t->slots_cap); t->slots[i]; i = (i + 1) & (t->slots_cap - 1))
		if (strcmp(t->names[t->slots[i] - 1], name) == 0)
			return t->slots[i] - 1;
	if (GROW_ARRAY(t->names, t->cap, t->n + 1) < 0)
		return -1;
	t->names[t->n] = strdup(name);
	if (!t->names[t->n])
		return -1;
	t->slots[i] = (uint32_t)++t->n;
	return (int64_t)t->n - 1;
}

int64_t frame_names_of_row(struct frame_names *t, struct rows *rows, const struct row *row,
			   uint32_t ids[FRAME_NAMES_MAX_STACK])
{
	char buf[PROFILE_PATH_MAX + 2], marker_buf[STACK_MARKER_MAX];
	const char *marker = stack_end_marker(row->stack_end, marker_buf);
	uint32_t n, m = 0;
	int64_t id;

	if (marker) {
		if ((id = frame_names_index(t, marker)) < 0)
			return -1;
		ids[m++] = (uint32_t)id;
	}
	n = profile_stack_frames(row->stacks, row->chain, t->callers, PROFILE_MAX_FRAMES);
	for (uint32_t i = 0; i <= n; i++) {
		uint64_t addr = i < n ? t->callers[n - 1 - i] : row->pc;
		const char *inlined[INLINE_MAX_DEPTH];
		size_t k = symbolizer_inlines(rows->symbols, row->pid, addr, i < n, inlined);

		id = frame_names_index(t, stack_frame_name(rows->symbols, row->pid, addr, buf,
							   sizeof(buf)));
		if (id < 0)
			return -1;
		ids[m++] = (uint32_t)id;
		for (size_t j = 0; j < k; j++) {
			if ((id = frame_names_index(t, inlined[j])) < 0)
				return -1;
			ids[m++] = (uint32_t)id;
		}
	}
	return m;
}

void frame_names_free(struct frame_names *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->names[i]);
	free(t->names);
	free(t->slots);
	memset(t, 0, sizeof(*t));
}
