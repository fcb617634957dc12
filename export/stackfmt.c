/* stackfmt.c - call stacks as collapsed text (see stackfmt.h). */
#include "stackfmt.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/grow.h"
#include "../common/textescape.h"

void stack_text_free(struct stack_text *t)
{
	free(t->buf);
	memset(t, 0, sizeof(*t));
}

const char *stack_frame_name(struct symbolizer *s, uint32_t pid, uint64_t pc, char *buf,
			     size_t size)
{
	const char *dso, *sym, *base;

	symbolizer_lookup(s, pid, pc, &dso, &sym);
	if (strcmp(sym, SYMBOL_UNKNOWN) != 0 && strncmp(sym, "0x", 2) != 0)
		return sym;
	if (strcmp(dso, SYMBOL_UNKNOWN) == 0 || dso[0] == '[')
		return dso;	/* [unknown], [vdso], [heap] ... */
	if (!dso[0])
		return SYMBOL_UNKNOWN;	/* anonymous memory */
	base = strrchr(dso, '/');
	snprintf(buf, size, "[%s]", base ? base + 1 : dso);
	return buf;
}

static int append(struct stack_text *t, const char *s, char sep)
{
	size_t n = strlen(s);

	if (GROW_ARRAY(t->buf, t->cap, t->len + 3 * n + 2) < 0)
		return -1;
	if (sep && t->len)
		t->buf[t->len++] = sep;
	/* the separator of the form may not appear inside a frame; a byte
	 * that cannot be shown is escaped by the one rule (textescape.h) */
	while (*s) {
		size_t shown = textescape_shown(s, ";");

		if (shown) {
			memcpy(t->buf + t->len, s, shown);
			t->len += shown;
			s += shown;
		} else if (*s == ';') {
			t->buf[t->len++] = ':';
			s++;
		} else {
			textescape_byte(t->buf + t->len, (unsigned char)*s++);
			t->len += 3;
		}
	}
	t->buf[t->len] = '\0';
	return 0;
}

const char *stack_end_marker(unsigned stack_end, char buf[STACK_MARKER_MAX])
{
	const char *cause = profile_stack_end_name(stack_end);

	if (stack_end == PROFILE_STACK_COMPLETE)
		return NULL;
	snprintf(buf, STACK_MARKER_MAX, "[truncated: %s]", cause ? cause : "unknown");
	return buf;
}

/* One frame: its function, then the functions inlined there (symbols.h). */
static int append_frame(struct stack_text *t, struct symbolizer *s, uint32_t pid,
			uint64_t addr, bool caller)
{
	char buf[PROFILE_PATH_MAX + 2];
	const char *inlined[INLINE_MAX_DEPTH];
	size_t n;

	if (!s) {
		snprintf(buf, sizeof(buf), "0x%" PRIx64, addr);
		return append(t, buf, ';');
	}
	if (append(t, stack_frame_name(s, pid, addr, buf, sizeof(buf)), ';') < 0)
		return -1;
	n = symbolizer_inlines(s, pid, addr, caller, inlined);
	for (size_t i = 0; i < n; i++)
		if (append(t, inlined[i], ';') < 0)
			return -1;
	return 0;
}

int stack_text_build(struct stack_text *t, struct symbolizer *s, const char *prefix,
		     uint32_t pid, uint64_t pc, bool pc_is_caller, const uint64_t *callers,
		     uint32_t n, unsigned stack_end)
{
	char marker_buf[STACK_MARKER_MAX];
	const char *marker = stack_end_marker(stack_end, marker_buf);

	t->len = 0;
	if (append(t, "", 0) < 0 || (prefix && append(t, prefix, ';') < 0) ||
	    (marker && append(t, marker, ';') < 0))
		return -1;
	for (uint32_t i = n + 1; i-- > 0;) {
		bool caller = i ? true : pc_is_caller;

		if (append_frame(t, s, pid, i ? callers[i - 1] : pc, caller) < 0)
			return -1;
	}
	return 0;
}
