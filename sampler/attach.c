/* attach.c - seize running processes and threads (see attach.h). */
#include "attach.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "../common/grow.h"
#include "procfs.h"

/* Seized without PTRACE_O_TRACEEXIT; the engine sets ATTACH_OPTIONS at
 * each thread's first stop.  An exec from a thread not yet seized holds
 * the process's exec lock, which PTRACE_SEIZE of its other threads waits
 * for, while it waits for the threads it ends: one seized with TRACEEXIT
 * stops at its exit and waits for the sampler, blocked in the seize (a
 * kernel deadlock; seen on examples/reexec). */
#define SEIZE_OPTIONS (ATTACH_OPTIONS & ~PTRACE_O_TRACEEXIT)
#define YAMA_SCOPE "/proc/sys/kernel/yama/ptrace_scope"
#define PF_KTHREAD 0x00200000	/* linux/sched.h: a kernel thread */
#define SEIZE_TRIES 5

int attach_parse_ids(const char *opt, const char *arg, pid_t *ids, size_t *n,
		     struct error *err)
{
	const char *p = arg;

	*n = 0;
	do {
		char *end;
		long v;

		errno = 0;
		v = strtol(p, &end, 10);
		if (errno || end == p || v <= 0 || v > 0x3fffffff || (*end && *end != ','))
			return error_set(err, "%s %s: not a list of process ids (use e.g. %s 1234 or %s 1234,5678)",
					 opt, arg, opt, opt);
		if (*n == ATTACH_MAX_IDS)
			return error_set(err, "%s: more than %d ids", opt, ATTACH_MAX_IDS);
		ids[(*n)++] = (pid_t)v;
		p = *end ? end + 1 : end;
	} while (*p);
	return 0;
}

static int find(const struct attach_list *l, pid_t tid)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->tids[i] == tid)
			return 1;
	return 0;
}

static int add(struct attach_list *l, pid_t tid, pid_t pid)
{
	if (GROW_ARRAY(l->tids, l->tids_cap, l->n + 1) < 0 ||
	    GROW_ARRAY(l->pids, l->pids_cap, l->n + 1) < 0)
		return -1;
	l->tids[l->n] = tid;
	l->pids[l->n++] = pid;
	return 0;
}

static long yama_scope(void)
{
	char buf[16] = "";
	FILE *f = fopen(YAMA_SCOPE, "re");

	if (!f)
		return -1;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	return buf[0] ? strtol(buf, NULL, 10) : -1;
}

/* Has thread tid of pid exited (a zombie, dead, gone)?  PTRACE_SEIZE
 * refuses such a thread with EPERM, as it refuses what it may not trace. */
static bool exited(pid_t pid, pid_t tid)
{
	uint64_t flags;
	char state;

	return procfs_read_task_state(pid, tid, &state, &flags) < 0 || state == 'Z' ||
	       state == 'X' || state == 'x';
}

