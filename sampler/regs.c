/* regs.c - a stopped thread's registers decoded, per architecture. */
#include "regs.h"

#include <errno.h>
#include <sys/syscall.h>

/* Linux's return values of a system call cut short by a stop, to be
 * restarted (kernel-internal, so not in any user header), and EINTR. */
static bool interrupted_syscall(int64_t ret, int64_t nr)
{
	return nr >= 0 && (ret == -EINTR || (ret >= -516 && ret <= -512));
}

void regs_decode(const struct user_regs_struct *regs, size_t len, uint64_t *pc,
		 bool *blocked)
{
#if defined(__x86_64__)
	if (len == sizeof(*regs)) {
		*pc = regs->rip;
		*blocked = interrupted_syscall((int64_t)regs->rax, (int64_t)regs->orig_rax);
	} else {	/* a 32-bit tracee: eax, orig_eax, eip are words 6, 11, 12 */
		const int32_t *w = (const int32_t *)regs;

		*pc = (uint32_t)w[12];
		*blocked = interrupted_syscall(w[6], w[11]);
	}
#elif defined(__aarch64__)
	*pc = regs->pc;		/* glibc: regs[31], sp, pc, pstate */
	/* no syscall number in this regset: x0 holding a restart code is
	 * taken as one (user code seldom holds exactly those values) */
	*blocked = interrupted_syscall((int64_t)regs->regs[0], 0);
#else
#error "sampler: reading the PC is implemented for x86-64 and aarch64 only"
#endif
}

bool regs_syscall_return(const struct user_regs_struct *regs, size_t len)
{
#if defined(__x86_64__)
	if (len == sizeof(*regs))
		return (int64_t)regs->orig_rax >= 0 &&
		       !interrupted_syscall((int64_t)regs->rax, (int64_t)regs->orig_rax);
	const int32_t *w = (const int32_t *)regs;

	return w[11] >= 0 && !interrupted_syscall(w[6], w[11]);
#else
	(void)regs, (void)len;
	return false;
#endif
}

bool regs_restarting(const struct user_regs_struct *regs, size_t len, uint64_t pc,
		     uint64_t blocked_pc)
{
#if defined(__x86_64__)
	return len == sizeof(*regs) && pc + 2 == blocked_pc &&
	       (regs->rax == SYS_restart_syscall || regs->rax == regs->orig_rax);
#else
	(void)regs, (void)len, (void)pc, (void)blocked_pc;
	return false;
#endif
}
