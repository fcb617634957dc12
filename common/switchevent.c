/* switchevent.c - the per-thread context-switch event (switchevent.h). */
#include "switchevent.h"

#include <asm/perf_regs.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* The user stack pointer and PC, in the order the kernel writes them
 * (ascending register number). */
#if defined(__x86_64__)
#define SWITCH_REGS ((1ULL << PERF_REG_X86_SP) | (1ULL << PERF_REG_X86_IP))
#elif defined(__aarch64__)
#define SWITCH_REGS ((1ULL << PERF_REG_ARM64_SP) | (1ULL << PERF_REG_ARM64_PC))
#endif

int switch_event_open(pid_t tid, bool with_registers)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_DUMMY;
	a.context_switch = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.sample_type = PERF_SAMPLE_TIME;
	a.sample_id_all = 1;	/* switch records carry their time */
	a.use_clockid = 1;
	a.clockid = CLOCK_MONOTONIC;	/* the profile's clock */
	if (with_registers) {
		a.config = PERF_COUNT_SW_CONTEXT_SWITCHES;
		a.exclude_kernel = 0;
		a.sample_period = 1;
		a.sample_type = PERF_SAMPLE_TIME | PERF_SAMPLE_REGS_USER;
		a.sample_regs_user = SWITCH_REGS;
		a.write_backward = 1;
	}
	return (int)syscall(SYS_perf_event_open, &a, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
}