/* Why PTRACE_SEIZE of id failed, with the fix. */
static int seize_error(pid_t id, int e, struct error *err)
{
	long uid = procfs_read_uid(id), scope = yama_scope();
	pid_t tracer = procfs_read_tracer(id), tgid = id, ppid = 0;
	uint64_t flags = 0;
	char state = 0, name[32];

	if (e == ESRCH || uid < 0 || procfs_read_task_state(id, id, &state, &flags) < 0)
		return error_set(err, "cannot attach to %d: no such process (check the id with ps)", (int)id);
	procfs_read_ids(id, &tgid, &ppid);
	procfs_read_comm(id, name, sizeof(name));
	if (flags & PF_KTHREAD)
		return error_set(err, "cannot attach to %d: it is a kernel thread (%s), which runs no program to trace (profile the kernel with perf record -a)",
				 (int)id, name[0] ? name : "?");
	if (state == 'Z' || state == 'X' || state == 'x')
		return error_set(err, "cannot attach to %d: it is a zombie: it has exited, and its parent (process %d) has not collected its status yet (nothing is left to profile)",
				 (int)id, (int)ppid);
	if (tracer > 0 && tracer != getpid()) {
		char comm[32];

		procfs_read_comm(tracer, comm, sizeof(comm));
		return error_set(err, "cannot attach to %d: already traced by process %d (%s; a debugger or strace: end or detach it first)",
				 (int)id, (int)tracer, comm[0] ? comm : "?");
	}
	if (e != EPERM)
		return error_set(err, "cannot attach to %d: PTRACE_SEIZE: %s", (int)id, strerror(e));
	if (uid != (long)getuid() && geteuid() != 0)
		return error_set(err, "cannot attach to %d: it is a process of another user (uid %ld; run the sampler as that user, or as root or with CAP_SYS_PTRACE)",
				 (int)id, uid);
	if (scope == 3)
		return error_set(err, "cannot attach to %d: the sysctl kernel.yama.ptrace_scope is 3, which forbids attaching for everyone until a reboot (launch the program under the sampler instead: sampler -- command)",
				 (int)id);
	/* its /proc files went to root: a setuid program, or it said so */
	if (uid != 0 && procfs_read_dump_owner(id) == 0)
		return error_set(err, "cannot attach to %d: it is not dumpable (it called prctl(PR_SET_DUMPABLE, 0), or runs a setuid or setgid program), so only root or CAP_SYS_PTRACE may trace it (run the sampler as root, or launch the program under it: sampler -- command)",
				 (int)id);
	if (scope == 2)
		return error_set(err, "cannot attach to %d: the sysctl kernel.yama.ptrace_scope is 2, which lets only root or CAP_SYS_PTRACE trace (run as root or with CAP_SYS_PTRACE, or set kernel.yama.ptrace_scope to 0 or 1)",
				 (int)id);
	if (scope >= 1)
		return error_set(err, "cannot attach to %d: the sysctl kernel.yama.ptrace_scope is %ld, which lets a process trace only its own descendants (run as root or with CAP_SYS_PTRACE, set kernel.yama.ptrace_scope=0, or launch it under the sampler: sampler -- command)",
				 (int)id, scope);
	if (id == 1)
		return error_set(err, "cannot attach to 1: it is init, the first process of the system or container, which the kernel or the container protects from tracing (profile a program it starts, or start it under the sampler: sampler -- command)");
	return error_set(err, "cannot attach to %d: PTRACE_SEIZE: %s (seccomp or container settings may forbid ptrace; root or CAP_SYS_PTRACE can attach)",
			 (int)id, strerror(e));
}

/* PTRACE_SEIZE of tid; on EPERM again a few times, 1 ms apart: an exec
 * from another thread refuses the attach of a thread it is ending, whose
 * tid then names the execing thread. */
static int seize(pid_t tid)
{
	for (int tries = 0;; tries++) {
		if (ptrace(PTRACE_SEIZE, tid, 0, SEIZE_OPTIONS) == 0)
			return 0;
		if (errno != EPERM || tries == SEIZE_TRIES)
			return -1;
		usleep(1000);
	}
}

/* Seize tid of process pid; 1 seized, 0 gone or already ours, -1 error. */
static int seize_one(struct attach_list *l, pid_t tid, pid_t pid, struct error *err)
{
	int e;

	if (seize(tid) == 0)
		return add(l, tid, pid) < 0 ? error_set(err, "out of memory") : 1;
	e = errno;
	/* seized by the kernel already: a thread created by one we hold */
	if (e == EPERM && procfs_read_tracer(tid) == getpid())
		return 0;
	/* exited meanwhile, or exiting: skipped (a thread storm, an exec
	 * from another thread, a leader that called pthread_exit) */
	if (e == ESRCH || (e == EPERM && exited(pid, tid))) {
		l->skipped++;
		return 0;
	}
	return seize_error(tid, e, err);
}

/* A thread seized but no longer ours: another thread of its process, not
 * yet seized, exec'd and took over its tid (the one it seized is gone, no
 * event says so).  Seize the new owner of the tid. */
