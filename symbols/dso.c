/* dso.c - which file holds a DSO's symbols, and its ELF read into a
 * symbol table as perf takes the symbols (see dso.h). */
#include "dso.h"

#include <gelf.h>
#include <inttypes.h>
#include <limits.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../common/error.h"
#include "../common/fdio.h"
#include "../common/grow.h"
#include "debugfile.h"
#include "plt.h"

#define ADDR_NAME_MAX 24
#define NAME_CHUNK 65536

struct addr_name {
	uint64_t addr;
	char *name;
};

struct dso *dso_new(const char *path, const uint8_t *id, size_t idlen,
		    const struct dso_stamp *stamp)
{
	struct dso *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	memcpy(d->build_id, id, idlen);
	d->build_id_len = idlen;
	d->stamp = *stamp;
	d->path = strdup(path);
	if (!d->path) {
		free(d);
		return NULL;
	}
	idmap_init(&d->addr_names, sizeof(struct addr_name));
	return d;
}

void dso_free(struct dso *d)
{
	for (size_t i = 0; d->demangled && i < d->table.nsymbols; i++)
		free(d->demangled[i]);
	free(d->demangled);
	idmap_free(&d->addr_names);
	for (size_t i = 0; i < d->nname_chunks; i++)
		free(d->name_chunks[i]);
	free(d->name_chunks);
	free(d->table.segments);
	free(d->table.symbols);
	free(d->table.names);
	dso_inlines_free(d->inlines);
	free(d->source);
	free(d->path);
	free(d);
}

/* Room for len bytes in d's name chunks, which never move. */
static char *chunk_room(struct dso *d, size_t len)
{
	if (!d->nname_chunks || d->chunk_used + len > NAME_CHUNK) {
		if (GROW_ARRAY(d->name_chunks, d->name_chunks_cap, d->nname_chunks + 1) < 0)
			return NULL;
		d->name_chunks[d->nname_chunks] = malloc(NAME_CHUNK);
		if (!d->name_chunks[d->nname_chunks])
			return NULL;
		d->nname_chunks++;
		d->chunk_used = 0;
	}
	d->chunk_used += len;
	return d->name_chunks[d->nname_chunks - 1] + d->chunk_used - len;
}

const char *dso_address_name(struct dso *d, uint64_t addr)
{
	char text[ADDR_NAME_MAX], *name;
	bool created;
	struct addr_name *an = idmap_get(&d->addr_names, (uint32_t)addr, &created);
	int len;

	if (an && !created && an->addr == addr)
		return an->name;
	len = snprintf(text, sizeof(text), "0x%" PRIx64, addr);
	name = chunk_room(d, (size_t)len + 1);
	if (!name) {
		if (an && created)
			idmap_remove(&d->addr_names, (uint32_t)addr);
		return SYMBOL_UNKNOWN;
	}
	memcpy(name, text, (size_t)len + 1);
	if (an && created) {
		an->addr = addr;
		an->name = name;
	}
	return name;
}

static size_t leading_underscores(const char *name)
{
	return strspn(name, "_");
}

/* Of aliases at one address, the one perf shows (its choose_best_symbol):
 * >0 when x is the better: non-weak over weak, global over local, fewer
 * leading underscores, then the longer name. */
static int alias_rank(const struct elf_symbol *x, const struct elf_symbol *y)
{
	if ((x->bind == STB_WEAK) != (y->bind == STB_WEAK))
		return x->bind == STB_WEAK ? -1 : 1;
	if ((x->bind == STB_GLOBAL) != (y->bind == STB_GLOBAL))
		return x->bind == STB_GLOBAL ? 1 : -1;
	if (leading_underscores(x->name) != leading_underscores(y->name))
		return leading_underscores(x->name) > leading_underscores(y->name) ? -1 : 1;
	return strlen(x->name) < strlen(y->name) ? -1 : strlen(x->name) > strlen(y->name);
}

