/* symbols.c - the symbolizer: the maps of every process, and a PC looked
 * up in the table of the DSO mapped there (see symbols.h). */
#include "symbols.h"

#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "../common/grow.h"
#include "../common/idmap.h"
#include "demangle.h"
#include "dso.h"
#include "perfmap.h"
#include "symcache.h"

#define PC_CACHE_SLOTS 65536		/* power of two */

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
	uint64_t start_ns;	/* when it started (the profile's clock), 0: not known */
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
	struct idmap dso_by_path;	/* idmap_key_of_string(path) -> struct dso * */
	struct idmap processes;		/* pid -> struct process_maps */
	uint64_t generation;		/* bumped on every map change */
	struct pc_cache_entry *cache;
	char *symcache_dir;		/* NULL: no persistent symbol cache */
	bool demangle;			/* C++ and Rust names readable (demangle.h) */
	bool inlines;			/* inlined frames shown (inlines.h) */
	int64_t wall_offset_ns;		/* profile clock to wall clock, 0: not known */
	bool no_jit_maps;		/* the ids are no pids: no /tmp/perf-PID.map */
	const char *prog;		/* named in warnings */
};

struct symbolizer *symbolizer_new(const char *prog)
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
	s->prog = prog;
	s->demangle = true;
	s->inlines = true;
	idmap_init(&s->processes, sizeof(struct process_maps));
	idmap_init(&s->dso_by_path, sizeof(struct dso *));
	return s;
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
	idmap_free(&s->dso_by_path);
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

/* One dso per file recorded: a path rebuilt during the run names two.
 * Found by its path's hash: a loop of 200,000 commands, each its own
 * binary, made a list walk of every dso per map (quadratic). */
static struct dso *dso_find(struct symbolizer *s, const struct profile_map *m)
{
	struct dso_stamp stamp = { m->file_size, m->file_mtime_ns };
	size_t idlen = m->build_id_len <= BUILD_ID_MAX ? m->build_id_len : 0;
	struct dso **head, *d;

	if (idlen)	/* the build ID says which file it is */
		stamp = (struct dso_stamp){ 0 };
	head = idmap_get(&s->dso_by_path, idmap_key_of_string(m->path), NULL);
	if (!head)
		return NULL;
	for (d = *head; d; d = d->same_key)
		if (strcmp(d->path, m->path) == 0 && d->build_id_len == idlen &&
		    memcmp(d->build_id, m->build_id, idlen) == 0 &&
		    d->stamp.size == stamp.size && d->stamp.mtime_ns == stamp.mtime_ns)
			return d;
	d = dso_new(m->path, m->build_id, idlen, &stamp);
	if (!d)
		return NULL;
	d->next = s->dsos;
	s->dsos = d;
	d->same_key = *head;
	*head = d;
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
	if (GROW_ARRAY(pm->maps, pm->cap, pm->n + 1) < 0)
		return -1;
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
	map.dso = dso_find(s, m);
	if (!map.dso)
		return -1;
	s->generation++;
	return add_map(pm, &map);
}

/* A forked process inherits its parent's maps. */
static int inherit_maps(struct symbolizer *s, uint32_t pid, uint32_t ppid)
{
	struct process_maps *parent, *child;

	child = idmap_find(&s->processes, pid);
	parent = idmap_find(&s->processes, ppid);
	if (!child || !parent || parent == child || child->n || !parent->n)
		return 0;
	child->maps = malloc(parent->n * sizeof(*child->maps) + 1);
	if (!child->maps)
		return -1;
	memcpy(child->maps, parent->maps, parent->n * sizeof(*child->maps));
	child->n = child->cap = parent->n;
	s->generation++;
	return 0;
}

int symbolizer_add_process(struct symbolizer *s, const struct profile_process *p)
{
	struct process_maps *pm = idmap_get(&s->processes, p->pid, NULL);

	if (!pm)
		return -1;
	/* without its start recorded, the first time the profile knew it */
	pm->start_ns = p->start_ns ? p->start_ns : p->time_ns;
	return p->ppid ? inherit_maps(s, p->pid, p->ppid) : 0;
}

void symbolizer_set_clock(struct symbolizer *s, uint64_t realtime_ns, uint64_t monotonic_ns)
{
	s->wall_offset_ns = realtime_ns ? (int64_t)(realtime_ns - monotonic_ns) : 0;
}

/* The persistent cache (symcache.h) holds exactly what dso_read_file makes. */
static void dso_load(const struct symbolizer *s, struct dso *d)
{
	const char *cache_dir = s->symcache_dir;
	char cached[PATH_MAX];
	struct symcache_key key;
	const char *source;
	bool cacheable;

	d->loaded = true;
	if (strcmp(d->path, "[vdso]") == 0) {
		dso_read_vdso(d);
		return;
	}
	source = dso_source(d, s->prog, cached, sizeof(cached));
	if (!source)
		return;
	d->source = strdup(source);	/* (no inlined frames when out of memory) */
	cacheable = cache_dir && symcache_key(source, &key) == 0;
	if (cacheable && symcache_load(cache_dir, &key, &d->table) == 0) {
		d->readable = true;
		return;
	}
	dso_read_file(d, source);
	if (cacheable && d->readable)
		symcache_store(cache_dir, &key, &d->table);
}

/* The link-time address of file offset off in d, false when no PT_LOAD
 * segment holds it. */
