/* launch.h - start the target under ptrace, stopped at its exec. */
#ifndef SAMPLER_LAUNCH_H
#define SAMPLER_LAUNCH_H

#include <signal.h>
#include <sys/types.h>

#include "../common/error.h"

/* The ptrace options every traced thread gets (children inherit them). */
#define LAUNCH_PTRACE_OPTIONS (PTRACE_O_TRACECLONE | PTRACE_O_TRACEFORK | \
	PTRACE_O_TRACEVFORK | PTRACE_O_TRACEVFORKDONE | PTRACE_O_TRACEEXEC | \
	PTRACE_O_TRACEEXIT | PTRACE_O_EXITKILL)

/* Fork, PTRACE_SEIZE the child, let it execvp argv.  On success *pid is the
 * target, held in its PTRACE_EVENT_EXEC stop (it has run no code of its own
 * yet) and 0 is returned.  On failure -1, err says why and *exit_status is
 * what the sampler should exit with: 127 command not found, 126 not
 * executable, 125 the sampler's own failure, 128+N the child died of N.
 * child_mask is the signal mask the target starts with; closed_fds (bit N:
 * descriptor N, as stdfds_open returns) the ones of 0-2 it gets closed. */
int launch_target(char *const argv[], const sigset_t *child_mask, int closed_fds, pid_t *pid,
		  int *exit_status, struct error *err);

/* Kill a launched target that must not go on, and reap it. */
void launch_kill(pid_t pid);

#endif
