/* unwind.c - frame-pointer and DWARF (libdwfl) unwinding of stack copies.
 *
 * DWARF: one Dwfl per process, built from its maps the first time one of
 * its threads is unwound and kept until its maps change: every executable
 * file mapping is reported with dwfl_report_elf at the load bias its
 * program headers give, the vDSO from a memory file holding the sampler's
 * own (the same kernel maps the same image into every process).  The Dwfl
 * is attached (dwfl_attach_state) with callbacks that serve the thread
 * being unwound: its registers, and memory from its stack copy only.  CFI
 * parsed for a module stays with the Dwfl, so a process pays for it once.
 * At most UNWIND_PROCS processes are kept; the least recently used goes.
 * Every module holds its file open: those descriptors share the budget of
 * the descriptors kept open (procfs_keep_fd), and the least recently used
 * processes' modules are closed to make room for a new one's.
 */
#include "unwind.h"

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Processes whose Dwfl is kept (each holds the CFI of its libraries). */
#define UNWIND_PROCS 32

/* The thread being unwound: what the callbacks read and fill. */
struct unwind_job {
	const struct unwind_regs *regs;
	const struct unwind_stack *stack;
	const struct map_list *maps;
	Dwfl *dwfl;
	uint64_t *frames;
	unsigned n, max;
	bool leaf_seen;		/* the first frame is the sample's own PC */
	bool max_hit;
	bool read_failed;	/* a read outside the copy */
	bool read_past_copy;	/* a read above the copy, inside the stack */
	bool junk;		/* a return address pointing at no code ended it */
	enum profile_stack_end junk_end;	/* and why that frame was junk */
	uint64_t callee_pc, callee_sp;	/* the frame cb_frame saw last */
	/* fp mode's first step (cb_first_caller): the caller's frame */
	bool caller_found;
	uint64_t caller_pc, caller_fp;
	bool caller_exact;	/* an interrupted PC (signal frame), not a return address */
};

struct unwind_proc {
	pid_t pid;		/* 0: free */
	uint64_t used;		/* LRU stamp */
	Dwfl *dwfl;		/* NULL: could not be built (then failed) */
	bool failed;
	bool files_missing;	/* a module left out for want of descriptors */
	struct unwind_job *job;
};

struct unwinder {
	enum unwind_mode mode;
	unsigned max_frames;
	uint64_t clock;
	struct unwind_proc procs[UNWIND_PROCS];
	int vdso_fd;		/* memfd with the sampler's vDSO image, or -1 */
	uint64_t vdso_len;
	uint64_t files_refused;	/* no descriptor for a module's file */
	bool last_short;	/* the last stack ended at such a file */
	Dwfl_Callbacks callbacks;
};

/* ---- frame pointers --------------------------------------------------- */

static bool stack_word(const struct unwind_stack *s, uint64_t addr, uint64_t *out)
{
	if (addr < s->start || addr - s->start > s->len || s->len - (addr - s->start) < 8)
		return false;
	memcpy(out, s->data + (addr - s->start), 8);
	return true;
}

/* Is the frame at fp above the copy but inside the stack's mapping? */
static bool beyond_copy(const struct unwind_stack *s, uint64_t addr)
{
	uint64_t copy_end = s->start + s->len;

	return addr >= copy_end - 16 && (!s->end || addr < s->end);
}

/* Code at pc: in an executable mapping, and is that a file's? */
static bool executable(const struct map_list *maps, uint64_t pc, bool *file)
{
	const struct map_entry *m = map_list_find(maps, pc);

	if (!m || !(m->prot & PROT_EXEC))
		return false;
	*file &= m->path[0] == '/' || strcmp(m->path, "[vdso]") == 0;
	return true;
}

/* ---- what the CFI says about a PC ------------------------------------ */

/* The CFI row of pc (from .eh_frame, else .debug_frame): malloc'd, or
 * NULL when no FDE covers pc. */
