/* inlines.h - the functions inlined at an address of one DSO, from its
 * DWARF (libdw), as perf report --inline shows them.
 *
 * The scopes of an address (dwarf_getscopes over the CU DIE holding it)
 * list, innermost first, the DW_TAG_inlined_subroutine entries down to the
 * function's own DW_TAG_subprogram; each is named by its abstract origin
 * (the linkage name, demangled as the symbols are, else DW_AT_name) and
 * shown "NAME (inlined)", perf's mark.  The DWARF is that of the file the
 * symbols came from, else its build-id debug file (/usr/lib/debug), found
 * by libdwfl; a file without either has no inlined frames.
 *
 * Each address is looked up once and kept with its DSO (memory grows with
 * the distinct addresses an export meets, not with its samples); the DWARF
 * itself is mapped, not read into memory.  The persistent symbol cache
 * (symcache.h) does not hold inline scopes: they are read from the DWARF
 * in every export that shows them.
 */
#ifndef SAMPLER_EXPORT_INLINES_H
#define SAMPLER_EXPORT_INLINES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* At most this many inlined functions are shown per frame (the innermost
 * ones are kept). */
#define INLINE_MAX_DEPTH 16

struct dso_inlines;

/* The inline scopes of the ELF file at path (NULL: out of memory). */
struct dso_inlines *dso_inlines_new(const char *path);
void dso_inlines_free(struct dso_inlines *in);

/* The functions inlined at link-time address addr, outermost first, in
 * names (INLINE_MAX_DEPTH entries): their count, 0 when none (or no
 * DWARF, or out of memory).  The names live as long as in. */
size_t dso_inlines_at(struct dso_inlines *in, uint64_t addr, bool demangled,
		      const char **names);

#endif
