#include "symbols.h"

#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <limits.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/error.h"
#include "../common/idmap.h"
#include "demangle.h"
#include "export.h"
#include "perfmap.h"
#include "plt.h"
#include "symcache.h"

#define PC_CACHE_SLOTS 65536		/* power of two */
#define ADDR_NAME_MAX 24

struct dso {
	char *path;
	unsigned char build_id[BUILD_ID_MAX];	/* as recorded (0 bytes: none) */
	size_t build_id_len;
	bool loaded;
	bool readable;
	size_t nsegments;
	struct load_segment *segments;
	size_t nsymbols;
	struct elf_symbol *symbols;
	char *names;
	/* the demangled names of the symbols, made as they are first shown
	 * (nsymbols entries, NULL: not yet, or not mangled) */
	char **demangled;
	/* "0x..." names made for addresses no symbol covers, freed with the dso */
	char **addr_names;
	size_t naddr_names;
	struct dso *next;
};

struct mapping {
	uint64_t start;
	uint64_t end;
	uint64_t pgoff;
	struct dso *dso;
};

struct process_maps {
	size_t n;
	size_t cap;
	struct mapping *maps;
	/* /tmp/perf-PID.map, read at the first PC outside every mapping */
	bool jit_tried;
	struct perf_map *jit;
};

struct pc_cache_entry {
	uint64_t pc;
	uint64_t generation;
	uint32_t pid;
	const char *dso;
	const char *symbol;
};

struct symbolizer {
	struct dso *dsos;
	struct idmap processes;		/* pid -> struct process_maps */
	uint64_t generation;		/* bumped on every map change */
	struct pc_cache_entry *cache;
	char *symcache_dir;		/* NULL: no persistent symbol cache */
	bool demangle;			/* C++ and Rust names readable (demangle.h) */
};

struct symbolizer *symbolizer_new(void)
{
	struct symbolizer *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->cache = calloc(PC_CACHE_SLOTS, sizeof(*s->cache));
	if (!s->cache) {
		free(s);
		return NULL;
	}
	s->generation = 1;
	s->demangle = true;
	idmap_init(&s->processes, sizeof(struct process_maps));
	elf_version(EV_CURRENT);
	return s;
}

static void dso_free(struct dso *d)
{
	for (size_t i = 0; d->demangled && i < d->nsymbols; i++)
		free(d->demangled[i]);
	free(d->demangled);
	for (size_t i = 0; i < d->naddr_names; i++)
		free(d->addr_names[i]);
	free(d->addr_names);
	free(d->segments);
	free(d->symbols);
	free(d->names);
	free(d->path);
	free(d);
}

void symbolizer_free(struct symbolizer *s)
{
	struct process_maps *pm;
	size_t pos = 0;

	if (!s)
		return;
	while (s->dsos) {
		struct dso *next = s->dsos->next;

		dso_free(s->dsos);
		s->dsos = next;
	}
	while ((pm = idmap_next(&s->processes, &pos, NULL))) {
		free(pm->maps);
		perf_map_free(pm->jit);
	}
	idmap_free(&s->processes);
	free(s->cache);
	free(s->symcache_dir);
	free(s);
}

int symbolizer_set_cache(struct symbolizer *s, const char *dir)
{
	char *copy = dir ? strdup(dir) : NULL;

	if (dir && !copy)
		return -1;
	free(s->symcache_dir);
	s->symcache_dir = copy;
	return 0;
}

void symbolizer_set_demangle(struct symbolizer *s, bool on)
{
	s->demangle = on;
	s->generation++;	/* names cached by pc change */
}