static int reseize_replaced(struct attach_list *l, size_t first, struct error *err)
{
	int n = 0;

	for (size_t i = first; i < l->n; i++) {
		pid_t tracer = procfs_read_tracer(l->tids[i]);

		if (tracer == getpid() || exited(l->pids[i], l->tids[i]))
			continue;
		if (seize(l->tids[i]) == 0)
			n++;
		else if (errno != ESRCH && !exited(l->pids[i], l->tids[i]))
			return seize_error(l->tids[i], errno, err);
	}
	return n;
}

bool attach_in_vfork(pid_t pid, pid_t tid, uint64_t *pc)
{
	struct procfs_syscall sc;
	uint64_t flags = 0;

	if (procfs_read_syscall(-1, pid, tid, &sc) < 0)
		return false;
#ifdef SYS_vfork
	if (sc.nr == SYS_vfork)
		flags = CLONE_VFORK;
#endif
	if (sc.nr == SYS_clone)
		flags = sc.arg1;	/* clone(flags, ...) on x86-64 and aarch64 */
#ifdef SYS_clone3
	if (sc.nr == SYS_clone3) {	/* clone3(&args, size): flags come first */
		struct iovec local = { &flags, sizeof(flags) };
		struct iovec remote = { (void *)(uintptr_t)sc.arg1, sizeof(flags) };

		if (process_vm_readv(pid, &local, 1, &remote, 1, 0) != sizeof(flags))
			flags = 0;
	}
#endif
	if (!(flags & CLONE_VFORK))
		return false;
	*pc = sc.pc;
	return true;
}

struct pass {
	struct attach_list *l;
	pid_t pid;
	int seized;
	struct error *err;
};

static int seize_listed(void *arg, pid_t tid)
{
	struct pass *pass = arg;
	int rc;

	if (find(pass->l, tid))
		return 0;
	rc = seize_one(pass->l, tid, pass->pid, pass->err);
	if (rc < 0)
		return -2;
	pass->seized += rc;
	return 0;
}

/* One pass over /proc/PID/task: how many threads were seized, or -1. */
static int seize_pass(struct attach_list *l, pid_t pid, struct error *err)
{
	struct pass pass = { l, pid, 0, err };
	int rc = procfs_each_task(pid, seize_listed, &pass);

	if (rc == -1)
		return l->n ? 0 : seize_error(pid, ESRCH, err);
	return rc < 0 ? -1 : pass.seized;
}

int attach_seize(struct attach_list *l, pid_t id, int whole, struct error *err)
{
	size_t first = l->n;
	pid_t tgid = id, ppid;
	int rc;

	if (id == getpid())
		return error_set(err, "cannot attach to %d: that is the sampler itself", (int)id);
	if (procfs_read_ids(id, &tgid, &ppid) < 0)
		return seize_error(id, ESRCH, err);
	if (whole && tgid != id)
		return error_set(err, "--pid %d: %d is a thread of process %d (use --pid %d, or --tid %d for the thread alone)",
				 (int)id, (int)id, (int)tgid, (int)tgid, (int)id);
	if (!whole) {
		rc = seize_one(l, id, tgid, err);
		if (rc == 0 && !find(l, id))
			rc = seize_error(id, exited(tgid, id) ? EPERM : ESRCH, err);
		return rc < 0 ? -1 : 0;
	}
	/* A thread seized in one pass may have created others before it was
	 * seized, or exec'd: read the list again until it holds nothing new. */
	do {
		rc = seize_pass(l, id, err);
		if (rc >= 0) {
			int again = reseize_replaced(l, first, err);

			rc = again < 0 ? -1 : rc + again;
		}
	} while (rc > 0);
	if (rc == 0 && l->n == first)	/* every thread has exited: a zombie */
		rc = seize_error(id, EPERM, err);
	if (rc < 0) {
		while (l->n > first)
			ptrace(PTRACE_DETACH, l->tids[--l->n], 0, 0);
		return -1;
	}
	return 0;
}

void attach_release(struct attach_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		ptrace(PTRACE_DETACH, l->tids[i], 0, 0);
	l->n = 0;
}

void attach_free(struct attach_list *l)
{
	free(l->tids);
	free(l->pids);
	memset(l, 0, sizeof(*l));
}
