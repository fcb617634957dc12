/* inlines.c - the inline scopes of an address, from a DSO's DWARF with
 * libdw (see inlines.h). */
#include "inlines.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/grow.h"
#include "../common/idmap.h"
#include "demangle.h"

#define INLINED_MARK " (inlined)"

/* The inlined functions at one address: their abstract origins' DIE
 * offsets, outermost first. */
struct inline_chain {
	uint64_t addr;
	uint32_t n;
	uint64_t *origins;		/* NULL when n is 0 */
};

/* An abstract origin's names as shown, made when first asked. */
struct inline_name {
	uint64_t origin;
	char *shown[2];			/* [demangled] */
};

/* The address ranges of a CU's functions (its concrete DW_TAG_subprogram
 * entries, in namespaces too), sorted: made once per CU, so that an
 * address costs a search and a descent through the scopes that hold it,
 * not a walk of the whole CU (a C++ CU holds tens of thousands of DIEs of
 * declarations). */
struct func_range {
	uint64_t lo, hi;		/* DWARF addresses, hi exclusive */
	uint64_t die;			/* the subprogram's offset */
};

struct cu_funcs {
	uint64_t cu;			/* the CU DIE's offset */
	size_t n, cap;
	struct func_range *ranges;
};

struct dso_inlines {
	char *path;
	bool opened;			/* tried */
	Dwfl *dwfl;
	Dwfl_Module *module;		/* NULL: no DWARF */
	Dwarf *dwarf;
	Dwarf_Addr bias;		/* dwfl's address - the DWARF's */
	struct idmap chains;		/* low 32 bits of addr -> inline_chain */
	struct idmap names;		/* low 32 bits of origin -> inline_name */
	struct idmap cus;		/* low 32 bits of CU offset -> cu_funcs */
};

static const Dwfl_Callbacks offline_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

struct dso_inlines *dso_inlines_new(const char *path)
{
	struct dso_inlines *in = calloc(1, sizeof(*in));

	if (!in)
		return NULL;
	in->path = strdup(path);
	if (!in->path) {
		free(in);
		return NULL;
	}
	idmap_init(&in->chains, sizeof(struct inline_chain));
	idmap_init(&in->names, sizeof(struct inline_name));
	idmap_init(&in->cus, sizeof(struct cu_funcs));
	return in;
}

void dso_inlines_free(struct dso_inlines *in)
{
	struct inline_chain *c;
	struct inline_name *nm;
	struct cu_funcs *f;
	size_t pos = 0;

	if (!in)
		return;
	while ((c = idmap_next(&in->chains, &pos, NULL)))
		free(c->origins);
	pos = 0;
	while ((nm = idmap_next(&in->names, &pos, NULL))) {
		free(nm->shown[0]);
		free(nm->shown[1]);
	}
	pos = 0;
	while ((f = idmap_next(&in->cus, &pos, NULL)))
		free(f->ranges);
	idmap_free(&in->chains);
	idmap_free(&in->names);
	idmap_free(&in->cus);
	if (in->dwfl)
		dwfl_end(in->dwfl);
	free(in->path);
	free(in);
}

/* The file's DWARF, or its build-id debug file's, opened at the first
 * address asked; a file without either has no module. */
static void open_dwarf(struct dso_inlines *in)
{
	in->opened = true;
	in->dwfl = dwfl_begin(&offline_callbacks);
	if (!in->dwfl)
		return;
	dwfl_report_begin(in->dwfl);
	in->module = dwfl_report_offline(in->dwfl, "", in->path, -1);
	dwfl_report_end(in->dwfl, NULL, NULL);
	if (in->module)
		in->dwarf = dwfl_module_getdwarf(in->module, &in->bias);
	if (!in->dwarf)
		in->module = NULL;
}

static int add_ranges(Dwarf_Die *die, struct cu_funcs *f)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;

	while ((off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0) {
		if (GROW_ARRAY(f->ranges, f->cap, f->n + 1) < 0)
			return -1;
		f->ranges[f->n++] = (struct func_range){ lo, hi, dwarf_dieoffset(die) };
	}
	return 0;
}

static int collect_funcs(Dwarf_Die *parent, struct cu_funcs *f, int depth)
{
	Dwarf_Die child;

	if (depth > 64 || dwarf_child(parent, &child) != 0)
		return 0;
	do {
		int tag = dwarf_tag(&child);

		if (tag == DW_TAG_namespace && collect_funcs(&child, f, depth + 1) < 0)
			return -1;
		if (tag == DW_TAG_subprogram && add_ranges(&child, f) < 0)
			return -1;
	} while (dwarf_siblingof(&child, &child) == 0);
	return 0;
}

