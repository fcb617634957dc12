/* unwind.h - call stacks from a copy of a thread's registers and the top of
 * its stack, taken while the thread was stopped and unwound after it runs
 * again (no access to the live process: the copy is all there is).
 *
 * Two ways, as perf record --call-graph offers them:
 *   UNWIND_FP     follow the frame-pointer chain (rbp) through the copy;
 *                 right only where every function keeps a frame pointer,
 *                 which Debian's libc does not (docs/sampler.1, -g);
 *   UNWIND_DWARF  elfutils' libdwfl with the call frame information
 *                 (.eh_frame, else .debug_frame) of every mapped file, as
 *                 perf's libdw unwinder does, with modules reported from
 *                 the recorder's maps and kept per process across samples.
 * A stack that cannot be followed to its end keeps the frames found so far
 * and says why it stopped (enum profile_stack_end); one that reaches its
 * outermost frame is complete, through JIT code that keeps a frame
 * pointer too (followed through rbp, as V8's and HotSpot's).
 */
#ifndef SAMPLER_UNWIND_H
#define SAMPLER_UNWIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "../profile/profile.h"
#include "procfs.h"

enum unwind_mode {
	UNWIND_FP,
	UNWIND_DWARF,
};

/* The registers the unwinders start from, in DWARF numbering (x86-64:
 * rax rdx rcx rbx rsi rdi rbp rsp r8..r15, then rip as 16). */
#define UNWIND_NREGS 17
#define UNWIND_REG_FP 6
#define UNWIND_REG_SP 7
#define UNWIND_REG_PC 16

struct unwind_regs {
	uint64_t r[UNWIND_NREGS];
};

/* The copy of the top of a stack: data[0..len-1] held the bytes at
 * start (the stack pointer) and up.  end is where the stack's mapping
 * ends (0: not known); when the copy reached it, reads above the copy
 * are not "the copy was too small" but a bad address. */
struct unwind_stack {
	uint64_t start;
	uint64_t end;
	size_t len;
	const uint8_t *data;
};

struct unwinder;

/* max_frames: most callers to find per stack (<= PROFILE_MAX_FRAMES).
 * NULL when out of memory. */
struct unwinder *unwinder_new(enum unwind_mode mode, unsigned max_frames);
void unwinder_free(struct unwinder *u);

/* The maps of pid changed (exec, dlopen, a new process with a reused
 * pid): forget what was built from the old ones. */
void unwinder_forget(struct unwinder *u, pid_t pid);

/* Did the last unwind_thread's stack end at a mapped file left out of its
 * process's modules because no descriptor could be kept open for it
 * (procfs_keep_fd), even after closing every other process's?  Its
 * frames beyond are unknown.  Only dwarf: fp's chain needs no file. */
bool unwinder_last_short_of_files(const struct unwinder *u);

/* Unwind one thread of pid, whose mappings are maps: the callers of the
 * PC in regs, innermost first, each the address inside its call
 * instruction (return address - 1), into frames[0..max_frames-1].
 * Returns how many; *end says how the stack ended. */
unsigned unwind_thread(struct unwinder *u, pid_t pid, const struct map_list *maps,
		       const struct unwind_regs *regs, const struct unwind_stack *stack,
		       uint64_t *frames, enum profile_stack_end *end);

#endif