static bool link_address(const struct dso *d, uint64_t off, uint64_t *addr)
{
	for (size_t i = 0; i < d->table.nsegments; i++) {
		const struct load_segment *seg = &d->table.segments[i];

		if (off < seg->offset || off - seg->offset >= seg->filesz)
			continue;
		*addr = off - seg->offset + seg->vaddr;
		return true;
	}
	return false;
}

static const struct elf_symbol *find_symbol(const struct symbol_table *t, uint64_t addr)
{
	size_t lo = 0, hi = t->nsymbols;

	/* The last symbol starting at or before addr, else one a little before
	 * that reaches over it (a function holding another).  A symbol that
	 * stayed without a size covers its own address only, as in perf. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->symbols[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i-- > 0 && lo - i <= 8;) {
		if (addr < t->symbols[i].end || addr == t->symbols[i].addr)
			return &t->symbols[i];
	}
	return NULL;
}

/* The name sym is shown by: demangled once, kept with the dso. */
static const char *shown_name(struct dso *d, const struct elf_symbol *sym, bool demangled)
{
	size_t i = (size_t)(sym - d->table.symbols);

	if (!demangled || sym->name[0] != '_')
		return sym->name;
	if (!d->demangled) {
		d->demangled = calloc(d->table.nsymbols, sizeof(*d->demangled));
		if (!d->demangled)
			return sym->name;
	}
	if (!d->demangled[i])
		d->demangled[i] = demangle(sym->name);
	return d->demangled[i] ? d->demangled[i] : sym->name;
}

static const char *dso_symbol(const struct symbolizer *s, struct dso *d, uint64_t file_offset,
			      bool demangled)
{
	const struct elf_symbol *sym;
	uint64_t addr;

	if (!d->loaded)
		dso_load(s, d);
	if (!d->readable || !link_address(d, file_offset, &addr))
		return SYMBOL_UNKNOWN;
	sym = find_symbol(&d->table, addr);
	/* no symbol: the address as perf prints it, relative to the file
	 * (pc - map start + pgoff), not the link-time address */
	return sym ? shown_name(d, sym, demangled) : dso_address_name(d, file_offset);
}

static const struct mapping *find_mapping(const struct process_maps *pm, uint64_t pc)
{
	for (size_t i = pm->n; i-- > 0;)
		if (pc >= pm->maps[i].start && pc < pm->maps[i].end)
			return &pm->maps[i];
	return NULL;
}

void symbolizer_set_jit_maps(struct symbolizer *s, bool on)
{
	s->no_jit_maps = !on;
}

/* A PC in no file mapping: JIT code, named by the JIT's perf map if it
 * wrote one.  The file is the recorded process's: a merge's ids (profile
 * i's pid p is i << 22 | p) keep the pid in their low 22 bits (a merge
 * of more profiles numbers its ids: symbolizer_set_jit_maps). */
static void jit_symbol(const struct symbolizer *s, struct process_maps *pm, uint32_t pid,
		       uint64_t pc, const char **dso, const char **symbol)
{
	const char *name;

	if (!pm->jit_tried) {
		uint64_t start = pm->start_ns && s->wall_offset_ns ?
				 (uint64_t)((int64_t)pm->start_ns + s->wall_offset_ns) : 0;

		pm->jit_tried = true;
		if (!s->no_jit_maps)
			pm->jit = perf_map_load(pid & ((1u << 22) - 1), start, s->prog);
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
		*symbol = dso_symbol(s, m->dso, pc - m->start + m->pgoff,
				     s->demangle);
	} else if (pm || (pm = idmap_get(&s->processes, pid, NULL))) {
		jit_symbol(s, pm, pid, pc, dso, symbol);	/* (a process with no file map too) */
	}
	e->generation = s->generation;
	e->pid = pid;
	e->pc = pc;
	e->dso = *dso;
	e->symbol = *symbol;
}

bool symbolizer_mapping(struct symbolizer *s, uint32_t pid, uint64_t pc,
			struct symbol_mapping *out)
{
	const struct process_maps *pm = idmap_find(&s->processes, pid);
	const struct mapping *m = pm ? find_mapping(pm, pc) : NULL;

	if (!m)
		return false;
	out->start = m->start;
	out->end = m->end;
	out->pgoff = m->pgoff;
	out->path = m->dso->path;
	out->build_id = m->dso->build_id;
	out->build_id_len = m->dso->build_id_len;
	return true;
}

void symbolizer_set_inlines(struct symbolizer *s, bool on)
{
	s->inlines = on;
}

size_t symbolizer_inlines(struct symbolizer *s, uint32_t pid, uint64_t pc, bool caller,
			  const char **names)
{
	struct process_maps *pm;
	const struct mapping *m;
	uint64_t addr;

	if (!s->inlines)
		return 0;
	/* a return address: the call is the instruction before it */
	if (caller && pc)
		pc--;
	pm = idmap_find(&s->processes, pid);
	m = pm ? find_mapping(pm, pc) : NULL;
	if (!m)
		return 0;
	if (!m->dso->loaded)
		dso_load(s, m->dso);
	if (!m->dso->readable || !m->dso->source ||
	    !link_address(m->dso, pc - m->start + m->pgoff, &addr))
		return 0;
	if (!m->dso->inlines && !(m->dso->inlines = dso_inlines_new(m->dso->source)))
		return 0;
	return dso_inlines_at(m->dso->inlines, addr, s->demangle, names);
}
