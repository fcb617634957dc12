/* symtab.h - the symbolizer's table of one DSO: its PT_LOAD segments and
 * its code symbols, sorted.  dso.c reads it from the ELF file, symcache.c
 * keeps it on disk, symbols.c searches it, plt.c names stubs from it.
 */
#ifndef SAMPLER_EXPORT_SYMTAB_H
#define SAMPLER_EXPORT_SYMTAB_H

#include <stddef.h>
#include <stdint.h>

/* What the symbolizer shows for a DSO or symbol it cannot name. */
#define SYMBOL_UNKNOWN "[unknown]"

/* A PT_LOAD segment: file offset to link-time address. */
struct load_segment {
	uint64_t offset;
	uint64_t vaddr;
	uint64_t filesz;
};

/* A function symbol; the table keeps them sorted by address, of aliases
 * the one perf shows (dso.c). */
struct elf_symbol {
	uint64_t addr;
	uint64_t end;			/* exclusive */
	const char *name;		/* in the table's names */
	unsigned char bind;		/* STB_* */
};

/* What the symbolizer knows of one DSO (blocks from malloc). */
struct symbol_table {
	size_t nsegments;
	struct load_segment *segments;
	size_t nsymbols;
	struct elf_symbol *symbols;
	char *names;			/* the block the symbols' names lie in */
};

#endif