/* One dso per file recorded: a path rebuilt during the run names two. */
static struct dso *dso_find(struct symbolizer *s, const char *path, const uint8_t *id,
			    size_t idlen)
{
	struct dso *d;

	if (idlen > BUILD_ID_MAX)
		idlen = 0;
	for (d = s->dsos; d; d = d->next)
		if (strcmp(d->path, path) == 0 && d->build_id_len == idlen &&
		    memcmp(d->build_id, id, idlen) == 0)
			return d;
	d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	memcpy(d->build_id, id, idlen);
	d->build_id_len = idlen;
	d->path = strdup(path);
	if (!d->path) {
		free(d);
		return NULL;
	}
	d->next = s->dsos;
	s->dsos = d;
	return d;
}

static int add_map(struct process_maps *pm, const struct mapping *m)
{
	size_t keep = 0;

	/* A new mapping replaces whatever it overlaps, as mmap(MAP_FIXED) does. */
	for (size_t i = 0; i < pm->n; i++) {
		if (pm->maps[i].end <= m->start || pm->maps[i].start >= m->end)
			pm->maps[keep++] = pm->maps[i];
	}
	pm->n = keep;
	if (pm->n == pm->cap) {
		size_t cap = pm->cap ? pm->cap * 2 : 16;
		struct mapping *maps = realloc(pm->maps, cap * sizeof(*maps));

		if (!maps)
			return -1;
		pm->maps = maps;
		pm->cap = cap;
	}
	pm->maps[pm->n++] = *m;
	return 0;
}

int symbolizer_add_map(struct symbolizer *s, const struct profile_map *m)
{
	struct process_maps *pm;
	struct mapping map;

	if (!m->path[0] || m->len == 0 || m->start + m->len < m->start)
		return 0;
	/* Code runs only in executable mappings: a PC in another one lies in
	 * memory mapped anew since the maps were read (a JIT's code where
	 * ld.so.cache was), so it is unknown, as in perf.data (perfdata.c
	 * writes executable maps only) and to the unwinder. */
	if (!(m->prot & PROT_EXEC))
		return 0;
	pm = idmap_get(&s->processes, m->pid, NULL);
	if (!pm)
		return -1;
	map.start = m->start;
	map.end = m->start + m->len;
	map.pgoff = m->pgoff;
	map.dso = dso_find(s, m->path, m->build_id, m->build_id_len);
	if (!map.dso)
		return -1;
	s->generation++;
	return add_map(pm, &map);
}

int symbolizer_fork(struct symbolizer *s, uint32_t pid, uint32_t ppid)
{
	struct process_maps *parent, *child;

	child = idmap_get(&s->processes, pid, NULL);
	if (!child)
		return -1;
	parent = idmap_find(&s->processes, ppid);	/* after get: it may move */
	if (!parent || parent == child || child->n || !parent->n)
		return 0;
	child->maps = malloc(parent->n * sizeof(*child->maps) + 1);
	if (!child->maps)
		return -1;
	memcpy(child->maps, parent->maps, parent->n * sizeof(*child->maps));
	child->n = child->cap = parent->n;
	s->generation++;
	return 0;
}

int open_regular(const char *path)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -1;
	}
	return fd;
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