static Dwarf_Frame *cfi_row(Dwfl *dwfl, Dwarf_Addr pc)
{
	Dwfl_Module *mod = dwfl_addrmodule(dwfl, pc);
	Dwarf_Frame *frame;
	Dwarf_Addr bias;
	Dwarf_CFI *cfi;

	if (!mod)
		return NULL;
	cfi = dwfl_module_eh_cfi(mod, &bias);
	if (cfi && dwarf_cfi_addrframe(cfi, pc - bias, &frame) == 0)
		return frame;
	cfi = dwfl_module_dwarf_cfi(mod, &bias);
	if (cfi && dwarf_cfi_addrframe(cfi, pc - bias, &frame) == 0)
		return frame;
	return NULL;
}

static bool has_cfi(Dwfl *dwfl, Dwarf_Addr pc)
{
	Dwarf_Frame *frame = cfi_row(dwfl, pc);

	free(frame);
	return frame != NULL;
}

/* Does the CFI mark pc as a thread's outermost code (return address
 * undefined: _start, clone's and clone3's thread start)? */
static bool outermost_code(Dwfl *dwfl, Dwarf_Addr pc)
{
	Dwarf_Frame *frame = cfi_row(dwfl, pc);
	Dwarf_Op ops_mem[3], *ops;
	size_t nops;
	bool undefined;

	if (!frame)
		return false;
	undefined = dwarf_frame_register(frame, UNWIND_REG_PC, ops_mem, &ops, &nops) == 0 &&
		    nops == 0 && ops == ops_mem;
	free(frame);
	return undefined;
}

/* n bytes of the code at pc, from its module's file. */
static bool code_bytes(Dwfl *dwfl, Dwarf_Addr pc, uint8_t *out, size_t n)
{
	Dwfl_Module *mod = dwfl_addrmodule(dwfl, pc);
	Dwarf_Addr off = pc, bias;
	Elf_Scn *scn = mod ? dwfl_module_address_section(mod, &off, &bias) : NULL;
	Elf_Data *data = scn ? elf_getdata(scn, NULL) : NULL;

	if (!data || !data->d_buf || off > data->d_size || data->d_size - off < n)
		return false;
	memcpy(out, (const uint8_t *)data->d_buf + off, n);
	return true;
}

/* Right after the system call of clone or clone3, in the child or in the
 * parent.  There glibc ends the parent's CFI before the syscall
 * instruction (the child must not be unwound into the parent's frame) and
 * begins the child's at thread_start; clone.S and clone3.S go on with
 *	test %rax,%rax; jl error; jz thread_start; ret
 * whose thread_start's CFI marks the return address undefined.  The
 * child (rax 0) is at its outermost frame: its stack is new and empty,
 * and libdwfl would read a junk caller from it.  The parent has pushed
 * nothing: its caller's return address is at the stack pointer. */
enum after_clone {
	NOT_AFTER_CLONE,
	CLONE_CHILD,
	CLONE_PARENT,
};

static enum after_clone after_clone(Dwfl *dwfl, const struct unwind_regs *regs)
{
	uint64_t pc = regs->r[UNWIND_REG_PC], target;
	uint8_t code[2 + 3 + 6 + 6];
	size_t i = 5;

	if (pc < 2 || !code_bytes(dwfl, pc - 2, code, sizeof(code)))
		return NOT_AFTER_CLONE;
	if (code[0] != 0x0f || code[1] != 0x05 ||			/* syscall */
	    code[2] != 0x48 || code[3] != 0x85 || code[4] != 0xc0)	/* test %rax,%rax */
		return NOT_AFTER_CLONE;
	if (code[i] == 0x7c)						/* jl rel8 */
		i += 2;
	else if (code[i] == 0x0f && code[i + 1] == 0x8c)		/* jl rel32 */
		i += 6;
	else
		return NOT_AFTER_CLONE;
	if (code[i] == 0x74) {						/* jz rel8 */
		target = pc - 2 + i + 2 + (uint64_t)(int64_t)(int8_t)code[i + 1];
	} else if (i + 6 <= sizeof(code) && code[i] == 0x0f && code[i + 1] == 0x84) {
		int32_t rel;

		memcpy(&rel, code + i + 2, 4);
		target = pc - 2 + i + 6 + (uint64_t)(int64_t)rel;
	} else {
		return NOT_AFTER_CLONE;
	}
	if (!outermost_code(dwfl, target))
		return NOT_AFTER_CLONE;
	return regs->r[0] == 0 ? CLONE_CHILD : CLONE_PARENT;
}

