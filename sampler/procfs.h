/* procfs.h - what the engine reads from /proc about its target:
 * memory maps, per-thread CPU time, command name and arguments, parentage. */
#ifndef SAMPLER_PROCFS_H
#define SAMPLER_PROCFS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "../common/error.h"

/* One line of /proc/PID/maps. */
struct map_entry {
	uint64_t start;
	uint64_t end;
	uint64_t pgoff;
	uint32_t dev_major;
	uint32_t dev_minor;
	uint64_t inode;
	uint32_t prot;		/* PROT_READ | PROT_WRITE | PROT_EXEC */
	char *path;		/* owned; "" for anonymous maps */
};

/* A process's maps, sorted by start address (as the kernel lists them). */
struct map_list {
	struct map_entry *maps;
	size_t n;
};

int procfs_read_maps(pid_t pid, struct map_list *out, struct error *err);
/* The same through thread tid of process pid (/proc/PID/task/TID/maps):
 * what a process whose leader has exited still has mapped. */
int procfs_read_thread_maps(pid_t pid, pid_t tid, struct map_list *out, struct error *err);
void map_list_free(struct map_list *list);
/* Does any map contain addr? (binary search) */
const struct map_entry *map_list_find(const struct map_list *list, uint64_t addr);
/* Put m in the list (its path copied) as mmap(MAP_FIXED) puts a mapping:
 * what it overlaps is cut away, kept in order.  0, or -1 when out of
 * memory (the list unchanged). */
int map_list_insert(struct map_list *list, const struct map_entry *m);
/* Same maps, same order, same paths? */
int map_list_equal(const struct map_list *a, const struct map_list *b);

/* Open /proc/PID/task/TID/schedstat, kept open for procfs_read_cputime;
 * -1 when it cannot be opened or would use one of the last descriptors. */
int procfs_open_schedstat(pid_t pid, pid_t tid);
/* The thread's CPU time in ns (first schedstat field) into *cpu_ns, by
 * pread on fd, or by a transient open when fd < 0: 0, or -1 with errno
 * (EMFILE: no descriptor left; ENOENT, ESRCH: the thread is gone) and
 * *cpu_ns untouched - a failed reading is never a zero. */
int procfs_read_cputime(int fd, pid_t pid, pid_t tid, uint64_t *cpu_ns);
/* CPU time and run count (schedstat fields 1 and 3): 0, or -1 when
 * unreadable. */
int procfs_read_schedstat(int fd, pid_t pid, pid_t tid, uint64_t *cpu_ns, uint64_t *runs);
/* Open /proc/PID/task/TID/syscall, kept open for procfs_read_blocked_pc
 * (-1 beyond the descriptor budget, as for schedstat). */
int procfs_open_syscall(pid_t pid, pid_t tid);
/* The user PC and stack pointer of a thread that is off CPU now (in a
 * system call, a fault or a stop), by fd or a transient open when fd < 0:
 * 0, or -1 when it is running or gone. */
int procfs_read_blocked_pc(int fd, pid_t pid, pid_t tid, uint64_t *pc, uint64_t *sp);
/* The same line whole: the system call number (-1 off a system call: a
 * fault or a stop), its first argument (0 when none), stack pointer, PC. */
struct procfs_syscall {
	long nr;
	uint64_t arg1, sp, pc;
};
int procfs_read_syscall(int fd, pid_t pid, pid_t tid, struct procfs_syscall *sc);
/* A thread's state letter (R, S, D, Z, X...) and its PF_* flags, from
 * /proc/PID/task/TID/stat: 0, or -1 when it is gone. */
int procfs_read_task_state(pid_t pid, pid_t tid, char *state, uint64_t *flags);
/* When the process started, as the kernel counts it (/proc/PID/stat
 * field 22, in clock ticks since boot), in CLOCK_MONOTONIC ns (now_ns:
 * that clock now): 0, or -1 when it is gone or the value is out of range. */
int procfs_read_start(pid_t pid, uint64_t now_ns, uint64_t *start_ns);
/* fd, when it may stay open: descriptors kept open (per-thread files,
 * the unwinder's ELF files) stay 32 below the limit, so that
 * plug-ins, the profile and transient reads always find one free.  Else
 * closes it and returns -1 (errno EMFILE). */
int procfs_keep_fd(int fd);
/* Raise the sampler's own descriptor limit to its hard limit (call after
 * the target is started: it keeps the limit it was given). */
void procfs_raise_fd_limit(void);

/* Open /proc/PID/task/TID/stat, kept open for procfs_read_last_cpu
 * (-1 beyond the descriptor budget). */
int procfs_open_stat(pid_t pid, pid_t tid);
/* The CPU the thread last ran on (stat field 39), by fd or a transient
 * open when fd < 0; -1 when unreadable. */
int procfs_read_last_cpu(int fd, pid_t pid, pid_t tid);

/* /proc/PID/comm without the newline ("" when unreadable). */
void procfs_read_comm(pid_t pid, char *buf, size_t size);
/* The same for one thread: /proc/PID/task/TID/comm. */
void procfs_read_thread_comm(pid_t pid, pid_t tid, char *buf, size_t size);
/* /proc/PID/cmdline with NULs turned into spaces, truncated to size. */
void procfs_read_cmdline(pid_t pid, char *buf, size_t size);
/* The real uid of a process, or -1 when it is gone. */
long procfs_read_uid(pid_t pid);
/* The owner of pid's /proc files: its effective uid, but root when it is
 * not dumpable (prctl(PR_SET_DUMPABLE, 0), a setuid or setgid program);
 * -1 when it is gone. */
long procfs_read_dump_owner(pid_t pid);
/* Tgid and PPid of a thread from /proc/TID/status: 0, or -1 when gone. */
int procfs_read_ids(pid_t tid, pid_t *tgid, pid_t *ppid);

/* The signals pending for the whole process (ShdPnd: bit N-1 is signal
 * N): 0, or -1 when it is gone. */
int procfs_read_pending(pid_t pid, uint64_t *mask);
/* The thread tracing pid (TracerPid: its tid), 0 when none or unknown. */
pid_t procfs_read_tracer(pid_t pid);
/* fn(arg, tid) for each thread /proc/PID/task lists, until fn returns
 * nonzero: that value, 0 after the last, -1 when the process is gone. */
int procfs_each_task(pid_t pid, int (*fn)(void *arg, pid_t tid), void *arg);

#endif