/* perf keeps a symbol with a size over one without, then ranks aliases. */
static bool better_alias(const struct elf_symbol *x, const struct elf_symbol *y)
{
	bool x_sized = x->end > x->addr, y_sized = y->end > y->addr;

	if (x_sized != y_sized)
		return x_sized;
	return alias_rank(x, y) > 0;
}

static int read_segments(Elf *elf, struct symbol_table *t)
{
	size_t n;

	if (elf_getphdrnum(elf, &n) != 0)
		return -1;
	t->segments = calloc(n + 1, sizeof(*t->segments));
	if (!t->segments)
		return -1;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD)
			continue;
		t->segments[t->nsegments].offset = ph.p_offset;
		t->segments[t->nsegments].vaddr = ph.p_vaddr;
		t->segments[t->nsegments].filesz = ph.p_filesz;
		t->nsegments++;
	}
	return 0;
}

/* The entries of a symbol table that name code, as perf's dso__load_sym
 * takes them: functions, and labels - untyped, visible symbols in a text
 * section, such as ld.so's _start (the next symbol then bounds them). */
static bool code_symbol(Elf *elf, const GElf_Sym *sym, size_t shstrndx)
{
	int type = GELF_ST_TYPE(sym->st_info);
	int vis = GELF_ST_VISIBILITY(sym->st_other);
	const char *section;
	Elf_Scn *scn;
	GElf_Shdr sh;

	if (sym->st_shndx == SHN_UNDEF || sym->st_shndx >= SHN_LORESERVE)
		return false;
	if (type == STT_FUNC || type == STT_GNU_IFUNC)
		return true;
	if (type != STT_NOTYPE || vis == STV_HIDDEN || vis == STV_INTERNAL)
		return false;
	scn = elf_getscn(elf, sym->st_shndx);
	if (!scn || !gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC))
		return false;
	section = elf_strptr(elf, shstrndx, sh.sh_name);
	return section && strstr(section, "text");
}

/* The code symbols of one symbol table section, in table order. */
static int read_symtab(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, struct symbol_table *t)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t n, names_len = 0, names_used = 0, shstrndx = 0;

	if (!data || sh->sh_entsize == 0)
		return 0;
	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		shstrndx = 0;
	n = sh->sh_size / sh->sh_entsize;
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < n; i++) {
			GElf_Sym sym;
			const char *name;

			if (!gelf_getsym(data, i, &sym))
				break;
			if (!sym.st_name || !code_symbol(elf, &sym, shstrndx))
				continue;
			name = elf_strptr(elf, sh->sh_link, sym.st_name);
			if (!name || !name[0])
				continue;
			if (pass == 0) {
				names_len += strlen(name) + 1;
				t->nsymbols++;
				continue;
			}
			struct elf_symbol *es = &t->symbols[t->nsymbols++];

			es->addr = sym.st_value;
			es->end = sym.st_value + sym.st_size;
			es->bind = GELF_ST_BIND(sym.st_info);
			es->name = t->names + names_used;
			memcpy(t->names + names_used, name, strlen(name) + 1);
			names_used += strlen(name) + 1;
		}
		if (pass == 0) {
			t->symbols = calloc(t->nsymbols + 1, sizeof(*t->symbols));
			t->names = malloc(names_len + 1);
			if (!t->symbols || !t->names)
				return -1;
			t->nsymbols = 0;
		}
	}
	return 0;
}

static Elf_Scn *find_symtab(Elf *elf, GElf_Shdr *out)
{
	Elf_Scn *scn = NULL, *dynsym = NULL;
	GElf_Shdr sh, dynsh;

	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB) {
			*out = sh;
			return scn;
		}
		if (sh.sh_type == SHT_DYNSYM) {
			dynsym = scn;
			dynsh = sh;
		}
	}
	if (dynsym)
		*out = dynsh;
	return dynsym;
}