/* ---- libdwfl callbacks ------------------------------------------------ */

static pid_t cb_next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	if (*thread_argp)
		return 0;
	*thread_argp = arg;
	return dwfl_pid(dwfl);
}

/* Any tid of the process: the one being unwound. */
static bool cb_get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	(void)dwfl;
	(void)tid;
	*thread_argp = arg;
	return true;
}

static bool cb_memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct unwind_job *job = ((struct unwind_proc *)arg)->job;
	uint64_t word;

	(void)dwfl;
	if (stack_word(job->stack, addr, &word)) {
		*result = word;
		return true;
	}
	job->read_failed = true;
	if (beyond_copy(job->stack, addr))
		job->read_past_copy = true;
	return false;
}

static bool cb_set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	struct unwind_job *job = ((struct unwind_proc *)arg)->job;

	return dwfl_thread_state_registers(thread, 0, UNWIND_NREGS, job->regs->r);
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
	.next_thread = cb_next_thread,
	.get_thread = cb_get_thread,
	.memory_read = cb_memory_read,
	.set_initial_registers = cb_set_initial_registers,
};

/* A program's entry point (_start, e_entry) is its outermost frame, CFI
 * or not: the dynamic loader's has none, so its start-up stacks ended
 * "no-cfi" where they were complete.  pc is inside _start's call, a few
 * bytes into it (the loader's: at 7; gcc's crt1: at about 36). */
#define ENTRY_CALL_WINDOW 64
static bool entry_point(Dwfl *dwfl, uint64_t pc)
{
	Dwfl_Module *mod = dwfl_addrmodule(dwfl, pc);
	Dwarf_Addr bias;
	GElf_Ehdr ehdr;
	Elf *elf;

	if (!mod || !(elf = dwfl_module_getelf(mod, &bias)) || !gelf_getehdr(elf, &ehdr) ||
	    !ehdr.e_entry)
		return false;
	return pc >= ehdr.e_entry + bias && pc < ehdr.e_entry + bias + ENTRY_CALL_WINDOW;
}

/* The caller of code in no file (a JIT's: no CFI), which libdwfl found
 * through rbp as V8 and HotSpot keep it: a frame only if the frame
 * pointer led up the stack, to an aligned address inside it. */
static bool jit_caller_valid(const struct unwind_job *job, Dwfl_Frame *state)
{
	Dwarf_Word sp;

	if (dwfl_addrmodule(job->dwfl, job->callee_pc))
		return true;	/* a file's code: CFI, or the junk test below */
	return dwfl_frame_reg(state, UNWIND_REG_SP, &sp) == 0 && sp > job->callee_sp &&
	       !(sp & 7) && (!job->stack->end || sp <= job->stack->end);
}

/* Each frame after the first: keep its PC (inside the call instruction,
 * unless the frame was interrupted, as by a signal).  A return address
 * that points at no code is not a caller: libdwfl took it from a stack
 * slot that held something else (it read rbp as a frame pointer where the
 * code had no CFI, or a new thread's CFI read its empty stack).  It ends
 * the stack, for the reason its callee gives. */
