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

#include "../symbols/inlines.h"
#include "rows.h"

struct frame_names {
	char **names;			/* index -> name */
	size_t n, cap;
	uint32_t *slots;		/* open addressing: index + 1 */
	size_t slots_cap;
	uint64_t callers[PROFILE_MAX_FRAMES];
};

/* The most frames a row's stack has: [marker,] outermost ... pc, each with
 * its inlined functions. */
#define FRAME_NAMES_MAX_STACK (1 + (PROFILE_MAX_FRAMES + 1) * (1 + INLINE_MAX_DEPTH))

void frame_names_free(struct frame_names *t);

/* The index of name, added when new; -1 when out of memory. */
int64_t frame_names_index(struct frame_names *t, const char *name);

/* The stack of row (rows with a symbolizer) into ids, outermost first:
 * how many ids, -1 when out of memory. */
int64_t frame_names_of_row(struct frame_names *t, struct rows *rows, const struct row *row,
			   uint32_t ids[FRAME_NAMES_MAX_STACK]);

/* A hash of n bytes continuing h (FNV-1a; h = FRAME_NAMES_HASH_SEED to start). */
#define FRAME_NAMES_HASH_SEED 1469598103934665603ull
uint64_t frame_names_hash(uint64_t h, const void *p, size_t n);

#endif
