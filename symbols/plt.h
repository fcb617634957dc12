/* plt.h - names for the PLT stubs of an ELF file, as perf gives them.
 *
 * A sampled PC in a PLT stub (a call through the dynamic linker's jump
 * table) lies in no symbol of the ELF's tables; perf synthesizes one per
 * stub, "NAME@plt".  Here each x86-64 stub (.plt, .plt.sec, .plt.got) is
 * decoded to the GOT slot it jumps through and named after the relocation
 * of that slot: its symbol, or for an IRELATIVE slot the IFUNC at its
 * addend (else "*ABS*+0xADDEND", as objdump says).
 */
#ifndef SAMPLER_EXPORT_PLT_H
#define SAMPLER_EXPORT_PLT_H

#include <gelf.h>
#include <stddef.h>
#include <stdint.h>

#include "symtab.h"

struct plt_stub {
	uint64_t addr;			/* link-time address */
	uint64_t size;
	char *name;			/* "NAME@plt", malloc'd */
};

/* The stubs of elf (none on other machines or without a PLT): *stubs is
 * malloc'd, each name too.  syms (sorted or not) name IRELATIVE targets.
 * -1 when out of memory. */
int plt_stubs(Elf *elf, const struct elf_symbol *syms, size_t nsyms,
	      struct plt_stub **stubs, size_t *nstubs);

void plt_stubs_free(struct plt_stub *stubs, size_t n);

#endif