static int cb_frame(Dwfl_Frame *state, void *arg)
{
	struct unwind_job *job = arg;
	bool activation, file = true;
	Dwarf_Word sp = 0;
	Dwarf_Addr pc;

	if (!dwfl_frame_pc(state, &pc, &activation))
		return DWARF_CB_ABORT;
	if (!job->leaf_seen) {
		job->leaf_seen = true;
		job->callee_pc = pc;
		job->callee_sp = job->regs->r[UNWIND_REG_SP];
		return DWARF_CB_OK;
	}
	if (!activation)
		pc--;
	if (!jit_caller_valid(job, state)) {
		job->junk = true;
		job->junk_end = PROFILE_STACK_BAD_FRAME;
		return DWARF_CB_ABORT;
	}
	if (!executable(job->maps, pc, &file)) {
		uint64_t callee = job->n ? job->frames[job->n - 1] : job->regs->r[UNWIND_REG_PC];

		/* Read through rbp where the callee has no CFI: a guess.
		 * Otherwise the code there was mapped after the recorder
		 * read the maps (the engine reads them again), or is
		 * anonymous memory the maps do not show as code. */
		job->junk = true;
		if (entry_point(job->dwfl, callee))
			job->junk_end = PROFILE_STACK_COMPLETE;
		else
			job->junk_end = dwfl_addrmodule(job->dwfl, callee) && !has_cfi(job->dwfl, callee) ?
					PROFILE_STACK_NO_CFI : PROFILE_STACK_UNKNOWN_MAP;
		return DWARF_CB_ABORT;
	}
	if (job->n == job->max) {
		job->max_hit = true;
		return DWARF_CB_ABORT;
	}
	job->frames[job->n++] = pc;
	job->callee_pc = pc;
	if (dwfl_frame_reg(state, UNWIND_REG_SP, &sp) == 0)
		job->callee_sp = sp;
	return DWARF_CB_OK;
}

/* ---- modules from maps ------------------------------------------------ */

/* The load bias of the file mapped by m: the address of its first byte
 * minus the link-time address there, from the PT_LOAD that maps pgoff.
 * An executable (ET_EXEC) is only where it was linked: a copy of its
 * pages elsewhere (node remaps V8's builtins) is not reported, for
 * libdwfl places the file at its link addresses whatever the bias, finds
 * the module reported there already, and drops it as an overlap. */
static bool load_bias(Elf *elf, const struct map_entry *m, uint64_t *bias)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	GElf_Ehdr ehdr;
	size_t phnum;

	if (!gelf_getehdr(elf, &ehdr) || elf_getphdrnum(elf, &phnum) != 0)
		return false;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if ((ph.p_offset & ~(page - 1)) == m->pgoff) {
			*bias = m->start - (ph.p_vaddr & ~(page - 1));
			return ehdr.e_type != ET_EXEC || *bias == 0;
		}
	}
	return false;
}

static void proc_release(struct unwind_proc *p)
{
	if (p->dwfl)
		dwfl_end(p->dwfl);
	memset(p, 0, sizeof(*p));
}

/* Close the modules of the least recently used process other than keep:
 * false when there is none. */
static bool release_oldest(struct unwinder *u, const struct unwind_proc *keep)
{
	struct unwind_proc *oldest = NULL;

	for (size_t i = 0; i < UNWIND_PROCS; i++) {
		struct unwind_proc *q = &u->procs[i];

		if (q != keep && q->dwfl && (!oldest || q->used < oldest->used))
			oldest = q;
	}
	if (!oldest)
		return false;
	proc_release(oldest);
	return true;
}

/* A descriptor for a module of p: path opened, or (path NULL) the vDSO
 * image's.  Kept only within the descriptor budget, for which other
 * processes' modules are closed, least recently used first; -1 when even
 * that leaves no room (counted), or the file cannot be opened. */
static int open_module_file(struct unwinder *u, const struct unwind_proc *p, const char *path)
{
	for (;;) {
		int fd = path ? open(path, O_RDONLY | O_CLOEXEC) : dup(u->vdso_fd);

		if (fd < 0 && errno != EMFILE && errno != ENFILE)
			return -1;
		if (procfs_keep_fd(fd) >= 0)
			return fd;
		if (!release_oldest(u, p)) {
			u->files_refused++;
			return -1;
		}
	}
}