static int range_cmp(const void *a, const void *b)
{
	const struct func_range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* The function of cu holding DWARF address a, false when none. */
static bool function_at(struct dso_inlines *in, Dwarf_Die *cu, uint64_t a, Dwarf_Die *out)
{
	uint64_t off = dwarf_dieoffset(cu);
	bool created;
	struct cu_funcs *f = idmap_get(&in->cus, (uint32_t)off, &created);
	size_t lo = 0, hi;

	if (!f)
		return false;
	if (created) {
		f->cu = off;
		if (collect_funcs(cu, f, 0) < 0)
			f->n = 0;	/* out of memory: no inlined frames here */
		qsort(f->ranges, f->n, sizeof(*f->ranges), range_cmp);
	} else if (f->cu != off) {
		return false;	/* two CUs 4 GiB apart: not shown */
	}
	hi = f->n;
	while (lo < hi) {	/* the last range starting at or before a */
		size_t mid = lo + (hi - lo) / 2;

		if (f->ranges[mid].lo <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && a < f->ranges[lo - 1].hi && dwarf_offdie(in->dwarf, f->ranges[lo - 1].die, out);
}

/* The abstract origins of the inlined subroutines whose scopes hold addr,
 * outermost first (the innermost ones when there are more): a descent
 * from the function through the child scopes that hold it. */
static uint32_t scan_scopes(struct dso_inlines *in, uint64_t addr, uint64_t *origins)
{
	Dwarf_Addr bias;
	Dwarf_Die *cu = dwfl_module_addrdie(in->module, addr + in->bias, &bias);
	Dwarf_Die scope, child;
	uint64_t a = addr + in->bias - bias;
	uint32_t k = 0;
	bool deeper = true;

	if (!cu || !function_at(in, cu, a, &scope))
		return 0;
	for (int depth = 0; deeper && depth < 256; depth++) {
		deeper = false;
		if (dwarf_child(&scope, &child) != 0)
			break;
		do {
			int tag = dwarf_tag(&child);
			Dwarf_Attribute attr;
			Dwarf_Die origin;

			if ((tag != DW_TAG_inlined_subroutine && tag != DW_TAG_lexical_block) ||
			    dwarf_haspc(&child, a) != 1)
				continue;
			deeper = true;
			scope = child;
			if (tag != DW_TAG_inlined_subroutine ||
			    !dwarf_attr(&child, DW_AT_abstract_origin, &attr) ||
			    !dwarf_formref_die(&attr, &origin))
				break;
			if (k == INLINE_MAX_DEPTH)	/* keep the innermost */
				memmove(origins, origins + 1, --k * sizeof(*origins));
			origins[k++] = dwarf_dieoffset(&origin);
			break;
		} while (dwarf_siblingof(&child, &child) == 0);
	}
	return k;
}

/* addr's chain: kept once per address (an address whose low 32 bits
 * another one took is scanned again each time, into tmp). */
static const struct inline_chain *chain_at(struct dso_inlines *in, uint64_t addr,
					   struct inline_chain *tmp, uint64_t *buf)
{
	uint64_t found[INLINE_MAX_DEPTH];
	bool created;
	struct inline_chain *c = idmap_get(&in->chains, (uint32_t)addr, &created);
	uint32_t n;

	if (c && !created && c->addr == addr)
		return c;
	n = scan_scopes(in, addr, found);
	memcpy(buf, found, n * sizeof(*buf));
	if (c && created) {
		c->addr = addr;
		c->origins = n ? malloc(n * sizeof(*c->origins)) : NULL;
		c->n = n && c->origins ? n : 0;
		if (c->n)
			memcpy(c->origins, buf, n * sizeof(*buf));
	}
	*tmp = (struct inline_chain){ addr, n, buf };
	return tmp;
}

/* "NAME (inlined)": the linkage name (as the symbols are: demangled or
 * not), else DW_AT_name, of the origin DIE or what it completes. */
static char *make_name(struct dso_inlines *in, uint64_t origin, bool demangled)
{
	Dwarf_Attribute attr;
	Dwarf_Die die;
	const char *raw = NULL;
	char *plain = NULL, *shown;

	if (!dwarf_offdie(in->dwarf, origin, &die))
		return NULL;
	if (dwarf_attr_integrate(&die, DW_AT_linkage_name, &attr) ||
	    dwarf_attr_integrate(&die, DW_AT_MIPS_linkage_name, &attr))
		raw = dwarf_formstring(&attr);
	if (raw && demangled)
		plain = demangle(raw);
	if (!raw)
		raw = dwarf_diename(&die);
	if (!raw)
		return NULL;
	shown = malloc(strlen(plain ? plain : raw) + sizeof(INLINED_MARK));
	if (shown)
		sprintf(shown, "%s" INLINED_MARK, plain ? plain : raw);
	free(plain);
	return shown;
}

static const char *origin_name(struct dso_inlines *in, uint64_t origin, bool demangled)
{
	bool created;
	struct inline_name *nm = idmap_get(&in->names, (uint32_t)origin, &created);

	if (!nm)
		return NULL;
	if (created)
		nm->origin = origin;
	else if (nm->origin != origin)
		return NULL;	/* two DIEs 4 GiB apart: not shown */
	if (!nm->shown[demangled])
		nm->shown[demangled] = make_name(in, origin, demangled);
	return nm->shown[demangled];
}

size_t dso_inlines_at(struct dso_inlines *in, uint64_t addr, bool demangled,
		      const char **names)
{
	uint64_t buf[INLINE_MAX_DEPTH];
	struct inline_chain tmp;
	const struct inline_chain *c;
	size_t k = 0;

	if (!in->opened)
		open_dwarf(in);
	if (!in->module)
		return 0;
	c = chain_at(in, addr, &tmp, buf);
	for (uint32_t i = 0; i < c->n; i++) {
		const char *name = origin_name(in, c->origins[i], demangled);

		if (name)
			names[k++] = name;
	}
	return k;
}
