/* plt.c - PLT stub names (plt.h). */
#include "plt.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/grow.h"

#define PLT_NAME_MAX 1024

/* One GOT slot a relocation fills: for a symbol, or an IFUNC's result. */
struct got_slot {
	uint64_t got;
	const char *symbol;		/* in the ELF's strings; NULL: IRELATIVE */
	uint64_t addend;
};

struct slots {
	struct got_slot *v;
	size_t n, cap;
};

static int slot_cmp(const void *a, const void *b)
{
	const struct got_slot *x = a, *y = b;

	return x->got < y->got ? -1 : x->got > y->got;
}

static Elf_Scn *section_named(Elf *elf, const char *name, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *n;

		if (!gelf_getshdr(scn, sh))
			continue;
		n = elf_strptr(elf, shstrndx, sh->sh_name);
		if (n && strcmp(n, name) == 0)
			return scn;
	}
	return NULL;
}

static int add_slot(struct slots *s, const struct got_slot *slot)
{
	if (GROW_ARRAY(s->v, s->cap, s->n + 1) < 0)
		return -1;
	s->v[s->n++] = *slot;
	return 0;
}

/* The GOT slots of one RELA section (.rela.plt or .rela.dyn). */
static int read_slots(Elf *elf, const char *section, struct slots *s)
{
	GElf_Shdr sh, dynsh;
	Elf_Scn *scn = section_named(elf, section, &sh), *dynscn;
	Elf_Data *rel, *dyn;

	if (!scn || sh.sh_type != SHT_RELA || !sh.sh_entsize)
		return 0;
	dynscn = elf_getscn(elf, sh.sh_link);
	if (!dynscn || !gelf_getshdr(dynscn, &dynsh))
		return 0;
	rel = elf_getdata(scn, NULL);
	dyn = elf_getdata(dynscn, NULL);
	if (!rel || !dyn)
		return 0;
	for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
		struct got_slot slot = { 0 };
		GElf_Rela r;
		GElf_Sym sym;
		unsigned type;

		if (!gelf_getrela(rel, (int)i, &r))
			break;
		type = GELF_R_TYPE(r.r_info);
		if (type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT &&
		    type != R_X86_64_IRELATIVE)
			continue;
		slot.got = r.r_offset;
		slot.addend = (uint64_t)r.r_addend;
		if (type != R_X86_64_IRELATIVE) {
			if (!gelf_getsym(dyn, (int)GELF_R_SYM(r.r_info), &sym))
				continue;
			slot.symbol = elf_strptr(elf, dynsh.sh_link, sym.st_name);
			if (!slot.symbol || !*slot.symbol)
				continue;
		}
		if (add_slot(s, &slot) < 0)
			return -1;
	}
	return 0;
}

/* The GOT slot an x86-64 stub jumps through: [endbr64] [bnd] jmp *disp(%rip). */
static uint64_t stub_slot(const unsigned char *p, size_t len, uint64_t addr)
{
	static const unsigned char endbr64[] = { 0xf3, 0x0f, 0x1e, 0xfa };
	size_t n = 0;
	int32_t disp;

	if (len >= sizeof(endbr64) && memcmp(p, endbr64, sizeof(endbr64)) == 0)
		n += sizeof(endbr64);
	if (n < len && p[n] == 0xf2)
		n++;
	if (n + 6 > len || p[n] != 0xff || p[n + 1] != 0x25)
		return 0;
	memcpy(&disp, p + n + 2, sizeof(disp));
	return addr + n + 6 + (uint64_t)(int64_t)disp;
}

static void slot_name(const struct got_slot *slot, const struct elf_symbol *syms, size_t nsyms,
		      char *buf, size_t size)
{
	if (slot->symbol) {
		snprintf(buf, size, "%s@plt", slot->symbol);
		return;
	}
	for (size_t i = 0; i < nsyms; i++) {
		if (syms[i].addr == slot->addend) {
			snprintf(buf, size, "%s@plt", syms[i].name);
			return;
		}
	}
	snprintf(buf, size, "*ABS*+0x%" PRIx64 "@plt", slot->addend);
}

struct stub_list {
	struct plt_stub *v;
	size_t n, cap;
};

static int add_stub(struct stub_list *l, uint64_t addr, uint64_t size, const char *name)
{
	if (GROW_ARRAY(l->v, l->cap, l->n + 1) < 0)
		return -1;
	l->v[l->n].name = strdup(name);
	if (!l->v[l->n].name)
		return -1;
	l->v[l->n].addr = addr;
	l->v[l->n].size = size;
	l->n++;
	return 0;
}

/* Every stub of one stub section whose slot a relocation names. */
static int scan_stubs(Elf *elf, const char *section, const struct slots *slots,
		      const struct elf_symbol *syms, size_t nsyms, struct stub_list *out)
{
	char name[PLT_NAME_MAX];
	GElf_Shdr sh;
	Elf_Scn *scn = section_named(elf, section, &sh);
	Elf_Data *data;
	size_t entsize;

	if (!scn || sh.sh_type != SHT_PROGBITS)
		return 0;
	data = elf_getdata(scn, NULL);
	entsize = sh.sh_entsize >= 8 ? sh.sh_entsize : 16;
	if (!data || !data->d_buf)
		return 0;
	for (size_t off = 0; off + entsize <= data->d_size; off += entsize) {
		struct got_slot key = { .got = stub_slot((const unsigned char *)data->d_buf + off,
							 entsize, sh.sh_addr + off) };
		const struct got_slot *slot;

		if (!key.got)
			continue;
		slot = bsearch(&key, slots->v, slots->n, sizeof(*slots->v), slot_cmp);
		if (!slot)
			continue;
		slot_name(slot, syms, nsyms, name, sizeof(name));
		if (add_stub(out, sh.sh_addr + off, entsize, name) < 0)
			return -1;
	}
	return 0;
}

int plt_stubs(Elf *elf, const struct elf_symbol *syms, size_t nsyms,
	      struct plt_stub **stubs, size_t *nstubs)
{
	static const char *const sections[] = { ".plt", ".plt.sec", ".plt.got" };
	struct slots slots = { 0 };
	struct stub_list out = { 0 };
	GElf_Ehdr eh;
	int ret = 0;

	*stubs = NULL;
	*nstubs = 0;
	if (!gelf_getehdr(elf, &eh) || eh.e_machine != EM_X86_64)
		return 0;
	if (read_slots(elf, ".rela.plt", &slots) < 0 || read_slots(elf, ".rela.dyn", &slots) < 0) {
		ret = -1;
		goto out;
	}
	if (!slots.n)
		goto out;
	qsort(slots.v, slots.n, sizeof(*slots.v), slot_cmp);
	for (size_t i = 0; i < sizeof(sections) / sizeof(sections[0]) && ret == 0; i++)
		ret = scan_stubs(elf, sections[i], &slots, syms, nsyms, &out);
	if (ret < 0) {
		plt_stubs_free(out.v, out.n);
		goto out;
	}
	*stubs = out.v;
	*nstubs = out.n;
out:
	free(slots.v);
	return ret;
}

void plt_stubs_free(struct plt_stub *stubs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(stubs[i].name);
	free(stubs);
}