static void report_file(struct unwinder *u, const struct unwind_proc *p, Dwfl *dwfl,
			const struct map_entry *m)
{
	int fd = open_module_file(u, p, m->path);
	const char *name = strrchr(m->path, '/');
	struct stat sb;
	uint64_t bias;
	bool ok;
	Elf *elf;

	if (fd < 0)
		return;
	if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode) || sb.st_ino != m->inode) {
		close(fd);	/* not the file that was mapped (replaced since) */
		return;
	}
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	ok = elf && load_bias(elf, m, &bias);
	elf_end(elf);
	/* On success the module owns fd. */
	if (!ok || !dwfl_report_elf(dwfl, name ? name + 1 : m->path, m->path, fd, bias, true))
		close(fd);
}

static void report_vdso(struct unwinder *u, const struct unwind_proc *p, Dwfl *dwfl,
			const struct map_entry *m)
{
	int fd;

	if (u->vdso_fd < 0 || m->end - m->start != u->vdso_len)
		return;		/* not our image (a 32-bit process) */
	fd = open_module_file(u, p, NULL);
	if (fd >= 0 && !dwfl_report_elf(dwfl, "[vdso]", "[vdso]", fd, m->start, true))
		close(fd);
}

static void report_modules(struct unwinder *u, const struct unwind_proc *p, Dwfl *dwfl,
			   const struct map_list *maps)
{
	const char *last = NULL;

	for (size_t i = 0; i < maps->n; i++) {
		const struct map_entry *m = &maps->maps[i];

		if (!(m->prot & PROT_EXEC))
			continue;
		if (strcmp(m->path, "[vdso]") == 0)
			report_vdso(u, p, dwfl, m);
		else if (m->path[0] == '/' && (!last || strcmp(last, m->path) != 0))
			report_file(u, p, dwfl, m);
		last = m->path;
	}
}

/* No separate debug files: CFI comes from the mapped files themselves
 * (.eh_frame, or .debug_frame of an unstripped file).  libdw tries debug
 * files for any PC without an FDE (a new thread's first instruction in
 * clone3 has none, by design), and opening libc's from libc6-dbg
 * decompresses all of its DWARF: half a second and 100 MB per process. */
static int no_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
			const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
			char **debuginfo_file_name)
{
	(void)mod;
	(void)userdata;
	(void)modname;
	(void)base;
	(void)file_name;
	(void)debuglink_file;
	(void)debuglink_crc;
	(void)debuginfo_file_name;
	return -1;
}

static Dwfl *proc_build(struct unwinder *u, struct unwind_proc *p, const struct map_list *maps)
{
	Dwfl *dwfl = dwfl_begin(&u->callbacks);

	if (!dwfl)
		return NULL;
	dwfl_report_begin(dwfl);
	report_modules(u, p, dwfl, maps);
	if (dwfl_report_end(dwfl, NULL, NULL) != 0 ||
	    !dwfl_attach_state(dwfl, NULL, p->pid, &thread_callbacks, p)) {
		dwfl_end(dwfl);
		return NULL;
	}
	return dwfl;
}

/* The cached state of pid, built when absent (the least recently used
 * entry makes room). */
static struct unwind_proc *proc_get(struct unwinder *u, pid_t pid, const struct map_list *maps)
{
	struct unwind_proc *p = NULL, *oldest = &u->procs[0];

	for (size_t i = 0; i < UNWIND_PROCS; i++) {
		struct unwind_proc *q = &u->procs[i];

		if (q->pid == pid) {
			p = q;
			break;
		}
		if (q->used < oldest->used)
			oldest = q;
	}
	if (!p) {
		uint64_t refused = u->files_refused;

		p = oldest;
		proc_release(p);
		p->pid = pid;
		p->dwfl = proc_build(u, p, maps);
		p->failed = !p->dwfl;
		p->files_missing = u->files_refused != refused;
	}
	p->used = ++u->clock;
	return p;
}

