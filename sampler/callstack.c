/* callstack.c - the recorder's side of call stacks: options, the copy
 * taken while a thread is stopped, and unwinding once it runs again. */
#include "callstack.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <time.h>

#include "../common/grow.h"

/* One thread's copy: registers, and the top of its stack. */
struct slot {
	bool readable;
	bool carried;			/* not copied: the stack is the thread's memo */
	bool counted;			/* unwound since the copy: in the stats as */
	uint8_t counted_end;		/* this end, */
	unsigned counted_frames;	/* with so many frames */
	bool counted_short;		/* short of files (unwind.h) */
	struct unwind_regs regs;
	struct unwind_stack stack;
};

struct callstack {
	struct callstack_options opt;
	struct unwinder *unwinder;
	struct slot *slots;
	uint8_t *data;			/* copy_size bytes per slot */
	uint64_t *frames;		/* max_stack - 1 callers per slot */
	size_t nslots, data_cap, frames_cap;
	struct slot scratch;		/* for comparisons: callstack_same, _check */
	uint8_t *scratch_data;
	uint64_t *scratch_frames;
	struct callstack_stats st;
};

/* ---- options ---------------------------------------------------------- */

void callstack_default(struct callstack_options *o)
{
	*o = (struct callstack_options){
		.enabled = false, .mode = UNWIND_DWARF,
		.copy_size = CALLSTACK_DEFAULT_SIZE, .max_stack = CALLSTACK_DEFAULT_MAX_STACK,
	};
}

void callstack_enable(struct callstack_options *o)
{
	o->enabled = true;
}