static int read_segments(Elf *elf, struct dso *d)
{
	size_t n;

	if (elf_getphdrnum(elf, &n) != 0)
		return -1;
	d->segments = calloc(n + 1, sizeof(*d->segments));
	if (!d->segments)
		return -1;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD)
			continue;
		d->segments[d->nsegments].offset = ph.p_offset;
		d->segments[d->nsegments].vaddr = ph.p_vaddr;
		d->segments[d->nsegments].filesz = ph.p_filesz;
		d->nsegments++;
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
static int read_symtab(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, struct dso *d)
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
				d->nsymbols++;
				continue;
			}
			struct elf_symbol *es = &d->symbols[d->nsymbols++];

			es->addr = sym.st_value;
			es->end = sym.st_value + sym.st_size;
			es->bind = GELF_ST_BIND(sym.st_info);
			es->name = d->names + names_used;
			memcpy(d->names + names_used, name, strlen(name) + 1);
			names_used += strlen(name) + 1;
		}
		if (pass == 0) {
			d->symbols = calloc(d->nsymbols + 1, sizeof(*d->symbols));
			d->names = malloc(names_len + 1);
			if (!d->symbols || !d->names)
				return -1;
			d->nsymbols = 0;
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

/* Read the function symbols of elf into d; true when they came from a full
 * .symtab (not just the exported .dynsym). */
static bool read_symbols(Elf *elf, struct dso *d)
{
	Elf_Scn *scn;
	GElf_Shdr sh;

	free(d->symbols);
	free(d->names);
	d->symbols = NULL;
	d->names = NULL;
	d->nsymbols = 0;
	scn = find_symtab(elf, &sh);
	if (scn && read_symtab(elf, scn, &sh, d) < 0)
		d->nsymbols = 0;
	return scn && sh.sh_type == SHT_SYMTAB;
}

int build_id_debug_path(const unsigned char *id, size_t len, char *buf, size_t size)
{
	int n;

	if (len < 2 || size < BUILD_ID_DEBUG_PATH_MAX || len > BUILD_ID_MAX)
		return -1;
	n = snprintf(buf, size, "/usr/lib/debug/.build-id/%02x/", id[0]);
	for (size_t i = 1; i < len; i++)
		n += snprintf(buf + n, size - n, "%02x", id[i]);
	snprintf(buf + n, size - n, ".debug");
	return 0;
}

/* Distributions strip .symtab into a separate debug file found by build-id
 * (Debian's *-dbg / -dbgsym packages); perf and gdb look there too, so do
 * the same or libc's local functions would show as bare addresses. */
static void read_debug_symbols(const char *path, struct dso *d)
{
	unsigned char id[BUILD_ID_MAX];
	size_t len = elf_build_id(path, id);
	char debug[BUILD_ID_DEBUG_PATH_MAX];
	int fd;
	Elf *elf;

	if (build_id_debug_path(id, len, debug, sizeof(debug)) < 0)
		return;
	fd = open_regular(debug);
	if (fd < 0)
		return;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF) {
		struct dso full = { 0 };

		/* Keep the stripped file's symbols unless the debug file has more. */
		if (read_symbols(elf, &full) && full.nsymbols > d->nsymbols) {
			free(d->symbols);
			free(d->names);
			d->symbols = full.symbols;
			d->names = full.names;
			d->nsymbols = full.nsymbols;
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
static int sort_by_address(struct dso *d)
{
	struct symbol_order *order = calloc(d->nsymbols, sizeof(*order));
	struct elf_symbol *sorted = calloc(d->nsymbols + 1, sizeof(*sorted));

	if (!order || !sorted) {
		free(order);
		free(sorted);
		return -1;
	}
	for (size_t i = 0; i < d->nsymbols; i++)
		order[i] = (struct symbol_order){ d->symbols[i].addr, i };
	qsort(order, d->nsymbols, sizeof(*order), order_cmp);
	for (size_t i = 0; i < d->nsymbols; i++)
		sorted[i] = d->symbols[order[i].index];
	free(order);
	free(d->symbols);
	d->symbols = sorted;
	return 0;
}

/* perf's rules, in perf's order (symbols__fixup_end, then
 * symbols__fixup_duplicate): a symbol without a size reaches to the next
 * one in address order (the last one to the end of the page after its
 * own); then of the symbols at one address only the one perf shows stays. */
static void sort_symbols(struct dso *d)
{
	struct elf_symbol *s;
	size_t keep = 0;

	if (!d->nsymbols || sort_by_address(d) < 0) {
		d->nsymbols = 0;
		return;
	}
	s = d->symbols;
	for (size_t i = 0; i < d->nsymbols; i++) {
		if (s[i].end > s[i].addr)
			continue;
		s[i].end = i + 1 < d->nsymbols ? s[i + 1].addr : (s[i].addr | 4095) + 1 + 4096;
	}
	for (size_t i = 0; i < d->nsymbols; i++) {
		if (keep && s[keep - 1].addr == s[i].addr) {
			if (better_alias(&s[i], &s[keep - 1]))
				s[keep - 1] = s[i];
			continue;
		}
		s[keep++] = s[i];
	}
	d->nsymbols = keep;
}

/* The symbols and the PLT stubs in one table, their names in one block. */
static int merge_stubs(struct dso *d, const struct plt_stub *stubs, size_t nstubs)
{
	struct elf_symbol *all = calloc(d->nsymbols + nstubs + 1, sizeof(*all));
	size_t len = 1, used = 0;
	char *names;

	for (size_t i = 0; i < d->nsymbols; i++)
		len += strlen(d->symbols[i].name) + 1;
	for (size_t i = 0; i < nstubs; i++)
		len += strlen(stubs[i].name) + 1;
	names = malloc(len);
	if (!all || !names) {
		free(all);
		free(names);
		return -1;
	}
	for (size_t i = 0; i < d->nsymbols + nstubs; i++) {
		const char *name = i < d->nsymbols ? d->symbols[i].name : stubs[i - d->nsymbols].name;

		if (i < d->nsymbols) {
			all[i] = d->symbols[i];
		} else {
			all[i].addr = stubs[i - d->nsymbols].addr;
			all[i].end = all[i].addr + stubs[i - d->nsymbols].size;
			all[i].bind = STB_GLOBAL;
		}
		all[i].name = names + used;
		memcpy(names + used, name, strlen(name) + 1);
		used += strlen(name) + 1;
	}
	free(d->symbols);
	free(d->names);
	d->symbols = all;
	d->names = names;
	d->nsymbols += nstubs;
	return 0;
}

/* perf names PLT stubs NAME@plt; the stubs are in the file itself (a
 * debug file keeps no PLT contents). */
static void add_plt_symbols(Elf *elf, struct dso *d)
{
	struct plt_stub *stubs;
	size_t n;

	if (plt_stubs(elf, d->symbols, d->nsymbols, &stubs, &n) < 0 || !n)
		return;
	merge_stubs(d, stubs, n);	/* out of memory: the stubs stay unnamed */
	plt_stubs_free(stubs, n);
}

static void read_elf(Elf *elf, struct dso *d, const char *path)
{
	bool full;

	if (elf_kind(elf) != ELF_K_ELF || read_segments(elf, d) < 0)
		return;
	full = read_symbols(elf, d);
	if (!full && path)
		read_debug_symbols(path, d);
	sort_symbols(d);
	/* After the aliases are settled: an IFUNC stub takes the name perf
	 * would show at its target. */
	if (path) {
		add_plt_symbols(elf, d);
		sort_symbols(d);
	}
	d->readable = true;
}

/* [vdso] has no file: read this process's own vDSO, as perf does (it is
 * the recorded one when the export runs on the recording kernel).  It is
 * copied first: libelf must not touch the kernel's read-only image. */
static void vdso_load(struct dso *d)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)getauxval(AT_SYSINFO_EHDR);
	size_t size;
	char *copy;
	Elf *elf;

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

/* The persistent cache (symcache.h) holds exactly what read_elf makes. */
static bool dso_load_cached(struct dso *d, const char *dir, const struct symcache_key *key)
{
	struct symbol_table t;

	if (symcache_load(dir, key, &t) < 0)
		return false;
	d->nsegments = t.nsegments;
	d->segments = t.segments;
	d->nsymbols = t.nsymbols;
	d->symbols = t.symbols;
	d->names = t.names;
	d->readable = true;
	return true;
}

static void dso_store_cached(const struct dso *d, const char *dir,
			     const struct symcache_key *key)
{
	const struct symbol_table t = {
		.nsegments = d->nsegments, .segments = d->segments,
		.nsymbols = d->nsymbols, .symbols = d->symbols, .names = d->names,
	};

	if (d->readable)
		symcache_store(dir, key, &t);
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

/* The file to read d's symbols from: its path while that is the file the
 * profile recorded (same build ID), else the build-id cache's copy; NULL
 * (said once, naming the file) when neither is: another file's symbols
 * would name the wrong functions. */
static const char *dso_source(const struct dso *d, char *buf, size_t size)
{
	char hex[2 * BUILD_ID_MAX + 1];

	if (same_build_id(d, d->path))
		return d->path;
	if (build_id_cache_path(d, buf, size) == 0 && same_build_id(d, buf))
		return buf;
	hex_id(d, hex, sizeof(hex));
	warn_print(EXPORT_PROG, "%s: not the file that was recorded (build ID %s), and no copy in "
		   "the build-id cache: its functions show as %s (keep the profiled build, or "
		   "add it to the cache before replacing it: perf buildid-cache -a FILE)",
		   d->path, hex, SYMBOL_UNKNOWN);
	return NULL;
}

static void dso_load(struct dso *d, const char *cache_dir)
{
	char cached[PATH_MAX];
	struct symcache_key key;
	const char *source;
	bool cacheable;
	Elf *elf;
	int fd;

	d->loaded = true;
	if (strcmp(d->path, "[vdso]") == 0) {
		vdso_load(d);
		return;
	}
	source = dso_source(d, cached, sizeof(cached));
	if (!source)
		return;
	cacheable = cache_dir && symcache_key(source, &key) == 0;
	if (cacheable && dso_load_cached(d, cache_dir, &key))
		return;
	fd = open_regular(source);
	if (fd < 0)
		return;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf) {
		read_elf(elf, d, source);
		elf_end(elf);
	}
	close(fd);
	if (cacheable)
		dso_store_cached(d, cache_dir, &key);
}

static const struct elf_symbol *find_symbol(const struct dso *d, uint64_t addr)
{
	size_t lo = 0, hi = d->nsymbols;

	/* The last symbol starting at or before addr, else one a little before
	 * that reaches over it (a function holding another).  A symbol that
	 * stayed without a size covers its own address only, as in perf. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->symbols[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i-- > 0 && lo - i <= 8;) {
		if (addr < d->symbols[i].end || addr == d->symbols[i].addr)
			return &d->symbols[i];
	}
	return NULL;
}

static const char *address_name(struct dso *d, uint64_t addr)
{
	char **names = realloc(d->addr_names, (d->naddr_names + 1) * sizeof(*names));
	char *name;

	if (!names)
		return SYMBOL_UNKNOWN;
	d->addr_names = names;
	name = malloc(ADDR_NAME_MAX);
	if (!name)
		return SYMBOL_UNKNOWN;
	snprintf(name, ADDR_NAME_MAX, "0x%" PRIx64, addr);
	d->addr_names[d->naddr_names++] = name;
	return name;
}

/* The name sym is shown by: demangled once, kept with the dso. */
static const char *shown_name(struct dso *d, const struct elf_symbol *sym, bool demangled)
{
	size_t i = (size_t)(sym - d->symbols);

	if (!demangled || sym->name[0] != '_')
		return sym->name;
	if (!d->demangled) {
		d->demangled = calloc(d->nsymbols, sizeof(*d->demangled));
		if (!d->demangled)
			return sym->name;
	}
	if (!d->demangled[i])
		d->demangled[i] = demangle(sym->name);
	return d->demangled[i] ? d->demangled[i] : sym->name;
}

static const char *dso_symbol(struct dso *d, uint64_t file_offset, const char *cache_dir,
			      bool demangled)
{
	const struct elf_symbol *sym;

	if (!d->loaded)
		dso_load(d, cache_dir);
	if (!d->readable)
		return SYMBOL_UNKNOWN;
	for (size_t i = 0; i < d->nsegments; i++) {
		const struct load_segment *seg = &d->segments[i];
		uint64_t addr;

		if (file_offset < seg->offset || file_offset - seg->offset >= seg->filesz)
			continue;
		addr = file_offset - seg->offset + seg->vaddr;
		sym = find_symbol(d, addr);
		/* no symbol: the address as perf prints it, relative to the
		 * file (pc - map start + pgoff), not the link-time address */
		return sym ? shown_name(d, sym, demangled) : address_name(d, file_offset);
	}
	return SYMBOL_UNKNOWN;
}

static const struct mapping *find_mapping(const struct process_maps *pm, uint64_t pc)
{
	for (size_t i = pm->n; i-- > 0;)
		if (pc >= pm->maps[i].start && pc < pm->maps[i].end)
			return &pm->maps[i];
	return NULL;
}

/* A PC in no file mapping: JIT code, named by the JIT's perf map if it
 * wrote one.  The file is the recorded process's: a merge's ids (profile
 * i's pid p is i << 22 | p) keep the pid in their low 22 bits. */
static void jit_symbol(struct process_maps *pm, uint32_t pid, uint64_t pc, const char **dso,
		       const char **symbol)
{
	const char *name;

	if (!pm->jit_tried) {
		pm->jit_tried = true;
		pm->jit = perf_map_load(pid & ((1u << 22) - 1));
	}
	name = pm->jit ? perf_map_lookup(pm->jit, pc) : NULL;
	if (name) {
		*dso = perf_map_path(pm->jit);
		*symbol = name;
	}
}

void symbolizer_lookup(struct symbolizer *s, uint32_t pid, uint64_t pc,
		       const char **dso, const char **symbol)
{
	uint64_t h = (pc ^ ((uint64_t)pid << 32)) * 0x9e3779b97f4a7c15ull;
	struct pc_cache_entry *e = &s->cache[h >> 48 & (PC_CACHE_SLOTS - 1)];
	struct process_maps *pm;
	const struct mapping *m;

	if (e->generation == s->generation && e->pid == pid && e->pc == pc) {
		*dso = e->dso;
		*symbol = e->symbol;
		return;
	}
	*dso = *symbol = SYMBOL_UNKNOWN;
	pm = idmap_find(&s->processes, pid);
	m = pm ? find_mapping(pm, pc) : NULL;
	if (m) {
		*dso = m->dso->path;
		*symbol = dso_symbol(m->dso, pc - m->start + m->pgoff, s->symcache_dir,
				     s->demangle);
	} else if (pm || (pm = idmap_get(&s->processes, pid, NULL))) {
		jit_symbol(pm, pid, pc, dso, symbol);	/* (a process with no file map too) */
	}
	e->generation = s->generation;
	e->pid = pid;
	e->pc = pc;
	e->dso = *dso;
	e->symbol = *symbol;
}

static size_t note_build_id(Elf_Data *data, unsigned char id[BUILD_ID_MAX])
{
	size_t offset = 0, name_off, desc_off;
	GElf_Nhdr nh;

	while ((offset = gelf_getnote(data, offset, &nh, &name_off, &desc_off)) > 0) {
		const char *name = (const char *)data->d_buf + name_off;

		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    memcmp(name, "GNU", 4) == 0 && nh.n_descsz > 0) {
			size_t len = nh.n_descsz < BUILD_ID_MAX ? nh.n_descsz : BUILD_ID_MAX;

			memcpy(id, (const char *)data->d_buf + desc_off, len);
			return len;
		}
	}
	return 0;
}

size_t elf_build_id(const char *path, unsigned char id[BUILD_ID_MAX])
{
	Elf_Scn *scn = NULL;
	size_t len = 0;
	Elf *elf;
	int fd;

	elf_version(EV_CURRENT);
	fd = open_regular(path);
	if (fd < 0)
		return 0;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF) {
		while (!len && (scn = elf_nextscn(elf, scn))) {
			GElf_Shdr sh;
			Elf_Data *data;

			if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
				continue;
			data = elf_getdata(scn, NULL);
			if (data)
				len = note_build_id(data, id);
		}
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return len;
}