/* Is pc in a file of p's that has no module for want of descriptors?
 * Then a stack that ends there ends for that want. */
static bool in_missing_file(const struct unwind_proc *p, const struct map_list *maps, uint64_t pc)
{
	bool file = true;

	return p->files_missing && executable(maps, pc, &file) && file &&
	       (p->failed || !dwfl_addrmodule(p->dwfl, pc));
}

/* The registers of the caller of a frame that pushed nothing: its
 * return address at the stack pointer, which pops it. */
static bool clone_parent_caller(const struct unwind_regs *regs, const struct unwind_stack *s,
				const struct map_list *maps, struct unwind_regs *caller)
{
	bool file = true;
	uint64_t ret;

	if (!stack_word(s, regs->r[UNWIND_REG_SP], &ret) || !executable(maps, ret, &file))
		return false;
	*caller = *regs;
	caller->r[UNWIND_REG_PC] = ret;
	caller->r[UNWIND_REG_SP] += 8;
	return true;
}

/* ---- DWARF ------------------------------------------------------------ */

/* How a stack that libdwfl did not follow to its outermost frame ended:
 * at the innermost frame it could not get past. */
static enum profile_stack_end dwarf_cut(const struct unwind_job *job)
{
	uint64_t last = job->n ? job->frames[job->n - 1] : job->regs->r[UNWIND_REG_PC];

	if (job->max_hit)
		return PROFILE_STACK_MAX_DEPTH;
	if (job->read_past_copy)
		return PROFILE_STACK_COPY_SHORT;
	if (job->junk)
		return job->junk_end;
	if (!dwfl_addrmodule(job->dwfl, last))
		return PROFILE_STACK_UNKNOWN_MAP;
	if (entry_point(job->dwfl, last))
		return PROFILE_STACK_COMPLETE;
	/* CFI there, yet no way on: what it read made no frame */
	return has_cfi(job->dwfl, last) ? PROFILE_STACK_BAD_FRAME : PROFILE_STACK_NO_CFI;
}

static unsigned unwind_dwarf(struct unwinder *u, pid_t pid, const struct map_list *maps,
			     const struct unwind_regs *regs, const struct unwind_stack *s,
			     uint64_t *frames, enum profile_stack_end *end)
{
	struct unwind_proc *p = proc_get(u, pid, maps);
	struct unwind_job job = {
		.regs = regs, .stack = s, .maps = maps, .frames = frames, .max = u->max_frames,
	};
	struct unwind_regs caller;
	int rc;

	if (p->failed) {
		*end = PROFILE_STACK_UNKNOWN_MAP;	/* no module at all */
		u->last_short = in_missing_file(p, maps, regs->r[UNWIND_REG_PC]);
		return 0;
	}
	job.dwfl = p->dwfl;
	switch (after_clone(p->dwfl, regs)) {
	case CLONE_CHILD:
		*end = PROFILE_STACK_COMPLETE;
		return 0;
	case CLONE_PARENT:
		/* go on from the caller, as from an interrupted frame */
		if (!clone_parent_caller(regs, s, maps, &caller) || !job.max) {
			*end = job.max ? PROFILE_STACK_BAD_FRAME : PROFILE_STACK_MAX_DEPTH;
			return 0;
		}
		frames[job.n++] = caller.r[UNWIND_REG_PC] - 1;
		job.regs = &caller;
		break;
	case NOT_AFTER_CLONE:
		break;
	}
	p->job = &job;
	rc = dwfl_getthread_frames(p->dwfl, pid, cb_frame, &job);
	p->job = NULL;
	/* A stack that reached a frame whose return address is undefined
	 * (rc 0: _start, a thread's start) is complete, through code in no
	 * file too: libdwfl follows a JIT's frames through rbp (V8 and
	 * HotSpot keep it).  But libdwfl also ends a stack so, quietly, when
	 * it cannot read a return address. */
	if (rc == 0 && !job.max_hit && !job.junk && !job.read_failed)
		*end = PROFILE_STACK_COMPLETE;
	else
		*end = dwarf_cut(&job);
	if (*end == PROFILE_STACK_UNKNOWN_MAP)
		u->last_short = in_missing_file(p, maps, job.n ? frames[job.n - 1] :
						job.regs->r[UNWIND_REG_PC]);
	return job.n;
}