/* Read the function symbols of elf into t; true when they came from a full
 * .symtab (not just the exported .dynsym). */
static bool read_symbols(Elf *elf, struct symbol_table *t)
{
	Elf_Scn *scn;
	GElf_Shdr sh;

	free(t->symbols);
	free(t->names);
	t->symbols = NULL;
	t->names = NULL;
	t->nsymbols = 0;
	scn = find_symtab(elf, &sh);
	if (scn && read_symtab(elf, scn, &sh, t) < 0)
		t->nsymbols = 0;
	return scn && sh.sh_type == SHT_SYMTAB;
}

/* Distributions strip .symtab into a separate debug file found by build-id
 * (Debian's *-dbg / -dbgsym packages), builds by .gnu_debuglink
 * (debugfile.h); perf and gdb look there too, so do the same or local
 * functions, or all of them, would show as bare addresses. */
static void read_debug_symbols(const char *path, struct symbol_table *t)
{
	char debug[PATH_MAX];
	int fd;
	Elf *elf;

	if (debug_file_find(path, debug, sizeof(debug)) < 0)
		return;
	fd = open_regular(debug);
	if (fd < 0)
		return;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF) {
		struct symbol_table full = { 0 };

		/* Keep the stripped file's symbols unless the debug file has more. */
		if (read_symbols(elf, &full) && full.nsymbols > t->nsymbols) {
			free(t->symbols);
			free(t->names);
			t->symbols = full.symbols;
			t->names = full.names;
			t->nsymbols = full.nsymbols;
		} else {
			free(full.symbols);
			free(full.names);
		}
	}
	if (elf)
		elf_end(elf);
	close(fd);
}

struct symbol_order {
	uint64_t addr;
	size_t index;			/* in table order: equal addresses keep it */
};

