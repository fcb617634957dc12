/* framenames.h - the frames of the JSON stack outputs (speedscope,
 * firefox): each name stored once in a table, and a row's call stack as
 * indexes into it, named as the folded output names them (stackfmt.h):
 * outermost first, each frame followed by its inlined functions, a stack
 * cut short led by its marker frame.  Memory grows with the distinct
 * names, not with the samples.
 */
#ifndef SAMPLER_EXPORT_FRAMENAMES_H
#define SAMPLER_EXPORT_FRAMENAMES_H

#include <stddef.h>
#include <stdint.h>

#include "../common/intern.h"
#include "../symbols/inlines.h"
#include "rows.h"

struct frame_names {
	struct intern names;		/* index -> name */
	uint64_t callers[PROFILE_MAX_FRAMES];
};

/* The most frames a row's stack has: [marker,] outermost ... pc, each with
 * its inlined functions. */
#define FRAME_NAMES_MAX_STACK (1 + (PROFILE_MAX_FRAMES + 1) * (1 + INLINE_MAX_DEPTH))

void frame_names_free(struct frame_names *t);

/* The index of name, added when new; -1 when out of memory. */
static inline int64_t frame_names_index(struct frame_names *t, const char *name)
{
	return intern_string(&t->names, name, NULL);
}

/* How many names, and the name of index i. */
static inline size_t frame_names_count(const struct frame_names *t)
{
	return intern_count(&t->names);
}

static inline const char *frame_names_name(const struct frame_names *t, size_t i)
{
	return intern_key(&t->names, i, NULL);
}

/* The stack of row (rows with a symbolizer) into ids, outermost first:
 * how many ids, -1 when out of memory. */
int64_t frame_names_of_row(struct frame_names *t, struct rows *rows, const struct row *row,
			   uint32_t ids[FRAME_NAMES_MAX_STACK]);

#endif
