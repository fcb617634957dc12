/* regs.h - what the registers of a stopped thread say, per architecture
 * (x86-64, with 32-bit tracees, and aarch64): its PC, and whether the stop
 * found it blocked in a system call.  The registers are the NT_PRSTATUS
 * regset, as PTRACE_GETREGSET fills it. */
#ifndef SAMPLER_REGS_H
#define SAMPLER_REGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/user.h>

/* The PC in registers read from a stopped thread (len: the bytes filled,
 * fewer for a 32-bit tracee), and whether the stop found it blocked in a
 * system call (sleeping, waiting) rather than running or runnable. */
void regs_decode(const struct user_regs_struct *regs, size_t len, uint64_t *pc,
		 bool *blocked);

/* Stopped at the system call instruction that a restart rewound to (the
 * kernel moves the PC back over it and sets the call number again): the
 * same place as just after it, where the thread was blocked. */
bool regs_restarting(const struct user_regs_struct *regs, size_t len, uint64_t pc,
		     uint64_t blocked_pc);

/* Stopped on the way out of a system call that completed (not one that
 * blocked and was interrupted): a thread stopped while it ran gets there
 * when it made a call before the stop reached its CPU (preempt.h).  Not
 * known on aarch64 (false). */
bool regs_syscall_return(const struct user_regs_struct *regs, size_t len);

#endif
