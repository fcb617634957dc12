/* attach.h - take running processes or threads under ptrace (--pid, --tid).
 *
 * Every thread is seized (PTRACE_SEIZE: no signal, no stop), so the engine
 * can interrupt them for samples; the ones they create later are seized by
 * the kernel (the ptrace options of LAUNCH_PTRACE_OPTIONS, without
 * EXITKILL: a sampler that dies must not take its target with it). */
#ifndef SAMPLER_ATTACH_H
#define SAMPLER_ATTACH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "../common/error.h"
#include "launch.h"

/* The ptrace options of attached threads: a launched command's, without
 * EXITKILL (attach_seize leaves out TRACEEXIT until the first stop). */
#define ATTACH_OPTIONS (LAUNCH_PTRACE_OPTIONS & ~PTRACE_O_EXITKILL)

/* Most processes or threads one --pid/--tid list names. */
#define ATTACH_MAX_IDS 64

/* The threads seized, each with its process. */
struct attach_list {
	pid_t *tids;
	pid_t *pids;
	size_t n, tids_cap, pids_cap;
	size_t skipped;		/* threads that exited or were exiting meanwhile */
};

/* Parse "ID[,ID...]" for option opt into ids (at most ATTACH_MAX_IDS). */
int attach_parse_ids(const char *opt, const char *arg, pid_t *ids, size_t *n,
		     struct error *err);

/* Seize every thread of process pid (whole) or the one thread tid (!whole).
 * Threads created while this runs are not missed: /proc/PID/task is read
 * again until a pass finds no thread left to seize.  A thread that exits
 * meanwhile, or is exiting, is skipped (counted in skipped); a process
 * with no thread left (a zombie) is an error.  On failure nothing of this
 * call stays seized and err says why, with the fix. */
int attach_seize(struct attach_list *l, pid_t id, int whole, struct error *err);

/* Is thread tid of pid waiting in vfork() (or a clone with CLONE_VFORK)
 * for its child to exec or exit?  It cannot stop until then: *pc is where
 * it waits.  For a thread the sampler did not see start the vfork (one
 * seized in it). */
bool attach_in_vfork(pid_t pid, pid_t tid, uint64_t *pc);

/* Let go of every thread seized (before any engine took them over). */
void attach_release(struct attach_list *l);

void attach_free(struct attach_list *l);

#endif