/* ---- frame pointers, after a first step with CFI --------------------- */

/* The caller of the sampled PC, from the CFI of the function the PC is in:
 * the frame-pointer chain does not hold it while that function has no
 * frame of its own (a leaf gcc built without one even with
 * -fno-omit-frame-pointer, a prologue, the vDSO's clock read): its rbp is
 * still the caller's, and walking it skips the caller. */
static int cb_first_caller(Dwfl_Frame *state, void *arg)
{
	struct unwind_job *job = arg;
	Dwarf_Word fp;
	Dwarf_Addr pc;
	bool activation;

	if (!job->leaf_seen) {
		job->leaf_seen = true;
		return DWARF_CB_OK;
	}
	if (dwfl_frame_pc(state, &pc, &activation) && dwfl_frame_reg(state, UNWIND_REG_FP, &fp) == 0) {
		job->caller_found = true;
		job->caller_pc = pc;
		job->caller_fp = fp;
		job->caller_exact = activation;
	}
	return DWARF_CB_ABORT;
}

static bool first_caller_cfi(struct unwind_proc *p, struct unwind_job *job)
{
	if (!has_cfi(p->dwfl, job->regs->r[UNWIND_REG_PC]))
		return false;
	job->dwfl = p->dwfl;
	p->job = job;
	dwfl_getthread_frames(p->dwfl, p->pid, cb_first_caller, job);
	p->job = NULL;
	return job->caller_found;
}

/* x86-64 frames: [fp] the caller's fp, [fp + 8] the return address.  The
 * first caller comes from CFI where the sampled PC has some (then the
 * walk goes on from the rbp the CFI gives the caller), so that a function
 * without a frame of its own keeps its caller; the others from the chain.
 * The walk ends where the chain does (fp 0: _start and clone clear it),
 * and stops at anything that cannot be a frame of this stack.  A sampled
 * PC in no file (a JIT's code) has no CFI: the chain gives its callers,
 * as it does to a JIT that keeps frame pointers (V8, HotSpot). */
static unsigned unwind_fp(struct unwinder *u, pid_t pid, const struct map_list *maps,
			  const struct unwind_regs *regs, const struct unwind_stack *s,
			  uint64_t *frames, enum profile_stack_end *end)
{
	struct unwind_job job = { .regs = regs, .stack = s, .maps = maps };
	uint64_t fp = regs->r[UNWIND_REG_FP], next, ret;
	enum after_clone clone;
	struct unwind_regs caller;
	struct unwind_proc *p;
	bool in_files = true;
	unsigned n = 0;

	*end = PROFILE_STACK_COMPLETE;
	if (!executable(maps, regs->r[UNWIND_REG_PC], &in_files)) {
		*end = PROFILE_STACK_UNKNOWN_MAP;
		return 0;
	}
	p = in_files ? proc_get(u, pid, maps) : NULL;
	clone = p && !p->failed ? after_clone(p->dwfl, regs) : NOT_AFTER_CLONE;
	if (clone == CLONE_CHILD)
		return 0;
	if (clone == CLONE_PARENT && clone_parent_caller(regs, s, maps, &caller)) {
		job.caller_found = true;
		job.caller_pc = caller.r[UNWIND_REG_PC];
		job.caller_fp = caller.r[UNWIND_REG_FP];
	}
	if (job.caller_found || (p && !p->failed && first_caller_cfi(p, &job))) {
		ret = job.caller_pc - !job.caller_exact;
		if (!executable(maps, ret, &in_files)) {
			*end = PROFILE_STACK_UNKNOWN_MAP;	/* maps newer than ours */
			return 0;
		}
		if (u->max_frames == 0) {
			*end = PROFILE_STACK_MAX_DEPTH;
			return 0;
		}
		frames[n++] = ret;
		fp = job.caller_fp;
	}
	while (fp) {
		if ((fp & 7) || fp < s->start) {
			*end = PROFILE_STACK_BAD_FRAME;
			break;
		}
		if (!stack_word(s, fp, &next) || !stack_word(s, fp + 8, &ret)) {
			*end = beyond_copy(s, fp) ? PROFILE_STACK_COPY_SHORT : PROFILE_STACK_BAD_FRAME;
			break;
		}
		if (!ret)
			break;
		if (!executable(maps, ret, &in_files)) {
			*end = PROFILE_STACK_BAD_FRAME;
			break;
		}
		if (n == u->max_frames) {
			*end = PROFILE_STACK_MAX_DEPTH;
			break;
		}
		frames[n++] = ret - 1;
		if (next && next <= fp) {
			*end = PROFILE_STACK_BAD_FRAME;
			break;
		}
		fp = next;
	}
	return n;
}