static int order_cmp(const void *a, const void *b)
{
	const struct symbol_order *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/* Sort by address, keeping table order among equal addresses. */
static int sort_by_address(struct symbol_table *t)
{
	struct symbol_order *order = calloc(t->nsymbols, sizeof(*order));
	struct elf_symbol *sorted = calloc(t->nsymbols + 1, sizeof(*sorted));

	if (!order || !sorted) {
		free(order);
		free(sorted);
		return -1;
	}
	for (size_t i = 0; i < t->nsymbols; i++)
		order[i] = (struct symbol_order){ t->symbols[i].addr, i };
	qsort(order, t->nsymbols, sizeof(*order), order_cmp);
	for (size_t i = 0; i < t->nsymbols; i++)
		sorted[i] = t->symbols[order[i].index];
	free(order);
	free(t->symbols);
	t->symbols = sorted;
	return 0;
}

/* perf's rules, in perf's order (symbols__fixup_end, then
 * symbols__fixup_duplicate): a symbol without a size reaches to the next
 * one in address order (the last one to the end of the page after its
 * own); then of the symbols at one address only the one perf shows stays. */
static void sort_symbols(struct symbol_table *t)
{
	struct elf_symbol *s;
	size_t keep = 0;

	if (!t->nsymbols || sort_by_address(t) < 0) {
		t->nsymbols = 0;
		return;
	}
	s = t->symbols;
	for (size_t i = 0; i < t->nsymbols; i++) {
		if (s[i].end > s[i].addr)
			continue;
		s[i].end = i + 1 < t->nsymbols ? s[i + 1].addr : (s[i].addr | 4095) + 1 + 4096;
	}
	for (size_t i = 0; i < t->nsymbols; i++) {
		if (keep && s[keep - 1].addr == s[i].addr) {
			if (better_alias(&s[i], &s[keep - 1]))
				s[keep - 1] = s[i];
			continue;
		}
		s[keep++] = s[i];
	}
	t->nsymbols = keep;
}

/* The symbols and the PLT stubs in one table, their names in one block. */
static int merge_stubs(struct symbol_table *t, const struct plt_stub *stubs, size_t nstubs)
{
	struct elf_symbol *all = calloc(t->nsymbols + nstubs + 1, sizeof(*all));
	size_t len = 1, used = 0;
	char *names;

	for (size_t i = 0; i < t->nsymbols; i++)
		len += strlen(t->symbols[i].name) + 1;
	for (size_t i = 0; i < nstubs; i++)
		len += strlen(stubs[i].name) + 1;
	names = malloc(len);
	if (!all || !names) {
		free(all);
		free(names);
		return -1;
	}
	for (size_t i = 0; i < t->nsymbols + nstubs; i++) {
		const char *name = i < t->nsymbols ? t->symbols[i].name : stubs[i - t->nsymbols].name;

		if (i < t->nsymbols) {
			all[i] = t->symbols[i];
		} else {
			all[i].addr = stubs[i - t->nsymbols].addr;
			all[i].end = all[i].addr + stubs[i - t->nsymbols].size;
			all[i].bind = STB_GLOBAL;
		}
		all[i].name = names + used;
		memcpy(names + used, name, strlen(name) + 1);
		used += strlen(name) + 1;
	}
	free(t->symbols);
	free(t->names);
	t->symbols = all;
	t->names = names;
	t->nsymbols += nstubs;
	return 0;
}

/* perf names PLT stubs NAME@plt; the stubs are in the file itself (a
 * debug file keeps no PLT contents). */
static void add_plt_symbols(Elf *elf, struct symbol_table *t)
{
	struct plt_stub *stubs;
	size_t n;

	if (plt_stubs(elf, t->symbols, t->nsymbols, &stubs, &n) < 0 || !n)
		return;
	merge_stubs(t, stubs, n);	/* out of memory: the stubs stay unnamed */
	plt_stubs_free(stubs, n);
}

static void read_elf(Elf *elf, struct dso *d, const char *path)
{
	bool full;

	if (elf_kind(elf) != ELF_K_ELF || read_segments(elf, &d->table) < 0)
		return;
	full = read_symbols(elf, &d->table);
	if (!full && path)
		read_debug_symbols(path, &d->table);
	sort_symbols(&d->table);
	/* After the aliases are settled: an IFUNC stub takes the name perf
	 * would show at its target. */
	if (path) {
		add_plt_symbols(elf, &d->table);
		sort_symbols(&d->table);
	}
	d->readable = true;
}

/* [vdso] has no file: read this process's own vDSO, as perf does.  It is
 * copied first: libelf must not touch the kernel's read-only image. */
void dso_read_vdso(struct dso *d)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)getauxval(AT_SYSINFO_EHDR);
	size_t size;
	char *copy;
	Elf *elf;

	elf_version(EV_CURRENT);
	if (!eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64)
		return;
	size = eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
	copy = malloc(size);
	if (!copy)
		return;
	memcpy(copy, eh, size);
	elf = elf_memory(copy, size);
	if (elf) {
		read_elf(elf, d, NULL);
		elf_end(elf);
	}
	free(copy);
}

/* Is the file at path the one d recorded (or d recorded none)? */
static bool same_build_id(const struct dso *d, const char *path)
{
	unsigned char id[BUILD_ID_MAX];

	return !d->build_id_len || (elf_build_id(path, id) == d->build_id_len &&
				    memcmp(id, d->build_id, d->build_id_len) == 0);
}

static void hex_id(const struct dso *d, char *buf, size_t size)
{
	buf[0] = '\0';
	for (size_t i = 0; i < d->build_id_len && 2 * i + 2 < size; i++)
		snprintf(buf + 2 * i, size - 2 * i, "%02x", d->build_id[i]);
}

/* perf's build-id cache: $PERF_BUILDID_DIR, else ~/.debug, holds a copy
 * of each file perf record (or perf buildid-cache -a) saw, as
 * .build-id/NN/REST/elf.  -1 when there is no such directory. */
