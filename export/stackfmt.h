/* stackfmt.h - a call stack as text: its frames symbolized and joined by
 * ';', outermost first, the sampled function last (Brendan Gregg's
 * collapsed-stack form), for the folded output and the CSV stack column.
 *
 * A frame is its function's name; inside a known file without a symbol
 * there, the file's name in brackets ("[libfoo.so]", as perf's
 * stackcollapse writes it); outside every known mapping "[unknown]".
 */
#ifndef SAMPLER_EXPORT_STACKFMT_H
#define SAMPLER_EXPORT_STACKFMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../symbols/symbols.h"

struct stack_text {
	char *buf;			/* NUL-terminated */
	size_t len;
	size_t cap;
};

void stack_text_free(struct stack_text *t);

/* The name of one frame of process pid (a string of the symbolizer, or
 * of buf for a bracketed file name). */
const char *stack_frame_name(struct symbolizer *s, uint32_t pid, uint64_t pc, char *buf,
			     size_t size);

/* t = [prefix;][marker;]outermost;...;innermost caller;pc.  callers[0..n-1]
 * are innermost first, as profile_stack_frames gives them; pc is the
 * sampled PC, or another return address (pc_is_caller).  Each frame is
 * followed by the functions inlined there, "NAME (inlined)", outermost
 * first (symbolizer_inlines; none with --no-inline).  A stack cut
 * short (stack_end, enum profile_stack_end, not complete) starts with a
 * marker frame naming the cause, "[truncated: no-cfi]" (STACK_MARKER_MAX
 * bytes at most), where its real outer frames are missing.  Without a
 * symbolizer (s NULL) the frames are addresses, 0x hex.  -1 when out of
 * memory. */
int stack_text_build(struct stack_text *t, struct symbolizer *s, const char *prefix,
		     uint32_t pid, uint64_t pc, bool pc_is_caller, const uint64_t *callers,
		     uint32_t n, unsigned stack_end);

/* The marker frame of a stack that ended as stack_end: "[truncated: CAUSE]",
 * or NULL for a complete stack. */
#define STACK_MARKER_MAX 40
const char *stack_end_marker(unsigned stack_end, char buf[STACK_MARKER_MAX]);

#endif
