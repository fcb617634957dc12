/* framenames.c - the frames of the JSON stack outputs (framenames.h). */
#include <stdlib.h>
#include <string.h>

#include "framenames.h"
#include "stackfmt.h"

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
	intern_free(&t->names);
}