static int build_id_cache_path(const struct dso *d, char *buf, size_t size)
{
	const char *dir = getenv("PERF_BUILDID_DIR"), *home = getenv("HOME");
	char hex[2 * BUILD_ID_MAX + 1];
	int n;

	if (d->build_id_len < 2)
		return -1;
	hex_id(d, hex, sizeof(hex));
	if (dir && dir[0])
		n = snprintf(buf, size, "%s/.build-id/%.2s/%s/elf", dir, hex, hex + 2);
	else if (home && home[0])
		n = snprintf(buf, size, "%s/.debug/.build-id/%.2s/%s/elf", home, hex, hex + 2);
	else
		return -1;
	return n > 0 && (size_t)n < size ? 0 : -1;
}

/* A file without a build ID: is the one at path the one recorded (or
 * were its size and mtime not recorded)?  If not, its stamp in now. */
static bool same_stamp(const struct dso *d, const char *path, struct dso_stamp *now)
{
	struct stat st;
	int fd;

	if (!d->stamp.mtime_ns)
		return true;
	fd = open_regular(path);
	if (fd < 0)
		return true;	/* (no file: nothing to name wrongly) */
	*now = (struct dso_stamp){ 0 };
	if (fstat(fd, &st) == 0) {
		now->size = (uint64_t)st.st_size;
		now->mtime_ns = (uint64_t)st.st_mtim.tv_sec * 1000000000u +
				(uint64_t)st.st_mtim.tv_nsec;
	}
	close(fd);
	return now->size == d->stamp.size && now->mtime_ns == d->stamp.mtime_ns;
}

/* "2026-11-29 10:43:49.123456789" of a stamp's mtime, in local time. */
static void format_mtime(uint64_t ns, char *buf, size_t size)
{
	time_t sec = (time_t)(ns / 1000000000u);
	struct tm tm;
	size_t n = localtime_r(&sec, &tm) ? strftime(buf, size, "%Y-%m-%d %H:%M:%S", &tm) : 0;

	snprintf(buf + n, size - n, ".%09u", (unsigned)(ns % 1000000000u));
}

static const char *unstamped_source(const struct dso *d, const char *prog)
{
	char was[48], now_text[48];
	struct dso_stamp now;

	if (same_stamp(d, d->path, &now))
		return d->path;
	format_mtime(d->stamp.mtime_ns, was, sizeof(was));
	format_mtime(now.mtime_ns, now_text, sizeof(now_text));
	warn_print(prog, "%s: not the file that was recorded (%" PRIu64 " bytes, modified "
		   "%s; now %" PRIu64 " bytes, modified %s), and without a build ID no copy of "
		   "it can be found: its functions show as %s (keep the profiled build, or link "
		   "with a build ID: it is the default, unless -Wl,--build-id=none)",
		   d->path, d->stamp.size, was, now.size, now_text, SYMBOL_UNKNOWN);
	return NULL;
}

/* Another file's symbols would name the wrong functions (dso.h). */
const char *dso_source(const struct dso *d, const char *prog, char *buf, size_t size)
{
	char hex[2 * BUILD_ID_MAX + 1];

	if (!d->build_id_len)
		return unstamped_source(d, prog);
	if (same_build_id(d, d->path))
		return d->path;
	if (build_id_cache_path(d, buf, size) == 0 && same_build_id(d, buf))
		return buf;
	hex_id(d, hex, sizeof(hex));
	warn_print(prog, "%s: not the file that was recorded (build ID %s), and no copy in "
		   "the build-id cache: its functions show as %s (keep the profiled build, or "
		   "add it to the cache before replacing it: perf buildid-cache -a FILE)",
		   d->path, hex, SYMBOL_UNKNOWN);
	return NULL;
}

void dso_read_file(struct dso *d, const char *path)
{
	int fd = open_regular(path);
	Elf *elf;

	if (fd < 0)
		return;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf) {
		read_elf(elf, d, path);
		elf_end(elf);
	}
	close(fd);
}
