/* dso.h - one file the profile maps, and its ELF read into a symbol table.
 *
 * The symbols are read from the file that was recorded: the path while it
 * has the recorded build ID, else perf's build-id cache's copy; a file
 * without a build ID while it has the recorded size and mtime.  Of an ELF
 * file, the code symbols are taken as perf takes them: functions and text
 * labels (.symtab, else .dynsym, else the build-id debug file's); a symbol
 * without a size reaches to the next one (ld.so's _start); of aliases, the
 * one perf shows; PLT stubs are NAME@plt (plt.h).
 */
#ifndef SAMPLER_EXPORT_DSO_H
#define SAMPLER_EXPORT_DSO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../common/buildid.h"
#include "../common/idmap.h"
#include "inlines.h"
#include "symtab.h"

/* A file's size and modification time (mtime_ns 0: not recorded). */
struct dso_stamp {
	uint64_t size, mtime_ns;
};

struct dso {
	char *path;
	unsigned char build_id[BUILD_ID_MAX];	/* as recorded (0 bytes: none) */
	size_t build_id_len;
	struct dso_stamp stamp;		/* as recorded */
	bool loaded;			/* read, or tried */
	bool readable;			/* table holds the file's segments */
	struct symbol_table table;
	char *source;			/* the file read (dso_source), NULL: none */
	struct dso_inlines *inlines;	/* its inline scopes, made when first asked */
	/* the demangled names of the symbols, made as they are first shown
	 * (table.nsymbols entries, NULL: not yet, or not mangled) */
	char **demangled;
	/* "0x..." names of addresses no symbol covers (dso_address_name):
	 * one per address, found by its low 32 bits (a file over 4 GiB may
	 * have two addresses with the same: the second is not kept, its name
	 * made again when asked), the text in chunks that never move */
	struct idmap addr_names;
	char **name_chunks;
	size_t nname_chunks, name_chunks_cap, chunk_used;
	struct dso *next;
	struct dso *same_key;		/* the symbolizer's next dso of its path's key */
};

/* A dso for path as recorded with build ID id (idlen over BUILD_ID_MAX:
 * none) and stamp, not yet read; NULL when out of memory. */
struct dso *dso_new(const char *path, const uint8_t *id, size_t idlen,
		    const struct dso_stamp *stamp);
void dso_free(struct dso *d);

/* The name of file offset addr where no symbol covers it, "0x<addr>" as
 * perf prints it: made once per address and freed with d, so that an
 * export's memory grows with the addresses it meets, not with its
 * samples; SYMBOL_UNKNOWN when out of memory. */
const char *dso_address_name(struct dso *d, uint64_t addr);

/* The file to read d's symbols from: d->path while it is the file the
 * profile recorded (same build ID; without one, same size and mtime
 * where recorded), else the build-id cache's copy (in buf); NULL, with
 * one warning naming the file (from prog), when neither is. */
const char *dso_source(const struct dso *d, const char *prog, char *buf, size_t size);

/* Read the ELF file at path, or this process's vDSO (the "[vdso]" map:
 * the recorded one when the export runs on the recording kernel), into
 * d->table; d->readable when its segments were read. */
void dso_read_file(struct dso *d, const char *path);
void dso_read_vdso(struct dso *d);

#endif
