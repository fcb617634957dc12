/* tasks.h - the table of traced threads and the processes they belong to.
 *
 * Threads are kept in creation order (samples list them oldest first) and
 * found by tid in O(1); processes are found by pid while they live.  A
 * process is freed, maps and all, once its leader has been reaped and no
 * thread of the table belongs to it: memory follows the live processes,
 * not every process a long run (a build) ever started.
 */
#ifndef SAMPLER_TASKS_H
#define SAMPLER_TASKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/user.h>

#include "../common/idmap.h"
#include "callstack.h"
#include "cpuclock.h"
#include "mapwatch.h"
#include "procfs.h"
#include "quiet.h"

/* Where a traced thread is, as far as the engine knows. */
enum task_state {
	TASK_NEW,		/* created; its first ptrace stop is still to come */
	TASK_RUNNING,		/* continued by us */
	TASK_STOPPED,		/* stopped for the current sample */
	TASK_GROUP_STOPPED,	/* job-control stop, kept with PTRACE_LISTEN */
	TASK_IN_VFORK,		/* parent waiting for its vfork child: cannot stop */
	TASK_EXITING,		/* reported PTRACE_EVENT_EXIT; waits to be reaped */
};

struct process {
	pid_t pid;
	pid_t ppid;
	unsigned live_threads;	/* threads not yet exiting */
	unsigned tasks;		/* threads of the table that point here */
	bool exited;		/* the leader has been reaped */
	uint64_t last_refresh;	/* sample count at the last maps refresh for an unknown PC */
	struct map_list maps;
	/* the mappings it makes, reported as it makes them (NULL: refused) */
	struct mapwatch *watch;
	uint64_t maps_read_ns;	/* maps last read from /proc, at this time */
	size_t maps_read_n;	/* ...this many */
	uint64_t watched_to;	/* mappings made up to this time are in maps */
};

struct task {
	pid_t tid;
	struct process *proc;
	enum task_state state;
	bool pending;		/* current sample waits for its stop */
	bool in_vfork;		/* between its vfork event and vfork-done */
	bool start_known;	/* new: its PC is its parent's at the clone or fork */
	bool to_handler;	/* continued with a signal: its next PC is a handler's */
	bool event_due;		/* its first stop came before its parent's clone or
				 * fork event, which is still to come */
	bool options_set;	/* attached: ATTACH_OPTIONS set at its first stop */
	bool carried;		/* in this sample without a stop: it did not run */
	bool carried_waiting;	/* ...and it waits for a CPU (not blocked) */
	uint64_t stop_stamp;	/* switch stamp when it was interrupted (quiet.h) */
	uint64_t look_stamp;	/* switch stamp when the sample began */
	int inject_sig;		/* signal to pass on when it is continued */
	int schedstat_fd;	/* kept open: pread per sample */
	int stat_fd;		/* opened when the sampler follows it to its CPU */
	struct quiet quiet;	/* has it run since its PC was read? */
	struct cpuclock clock;	/* where it ran, sampled on its CPU clock */
	struct callstack_memo stack;	/* its last call stack (-g) */
	uint64_t pc;
	uint64_t cpu_ns;	/* its CPU time as the kernel last gave it */
	int64_t cpu_offset;	/* added when recorded: exec from another thread
				 * (on_exec), the root's CPU time before its
				 * exec stop (engine_start) */
	uint64_t *counters;	/* cumulative per-thread PMU counts (nthread) */
	char comm[16];		/* its name as last recorded (TASK_COMM_LEN) */
	/* with several tracers (tracers.h) */
	int tracer;		/* the tracer thread that attached it */
	bool placed;		/* its tracer was chosen: it moves at most once */
	bool look_for_strays;	/* moved: look for threads it started untraced */
	bool to_interrupt;	/* its tracer interrupts it in this round */
	bool to_continue;	/* its tracer continues it, with cont_sig */
	int cont_sig;
	bool fetched;		/* its tracer read regs and CPU time for this sample */
	int fetch_rc;		/* of PTRACE_GETREGSET */
	size_t regs_len;
	uint64_t fetched_cpu;
	struct user_regs_struct regs;
};

struct task_table {
	struct task **tasks;		/* live (not yet reaped) threads, oldest first */
	size_t ntasks, tasks_alloc;
	struct idmap by_tid;		/* tid -> struct task * */
	struct idmap by_pid;		/* pid -> struct process *, until it is reaped */
	size_t ncounters;		/* per-thread PMU channels */
};

void tasks_init(struct task_table *tt, size_t ncounters);
void tasks_free(struct task_table *tt);

struct task *tasks_find(const struct task_table *tt, pid_t tid);
struct process *tasks_find_process(const struct task_table *tt, pid_t pid);

/* Add a process (no threads yet); it replaces a process of the same pid
 * that was never reaped.  NULL when out of memory. */
struct process *tasks_add_process(struct task_table *tt, pid_t pid, pid_t ppid);
/* The process's leader was reaped: it is no longer found by pid, and it is
 * freed (p is invalid) now or when its last thread is removed. */
void tasks_reap_process(struct task_table *tt, struct process *p);
/* Add a thread of proc, in state.  NULL when out of memory. */
struct task *tasks_add(struct task_table *tt, pid_t tid, struct process *proc,
		       enum task_state state);
/* The thread reported its exit: it no longer counts as live. */
void tasks_set_exiting(struct task *t);
/* Forget a thread (closes its files; frees its process if reaped). */
void tasks_remove(struct task_table *tt, struct task *t);

#endif