/* ---- set-up ----------------------------------------------------------- */

/* A memory file with the sampler's own vDSO, which the kernel maps into
 * every process of the same ABI: libdwfl reads its CFI from there. */
static void vdso_open(struct unwinder *u)
{
	const void *image = (const void *)getauxval(AT_SYSINFO_EHDR);
	struct map_list self;
	const struct map_entry *m;
	int fd;

	u->vdso_fd = -1;
	if (!image || procfs_read_maps(getpid(), &self, NULL) < 0)
		return;
	m = map_list_find(&self, (uint64_t)(uintptr_t)image);
	if (m && strcmp(m->path, "[vdso]") == 0) {
		fd = memfd_create("sampler-vdso", MFD_CLOEXEC);
		if (fd >= 0 && write(fd, image, m->end - m->start) == (ssize_t)(m->end - m->start)) {
			u->vdso_fd = fd;
			u->vdso_len = m->end - m->start;
		} else if (fd >= 0) {
			close(fd);
		}
	}
	map_list_free(&self);
}

struct unwinder *unwinder_new(enum unwind_mode mode, unsigned max_frames)
{
	struct unwinder *u = calloc(1, sizeof(*u));

	if (!u)
		return NULL;
	u->mode = mode;
	u->max_frames = max_frames < PROFILE_MAX_FRAMES ? max_frames : PROFILE_MAX_FRAMES;
	u->vdso_fd = -1;
	/* Modules come with their files (reported with a descriptor). */
	u->callbacks = (Dwfl_Callbacks){
		.find_elf = dwfl_build_id_find_elf,
		.find_debuginfo = no_debuginfo,
		.section_address = dwfl_offline_section_address,
	};
	/* fp mode takes a stack's first caller from CFI too */
	elf_version(EV_CURRENT);
	vdso_open(u);
	return u;
}

void unwinder_free(struct unwinder *u)
{
	if (!u)
		return;
	for (size_t i = 0; i < UNWIND_PROCS; i++)
		proc_release(&u->procs[i]);
	if (u->vdso_fd >= 0)
		close(u->vdso_fd);
	free(u);
}

void unwinder_forget(struct unwinder *u, pid_t pid)
{
	for (size_t i = 0; i < UNWIND_PROCS; i++)
		if (u->procs[i].pid == pid)
			proc_release(&u->procs[i]);
}

bool unwinder_last_short_of_files(const struct unwinder *u)
{
	return u->last_short;
}

unsigned unwind_thread(struct unwinder *u, pid_t pid, const struct map_list *maps,
		       const struct unwind_regs *regs, const struct unwind_stack *stack,
		       uint64_t *frames, enum profile_stack_end *end)
{
	u->last_short = false;
	if (u->mode == UNWIND_FP)
		return unwind_fp(u, pid, maps, regs, stack, frames, end);
	return unwind_dwarf(u, pid, maps, regs, stack, frames, end);
}
