/* symbols.h - PC to (DSO, function) with elfutils' libelf.
 *
 * The symbolizer follows the maps of every process as the profile states
 * them and resolves a PC the way perf does: the map gives the file offset
 * (pc - start + pgoff), the ELF's PT_LOAD headers turn that into the
 * link-time address, and the code symbols (.symtab, else .dynsym, else
 * the build-id debug file) name it, taken as perf takes them: functions
 * and text labels; a symbol without a size reaches to the next one (ld.so's
 * _start); of aliases, the one perf shows; PLT stubs are NAME@plt (plt.h).
 * This handles executables, PIE and shared libraries alike, whatever the
 * load bias.  Each DSO is read once (dso.h, through the persistent cache
 * of symcache.h); each (pid, pc) is resolved once.
 */
#ifndef SAMPLER_EXPORT_SYMBOLS_H
#define SAMPLER_EXPORT_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../profile/profile.h"
#include "inlines.h"
#include "symtab.h"

struct symbolizer;

/* prog: the program named in the warnings of its lookups. */
struct symbolizer *symbolizer_new(const char *prog);
void symbolizer_free(struct symbolizer *s);

/* Keep each DSO's symbol table in the persistent cache in dir (symcache.h);
 * NULL (the default) turns it off.  -1 when out of memory. */
int symbolizer_set_cache(struct symbolizer *s, const char *dir);

/* Show C++ and Rust names demangled (the default, as perf does) or as the
 * symbol table has them (--no-demangle). */
void symbolizer_set_demangle(struct symbolizer *s, bool on);

/* Follow the profile: a new mapping (replaces what it overlaps), a new
 * process (a forked one inherits its parent's maps; its start tells its
 * JIT map from one an earlier process with its pid left, perfmap.h).
 * -1 when out of memory. */
int symbolizer_add_map(struct symbolizer *s, const struct profile_map *m);
int symbolizer_add_process(struct symbolizer *s, const struct profile_process *p);

/* The profile's clock (its host record's realtime_ns and monotonic_ns),
 * to compare a process's start with a file's mtime. */
void symbolizer_set_clock(struct symbolizer *s, uint64_t realtime_ns, uint64_t monotonic_ns);

/* Read JIT runtimes' /tmp/perf-PID.map files (the default) or not: the
 * ids of a merge of more than MERGE_ID_RANGES profiles hold no pid. */
void symbolizer_set_jit_maps(struct symbolizer *s, bool on);

/* Resolve pc in process pid.  *dso is the map's path or SYMBOL_UNKNOWN;
 * *symbol the function, "0x<address>" when no symbol covers it (the
 * address in the file, pc - map start + pgoff, as perf prints it), or
 * SYMBOL_UNKNOWN.  The strings live as long as the symbolizer. */
void symbolizer_lookup(struct symbolizer *s, uint32_t pid, uint64_t pc,
		       const char **dso, const char **symbol);

/* The file mapping holding pc in process pid, as the profile stated it,
 * with its DSO's path and recorded build ID (the strings live as long as
 * the symbolizer); false when pc is in none. */
struct symbol_mapping {
	uint64_t start, end, pgoff;
	const char *path;
	const unsigned char *build_id;
	size_t build_id_len;		/* 0: none recorded */
};
bool symbolizer_mapping(struct symbolizer *s, uint32_t pid, uint64_t pc,
			struct symbol_mapping *out);

/* Show the functions inlined at a frame's PC (the default, as perf report
 * does) or not (--no-inline). */
void symbolizer_set_inlines(struct symbolizer *s, bool on);

/* The functions inlined at pc in process pid into the function
 * symbolizer_lookup names there, outermost first, each "NAME (inlined)"
 * (inlines.h), in names (INLINE_MAX_DEPTH entries): their count, 0
 * without inlined frames shown, DWARF or inlining there.  caller: pc is a
 * return address, and the call before it is looked up.  The strings live
 * as long as the symbolizer. */
size_t symbolizer_inlines(struct symbolizer *s, uint32_t pid, uint64_t pc, bool caller,
			  const char **names);

#endif
