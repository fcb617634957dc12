/* callstack.h - call stacks for the recorder (-g, --call-graph).
 *
 * Two steps per thread-sample, so that the target is held only for the
 * copy: while the thread is stopped, callstack_capture keeps its
 * registers (already read) and copies the top of its user stack with one
 * process_vm_readv; after every thread runs again, callstack_unwind
 * unwinds that copy (unwind.h) into the thread-sample's frames.
 *
 * A thread blocked where its last stack was taken keeps that stack: each
 * thread's memo holds its last stack with the PC, stack pointer and a hash
 * of the bytes it was unwound from.  A thread that is off CPU with the
 * same PC and stack pointer over the same stack bytes would unwind to the
 * same frames (the unwinder reads nothing else that a blocked thread can
 * change), so the engine carries it over without a stop (quiet.h).
 */
#ifndef SAMPLER_CALLSTACK_H
#define SAMPLER_CALLSTACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "../common/error.h"
#include "../profile/profile.h"
#include "procfs.h"
#include "unwind.h"

#define CALLSTACK_DEFAULT_SIZE 8192	/* bytes of stack copied per thread */
#define CALLSTACK_MAX_SIZE 65528	/* as perf record --call-graph dwarf */
#define CALLSTACK_DEFAULT_MAX_STACK 127	/* frames, as perf's default */

struct callstack_options {
	bool enabled;
	enum unwind_mode mode;
	uint32_t copy_size;
	uint32_t max_stack;		/* frames per stack, the sampled PC included */
};

/* Off; -g turns on the default mode (dwarf, 8192 bytes). */
void callstack_default(struct callstack_options *o);
/* -g */
void callstack_enable(struct callstack_options *o);
/* --call-graph MODE[,SIZE]: fp or dwarf, SIZE bytes (8..65528, rounded
 * down to 8).  -1 and err for anything else. */
int callstack_parse_mode(struct callstack_options *o, const char *arg, struct error *err);
/* --max-stack N: 2..PROFILE_MAX_FRAMES + 1 frames. */
int callstack_parse_max_stack(struct callstack_options *o, const char *arg, struct error *err);

/* One thread's last stack (zeroed: none). */
struct callstack_memo {
	bool valid;
	uint8_t end;			/* enum profile_stack_end */
	bool short_of_files;		/* unwinder_last_short_of_files */
	uint32_t nframes, alloc;
	uint64_t *frames;		/* the callers, innermost first */
	uint64_t pc, sp;		/* registers of the stop it was taken at */
	uint64_t hash;			/* of the stack bytes copied then */
	uint32_t len;			/* how many */
};

void callstack_memo_free(struct callstack_memo *m);

struct callstack_stats {
	uint64_t stacks;		/* stacks unwound */
	uint64_t frames;		/* callers found, in all */
	uint64_t copied;		/* bytes of stack copied */
	uint64_t copies;		/* stacks copied */
	uint64_t copy_ns;		/* time spent copying, while the target was held */
	uint64_t unwind_ns;		/* CPU time spent unwinding */
	uint64_t carried;		/* stacks carried over (not unwound) */
	uint64_t compared, compared_same; /* stacks compared without a stop, found the same */
	uint64_t checked, checked_wrong; /* callstack_check: carried stacks checked, differing */
	uint64_t short_of_files;	/* stacks cut at a file left out for want of descriptors */
	uint64_t ends[PROFILE_STACK_NENDS];
};

struct callstack;

struct callstack *callstack_new(const struct callstack_options *o, struct error *err);
void callstack_free(struct callstack *cs);

/* Room for the threads of one sample; -1 when out of memory. */
int callstack_reserve(struct callstack *cs, size_t nthreads);

/* Thread tid is stopped and its registers are regs (as PTRACE_GETREGSET
 * NT_PRSTATUS gave them, regs_len bytes): keep them and copy the top of
 * its stack, clipped at the end of its mapping in maps, into slot.
 * regs NULL: nothing can be read (the stack is then "unreadable"). */
void callstack_capture(struct callstack *cs, size_t slot, pid_t tid, const void *regs,
		       size_t regs_len, const struct map_list *maps);

/* The thread of slot was not stopped: it carries the stack of its memo
 * (callstack_same said so, or it did not run since). */
void callstack_capture_carried(struct callstack *cs, size_t slot);

/* After the threads were let go: unwind slot's copy for a thread of pid
 * and set ts's frames, nframes and stack_end (frames stay valid until the
 * next capture into slot, or the memo's next change).  memo is the
 * thread's: a carried slot takes its stack from it, an unwound one is kept
 * in it (memo NULL: not kept, and a carried slot has none). */
void callstack_unwind(struct callstack *cs, size_t slot, pid_t pid, const struct map_list *maps,
		      struct profile_thread_sample *ts, struct callstack_memo *memo);

/* A copy the kernel took (the user registers and stack of a clock
 * sample, cpuclock.h) of a thread of pid: unwound as a stopped thread's
 * copy is, into frames[0..callstack_max_callers()-1].  Returns how many;
 * *end says how the stack ended. */
unsigned callstack_unwind_copy(struct callstack *cs, pid_t pid, const struct map_list *maps,
			       const struct unwind_regs *regs, const struct unwind_stack *stack,
			       uint64_t *frames, enum profile_stack_end *end);
/* The callers a stack may have, and the bytes of stack copied. */
uint32_t callstack_max_callers(const struct callstack *cs);
uint32_t callstack_copy_size(const struct callstack *cs);

/* Thread tid is off CPU at pc with stack pointer sp (/proc/TID/syscall):
 * is its stack the memo's?  Copies the top of its stack again (the caller
 * checks that the thread was not switched in meanwhile). */
bool callstack_same(struct callstack *cs, const struct callstack_memo *memo, pid_t tid,
		    uint64_t pc, uint64_t sp, const struct map_list *maps);

/* SAMPLER_TEST_CHECK_CARRIED: thread tid of pid, carried, is stopped now
 * with registers regs: unwind its stack and compare with the memo's.  1
 * when equal, 0 when not, -1 when unreadable. */
int callstack_check(struct callstack *cs, const struct callstack_memo *memo, pid_t pid, pid_t tid,
		    const void *regs, size_t regs_len, const struct map_list *maps);

/* The maps of pid changed: stop using what was derived from them. */
void callstack_maps_changed(struct callstack *cs, pid_t pid);

const struct callstack_stats *callstack_stats(const struct callstack *cs);

/* The -d lines: stacks, frames, unwinding throughput, truncations. */
void callstack_print_stats(const struct callstack *cs, FILE *out);

#endif