static int parse_uint(const char *arg, unsigned long min, unsigned long max, unsigned long *out)
{
	char *end;
	unsigned long v;

	if (*arg < '0' || *arg > '9')
		return -1;
	errno = 0;
	v = strtoul(arg, &end, 10);
	if (errno || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

int callstack_parse_mode(struct callstack_options *o, const char *arg, struct error *err)
{
	const char *comma = strchr(arg, ',');
	size_t len = comma ? (size_t)(comma - arg) : strlen(arg);
	unsigned long size = CALLSTACK_DEFAULT_SIZE;

	if (len == 2 && strncmp(arg, "fp", 2) == 0)
		o->mode = UNWIND_FP;
	else if (len == 5 && strncmp(arg, "dwarf", 5) == 0)
		o->mode = UNWIND_DWARF;
	else
		return error_set(err, "unknown call-graph mode '%.*s' (use --call-graph fp or --call-graph dwarf[,SIZE])",
				 (int)len, arg);
	if (comma && parse_uint(comma + 1, 8, CALLSTACK_MAX_SIZE, &size) < 0)
		return error_set(err, "bad stack copy size '%s' (use --call-graph %.*s,SIZE with 8 <= SIZE <= %d bytes)",
				 comma + 1, (int)len, arg, CALLSTACK_MAX_SIZE);
	o->copy_size = (uint32_t)size & ~7u;
	o->enabled = true;
	return 0;
}

int callstack_parse_max_stack(struct callstack_options *o, const char *arg, struct error *err)
{
	unsigned long n;

	if (parse_uint(arg, 2, PROFILE_MAX_FRAMES + 1, &n) < 0)
		return error_set(err, "bad --max-stack '%s' (use a number of frames, 2 <= N <= %d)",
				 arg, PROFILE_MAX_FRAMES + 1);
	o->max_stack = (uint32_t)n;
	return 0;
}

/* ---- set-up ----------------------------------------------------------- */

struct callstack *callstack_new(const struct callstack_options *o, struct error *err)
{
	struct callstack *cs = calloc(1, sizeof(*cs));

#if !defined(__x86_64__)
	free(cs);
	error_set(err, "call stacks (-g) are implemented for x86-64 only (record without -g)");
	return NULL;
#endif
	if (!cs) {
		error_set(err, "out of memory for call stacks");
		return NULL;
	}
	cs->opt = *o;
	cs->unwinder = unwinder_new(o->mode, o->max_stack - 1);
	cs->scratch_data = malloc(o->copy_size);
	cs->scratch_frames = malloc((o->max_stack - 1) * sizeof(*cs->scratch_frames));
	if (!cs->unwinder || !cs->scratch_data || !cs->scratch_frames) {
		callstack_free(cs);
		error_set(err, "out of memory for call stacks");
		return NULL;
	}
	return cs;
}

void callstack_free(struct callstack *cs)
{
	if (!cs)
		return;
	unwinder_free(cs->unwinder);
	free(cs->slots);
	free(cs->data);
	free(cs->frames);
	free(cs->scratch_data);
	free(cs->scratch_frames);
	free(cs);
}

int callstack_reserve(struct callstack *cs, size_t nthreads)
{
	size_t callers = cs->opt.max_stack - 1;

	/* the slots last: there are never more than their bytes and frames */
	if (GROW_ARRAY(cs->data, cs->data_cap, nthreads * cs->opt.copy_size) < 0 ||
	    GROW_ARRAY(cs->frames, cs->frames_cap, nthreads * callers) < 0 ||
	    GROW_ARRAY(cs->slots, cs->nslots, nthreads) < 0)
		return -1;
	return 0;
}

/* ---- while stopped ---------------------------------------------------- */

static uint64_t wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#if defined(__x86_64__)
/* PTRACE_GETREGSET's layout in DWARF order; false for a 32-bit thread. */
static bool dwarf_regs(const void *raw, size_t len, struct unwind_regs *out)
{
	const struct user_regs_struct *r = raw;

	if (len != sizeof(*r))
		return false;
	*out = (struct unwind_regs){ .r = {
		r->rax, r->rdx, r->rcx, r->rbx, r->rsi, r->rdi, r->rbp, r->rsp,
		r->r8, r->r9, r->r10, r->r11, r->r12, r->r13, r->r14, r->r15, r->rip,
	} };
	return true;
}
#else
static bool dwarf_regs(const void *raw, size_t len, struct unwind_regs *out)
{
	(void)raw;
	(void)len;
	(void)out;
	return false;
}
#endif

/* Copy the top of the stack at s->regs' stack pointer into data, clipped
 * at the end of the stack's mapping in maps (a mapping not known yet, a
 * new thread's stack, ends the copy where its pages do). */
static void copy_stack(struct callstack *cs, struct slot *s, pid_t tid, uint8_t *data,
		       const struct map_list *maps)
{
	uint64_t sp = s->regs.r[UNWIND_REG_SP], len = cs->opt.copy_size;
	const struct map_entry *m = map_list_find(maps, sp);
	struct iovec local, remote;
	ssize_t got;

	if (m && m->end - sp < len)
		len = m->end - sp;
	local = (struct iovec){ data, len };
	remote = (struct iovec){ (void *)(uintptr_t)sp, len };
	got = process_vm_readv(tid, &local, 1, &remote, 1, 0);
	s->stack = (struct unwind_stack){
		.start = sp, .end = m ? m->end : 0, .len = got > 0 ? (size_t)got : 0, .data = data,
	};
	if (got < (ssize_t)len && !m)
		s->stack.end = sp + s->stack.len;	/* the pages end there */
	s->readable = got > 0;
}

void callstack_capture(struct callstack *cs, size_t slot, pid_t tid, const void *regs,
		       size_t regs_len, const struct map_list *maps)
{
	struct slot *s = &cs->slots[slot];
	uint64_t t0;

	s->carried = false;
	s->counted = false;
	s->readable = regs && dwarf_regs(regs, regs_len, &s->regs);
	if (!s->readable)
		return;
	t0 = wall_ns();
	copy_stack(cs, s, tid, cs->data + slot * cs->opt.copy_size, maps);
	cs->st.copy_ns += wall_ns() - t0;
	cs->st.copies++;
	cs->st.copied += s->stack.len;
}

void callstack_capture_carried(struct callstack *cs, size_t slot)
{
	cs->slots[slot].carried = true;
	cs->slots[slot].readable = false;
	cs->slots[slot].counted = false;
}

/* ---- after resuming --------------------------------------------------- */

/* The sampler's CPU time: unwinding throughput is per core, whatever else
 * runs on the machine. */
static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The bytes a stack was unwound from, in 64 bits (FNV-1a over words). */
static uint64_t stack_hash(const struct unwind_stack *st)
{
	uint64_t h = 0xcbf29ce484222325ull, w;
	size_t i;

	for (i = 0; i + 8 <= st->len; i += 8) {
		memcpy(&w, st->data + i, 8);
		h = (h ^ w) * 0x100000001b3ull;
	}
	for (; i < st->len; i++)
		h = (h ^ st->data[i]) * 0x100000001b3ull;
	return h;
}

static void memo_keep(struct callstack_memo *m, const struct slot *s, const uint64_t *frames,
		      unsigned n, enum profile_stack_end end)
{
	m->valid = false;
	if (!s->readable)
		return;
	if (n > m->alloc) {
		uint64_t *f = realloc(m->frames, n * sizeof(*f));

		if (!f)
			return;
		m->frames = f;
		m->alloc = n;
	}
	if (n)
		memcpy(m->frames, frames, n * sizeof(*frames));
	m->nframes = n;
	m->end = (uint8_t)end;
	m->pc = s->regs.r[UNWIND_REG_PC];
	m->sp = s->regs.r[UNWIND_REG_SP];
	m->len = (uint32_t)s->stack.len;
	m->hash = stack_hash(&s->stack);
	m->valid = true;
}

void callstack_memo_free(struct callstack_memo *m)
{
	free(m->frames);
	memset(m, 0, sizeof(*m));
}

/* Count the stack of slot once: unwound again (the engine does after
 * reading newer maps), it replaces what its first unwinding counted. */
static void count_stack(struct callstack *cs, struct slot *s, unsigned n, enum profile_stack_end end,
			bool short_of_files)
{
	struct callstack_stats *st = &cs->st;

	if (s->counted) {
		st->stacks--;
		st->frames -= s->counted_frames;
		st->ends[s->counted_end]--;
		st->carried -= s->carried;
		st->short_of_files -= s->counted_short;
	}
	st->stacks++;
	st->frames += n;
	st->ends[end]++;
	st->carried += s->carried;
	st->short_of_files += short_of_files;
	s->counted = true;
	s->counted_end = (uint8_t)end;
	s->counted_frames = n;
	s->counted_short = short_of_files;
}

void callstack_unwind(struct callstack *cs, size_t slot, pid_t pid, const struct map_list *maps,
		      struct profile_thread_sample *ts, struct callstack_memo *memo)
{
	struct slot *s = &cs->slots[slot];
	uint64_t *frames = cs->frames + slot * (cs->opt.max_stack - 1);
	enum profile_stack_end end = PROFILE_STACK_UNREADABLE;
	bool short_of_files;
	uint64_t t0;
	unsigned n = 0;

	if (s->carried) {
		bool have = memo && memo->valid;

		ts->frames = have ? memo->frames : frames;
		ts->nframes = have ? memo->nframes : 0;
		ts->stack_end = have ? memo->end : PROFILE_STACK_UNREADABLE;
		count_stack(cs, s, ts->nframes, ts->stack_end, have && memo->short_of_files);
		return;
	}
	t0 = cpu_ns();
	if (s->readable)
		n = unwind_thread(cs->unwinder, pid, maps, &s->regs, &s->stack, frames, &end);
	ts->frames = frames;
	ts->nframes = n;
	ts->stack_end = (uint8_t)end;
	short_of_files = s->readable && unwinder_last_short_of_files(cs->unwinder);
	if (memo) {
		memo_keep(memo, s, frames, n, end);
		memo->short_of_files = short_of_files;
	}
	cs->st.unwind_ns += cpu_ns() - t0;
	count_stack(cs, s, n, end, short_of_files);
}

unsigned callstack_unwind_copy(struct callstack *cs, pid_t pid, const struct map_list *maps,
			       const struct unwind_regs *regs, const struct unwind_stack *stack,
			       uint64_t *frames, enum profile_stack_end *end)
{
	uint64_t t0 = cpu_ns();
	unsigned n = unwind_thread(cs->unwinder, pid, maps, regs, stack, frames, end);

	cs->st.unwind_ns += cpu_ns() - t0;
	return n;
}

uint32_t callstack_max_callers(const struct callstack *cs)
{
	return cs->opt.max_stack - 1;
}

uint32_t callstack_copy_size(const struct callstack *cs)
{
	return cs->opt.copy_size;
}

bool callstack_same(struct callstack *cs, const struct callstack_memo *memo, pid_t tid,
		    uint64_t pc, uint64_t sp, const struct map_list *maps)
{
	struct slot *s = &cs->scratch;
	bool same;

	if (!memo->valid || memo->pc != pc || memo->sp != sp)
		return false;
	s->regs.r[UNWIND_REG_SP] = sp;
	copy_stack(cs, s, tid, cs->scratch_data, maps);
	same = s->readable && s->stack.len == memo->len && stack_hash(&s->stack) == memo->hash;
	cs->st.compared++;
	cs->st.compared_same += same;
	return same;
}

int callstack_check(struct callstack *cs, const struct callstack_memo *memo, pid_t pid, pid_t tid,
		    const void *regs, size_t regs_len, const struct map_list *maps)
{
	struct slot *s = &cs->scratch;
	enum profile_stack_end end;
	unsigned n;
	bool same;

	if (!memo->valid || !dwarf_regs(regs, regs_len, &s->regs))
		return -1;
	copy_stack(cs, s, tid, cs->scratch_data, maps);
	if (!s->readable)
		return -1;
	n = unwind_thread(cs->unwinder, pid, maps, &s->regs, &s->stack, cs->scratch_frames, &end);
	same = n == memo->nframes && (uint8_t)end == memo->end &&
	       (!n || memcmp(cs->scratch_frames, memo->frames, n * sizeof(*memo->frames)) == 0);
	cs->st.checked++;
	cs->st.checked_wrong += !same;
	return same;
}

void callstack_maps_changed(struct callstack *cs, pid_t pid)
{
	unwinder_forget(cs->unwinder, pid);
}

const struct callstack_stats *callstack_stats(const struct callstack *cs)
{
	return &cs->st;
}

void callstack_print_stats(const struct callstack *cs, FILE *out)
{
	const struct callstack_stats *st = &cs->st;
	uint64_t unwound = st->stacks - st->carried;
	double per = unwound ? (double)st->unwind_ns / (double)unwound : 0;
	bool any = false;

	fprintf(out, "sampler: call stacks: %s, %u bytes copied per thread, %" PRIu64
		" stacks, %.1f frames each, %.2f us CPU each to unwind (%.0f stacks/s)\n",
		cs->opt.mode == UNWIND_FP ? "fp" : "dwarf", cs->opt.copy_size, st->stacks,
		st->stacks ? (double)st->frames / (double)st->stacks : 0, per / 1e3,
		per > 0 ? 1e9 / per : 0);
	fprintf(out, "sampler: call stacks copied: %.1f KiB per thread-sample, %.2f us each while stopped\n",
		st->copies ? (double)st->copied / (double)st->copies / 1024 : 0,
		st->copies ? (double)st->copy_ns / (double)st->copies / 1e3 : 0);
	fprintf(out, "sampler: call stacks carried over without a stop: %" PRIu64
		" (%" PRIu64 " of %" PRIu64 " compared the same; %" PRIu64 " checked, %" PRIu64 " wrong)\n",
		st->carried, st->compared_same, st->compared, st->checked, st->checked_wrong);
	fputs("sampler: call stacks truncated:", out);
	for (unsigned e = 1; e < PROFILE_STACK_NENDS; e++) {
		if (!st->ends[e])
			continue;
		fprintf(out, " %s %" PRIu64, profile_stack_end_name(e), st->ends[e]);
		any = true;
	}
	fputs(any ? "\n" : " none\n", out);
}
