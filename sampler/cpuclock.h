/* cpuclock.h - where a traced thread ran, sampled by the kernel on the
 * thread's own CPU clock.
 *
 * A synchronous sample reads each thread's CPU time, but a thread that
 * runs in short bursts between two samples is blocked at both: its CPU
 * time would be charged to the call it waits in.  So each thread also has
 * a task-clock perf event of its own, user space only (allowed to
 * unprivileged users for their own processes at perf_event_paranoid 2),
 * that the kernel samples every period of the thread's CPU time with the
 * user PC and, for call stacks (-g), the user registers and the top of
 * the user stack, as perf record -e cpu-clock --call-graph dwarf does.
 * The samples go to a ring mapped per thread that the engine drains at
 * each synchronous sample: the CPU view is then the kernel's, while the
 * synchronous snapshot still carries the energy and the off-CPU view.
 *
 * Where the event or its ring is refused (perf_event_paranoid 3, the perf
 * mlock budget spent by many threads) the thread is sampled as before.
 */
#ifndef SAMPLER_CPUCLOCK_H
#define SAMPLER_CPUCLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "unwind.h"

/* The clock period for a sampling period: perf's 4 kHz (250 us of CPU
 * time), or longer at low sampling rates so that one interval holds a few
 * clock samples at most (the ring holds them). */
uint64_t cpuclock_period_ns(uint64_t sample_period_ns);

struct cpuclock {
	void *ring;			/* perf_event_mmap_page, NULL: not sampled so */
	size_t size;			/* of the mapping */
	bool regs;			/* samples carry user registers and stack */
};

/* One sample the kernel took: its time (CLOCK_MONOTONIC), the user PC,
 * and with registers those and the copy of the top of the stack (valid
 * until the callback returns). */
struct cpuclock_sample {
	uint64_t time_ns;
	uint64_t pc;
	bool has_regs;
	struct unwind_regs regs;
	struct unwind_stack stack;
};

typedef void (*cpuclock_fn)(void *arg, const struct cpuclock_sample *s);

void cpuclock_init(struct cpuclock *c);
/* Sample thread tid every period_ns of its CPU time; stack_bytes > 0: with
 * user registers and that many bytes of its stack.  -1 with errno when
 * the kernel refuses the event or its ring (the thread is then not
 * sampled so). */
int cpuclock_open(struct cpuclock *c, pid_t tid, uint64_t period_ns, uint32_t stack_bytes);
void cpuclock_close(struct cpuclock *c);
bool cpuclock_on(const struct cpuclock *c);

/* Hand the samples taken up to until_ns (the synchronous sample's time)
 * to fn, oldest first, and free their room; later ones stay for the next
 * drain.  buf (len bytes) holds a sample that wraps around the ring's end.
 * False when the kernel lost samples since the last drain (the ring was
 * full): those handed over are not all the thread's. */
bool cpuclock_drain(struct cpuclock *c, uint64_t until_ns, uint8_t *buf, size_t len,
		    cpuclock_fn fn, void *arg);

/* The largest record a drain may have to copy into buf. */
size_t cpuclock_record_max(uint32_t stack_bytes);

#endif
