/* procfs.c - reading /proc for the engine.  Every reader copes with the
 * thread or process having gone away meanwhile: that is normal, not an error. */
#include "procfs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../common/grow.h"

static uint32_t parse_prot(const char *perms)
{
	uint32_t prot = 0;

	if (perms[0] == 'r')
		prot |= PROT_READ;
	if (perms[1] == 'w')
		prot |= PROT_WRITE;
	if (perms[2] == 'x')
		prot |= PROT_EXEC;
	return prot;
}

/* The kernel shows a newline in a map's path as the four bytes \012 (its
 * only escape there): give the path back its newline, so that the file
 * can be opened by that name. */
static void unmangle_path(char *s)
{
	char *out = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] == '0' && s[2] == '1' && s[3] == '2') {
			*out++ = '\n';
			s += 3;
		} else {
			*out++ = *s;
		}
	}
	*out = '\0';
}

/* Parse one maps line: "start-end perms offset major:minor inode   path". */
static int parse_map_line(char *line, struct map_entry *m)
{
	char perms[8];
	int consumed = 0;
	char *path;
	size_t len;

	if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %x:%x %" SCNu64 "%n",
		   &m->start, &m->end, perms, &m->pgoff, &m->dev_major, &m->dev_minor,
		   &m->inode, &consumed) != 7 || consumed == 0)
		return -1;
	m->prot = parse_prot(perms);
	path = line + consumed;
	while (*path == ' ' || *path == '\t')
		path++;
	len = strlen(path);
	if (len && path[len - 1] == '\n')
		path[--len] = '\0';
	unmangle_path(path);
	m->path = strdup(path);
	return m->path ? 0 : -1;
}

int procfs_read_maps(pid_t pid, struct map_list *out, struct error *err)
{
	return procfs_read_thread_maps(pid, pid, out, err);
}

int procfs_read_thread_maps(pid_t pid, pid_t tid, struct map_list *out, struct error *err)
{
	char name[64], *line = NULL;
	size_t cap = 0, alloc = 0;
	FILE *f;

	out->maps = NULL;
	out->n = 0;
	/* the leader's own file is empty once it has exited (pthread_exit),
	 * though its other threads run on in the same memory */
	if (tid == pid)
		snprintf(name, sizeof(name), "/proc/%d/maps", (int)pid);
	else
		snprintf(name, sizeof(name), "/proc/%d/task/%d/maps", (int)pid, (int)tid);
	f = fopen(name, "re");
	if (!f)
		return error_set(err, "cannot read %s: %s (the process is gone, or /proc is not mounted)",
				 name, strerror(errno));
	while (getline(&line, &cap, f) > 0) {
		struct map_entry m;

		if (GROW_ARRAY(out->maps, alloc, out->n + 1) < 0)
			goto nomem;
		if (parse_map_line(line, &m) == 0)
			out->maps[out->n++] = m;
	}
	free(line);
	fclose(f);
	return 0;
nomem:
	free(line);
	fclose(f);
	map_list_free(out);
	return error_set(err, "cannot read %s: out of memory", name);
}

void map_list_free(struct map_list *list)
{
	for (size_t i = 0; i < list->n; i++)
		free(list->maps[i].path);
	free(list->maps);
	list->maps = NULL;
	list->n = 0;
}

const struct map_entry *map_list_find(const struct map_list *list, uint64_t addr)
{
	size_t lo = 0, hi = list->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct map_entry *m = &list->maps[mid];

		if (addr < m->start)
			hi = mid;
		else if (addr >= m->end)
			lo = mid + 1;
		else
			return m;
	}
	return NULL;
}

int map_list_equal(const struct map_list *a, const struct map_list *b)
{
	if (a->n != b->n)
		return 0;
	for (size_t i = 0; i < a->n; i++) {
		const struct map_entry *x = &a->maps[i], *y = &b->maps[i];

		if (x->start != y->start || x->end != y->end || x->pgoff != y->pgoff ||
		    x->inode != y->inode || x->prot != y->prot || strcmp(x->path, y->path))
			return 0;
	}
	return 1;
}

static int compare_start(const void *a, const void *b)
{
	const struct map_entry *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* The part of old at [start, end), its path shared with old. */
static struct map_entry map_part(const struct map_entry *old, uint64_t start, uint64_t end)
{
	struct map_entry part = *old;

	part.start = start;
	part.end = end;
	part.pgoff = old->pgoff + (start - old->start);
	return part;
}

int map_list_insert(struct map_list *list, const struct map_entry *m)
{
	struct map_entry *maps = calloc(list->n + 2, sizeof(*maps));
	char *path = strdup(m->path), *split = NULL;
	size_t n = 0;

	if (!maps || !path)
		goto fail;
	for (size_t i = 0; i < list->n; i++) {
		const struct map_entry *old = &list->maps[i];

		if (old->end <= m->start || old->start >= m->end) {
			maps[n++] = *old;
			continue;
		}
		/* overlapped: what is left of it before and after m */
		if (old->start < m->start)
			maps[n++] = map_part(old, old->start, m->start);
		if (old->end > m->end) {
			if (old->start < m->start && !(split = strdup(old->path)))
				goto fail;	/* (only one map can hold m whole) */
			maps[n] = map_part(old, m->end, old->end);
			if (old->start < m->start)
				maps[n].path = split;
			n++;
		}
		if (old->start >= m->start && old->end <= m->end)
			free(old->path);	/* covered whole */
	}
	maps[n] = *m;
	maps[n++].path = path;
	qsort(maps, n, sizeof(*maps), compare_start);
	free(list->maps);
	list->maps = maps;
	list->n = n;
	return 0;
fail:
	free(maps);
	free(path);
	return -1;
}

static int open_task_file(pid_t pid, pid_t tid, const char *file)
{
	char name[64];

	snprintf(name, sizeof(name), "/proc/%d/task/%d/%s", (int)pid, (int)tid, file);
	return open(name, O_RDONLY | O_CLOEXEC);
}

/* Descriptors kept open stay this far below the limit, so that plug-ins,
 * the profile and transient reads always find one free.  Every per-thread
 * descriptor (schedstat, syscall, stat) and every ELF file the unwinder
 * holds (unwind.c) shares this one budget. */
#define FD_RESERVE 32

int procfs_keep_fd(int fd)
{
	struct rlimit lim;

	if (fd >= 0 && getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY &&
	    (rlim_t)fd + FD_RESERVE >= lim.rlim_cur) {
		close(fd);
		errno = EMFILE;
		return -1;
	}
	return fd;
}

static int open_kept(pid_t pid, pid_t tid, const char *file)
{
	return procfs_keep_fd(open_task_file(pid, tid, file));
}

/* pread a task file whole into buf (NUL-terminated): from fd when it is
 * kept open, else by a transient open - beyond the descriptor budget
 * (thousands of threads, a low ulimit -n) slower, but never unread. */
static ssize_t read_task_file(int fd, pid_t pid, pid_t tid, const char *file,
			      char *buf, size_t size)
{
	bool transient = fd < 0;
	ssize_t n;
	int saved;

	if (transient)
		fd = open_task_file(pid, tid, file);
	if (fd < 0)
		return -1;
	n = pread(fd, buf, size - 1, 0);
	saved = errno;
	if (transient)
		close(fd);
	errno = saved;
	if (n >= 0)
		buf[n] = '\0';
	return n;
}

int procfs_open_schedstat(pid_t pid, pid_t tid)
{
	return open_kept(pid, tid, "schedstat");
}

int procfs_read_cputime(int fd, pid_t pid, pid_t tid, uint64_t *cpu_ns)
{
	char buf[96], *end;
	unsigned long long cpu;
	ssize_t n = read_task_file(fd, pid, tid, "schedstat", buf, sizeof(buf));

	if (n <= 0) {
		if (n == 0)
			errno = ESRCH;	/* an empty file: the thread is gone */
		return -1;
	}
	cpu = strtoull(buf, &end, 10);
	if (end == buf) {
		errno = EINVAL;
		return -1;
	}
	*cpu_ns = cpu;
	return 0;
}

int procfs_read_schedstat(int fd, pid_t pid, pid_t tid, uint64_t *cpu_ns, uint64_t *runs)
{
	char buf[96];
	unsigned long long cpu, delay, count;

	if (read_task_file(fd, pid, tid, "schedstat", buf, sizeof(buf)) <= 0)
		return -1;
	if (sscanf(buf, "%llu %llu %llu", &cpu, &delay, &count) != 3)
		return -1;
	*cpu_ns = cpu;
	*runs = count;
	return 0;
}

int procfs_open_syscall(pid_t pid, pid_t tid)
{
	return open_kept(pid, tid, "syscall");
}

int procfs_read_syscall(int fd, pid_t pid, pid_t tid, struct procfs_syscall *sc)
{
	char buf[256], *p = buf, *end;
	uint64_t word[9];
	int n = 0;

	if (read_task_file(fd, pid, tid, "syscall", buf, sizeof(buf)) <= 0)
		return -1;
	/* "NR ARG1..ARG6 SP PC", "-1 SP PC" off a system call, or "running" */
	sc->nr = strtol(p, &end, 10);
	if (end == p)
		return -1;
	for (p = end; n < 9; p = end) {
		while (*p == ' ')
			p++;
		if (strncmp(p, "0x", 2))
			break;
		word[n++] = strtoull(p, &end, 16);
	}
	if (n != 2 && n != 8)
		return -1;
	sc->arg1 = n == 8 ? word[0] : 0;
	sc->sp = word[n - 2];
	sc->pc = word[n - 1];
	return 0;
}

int procfs_read_blocked_pc(int fd, pid_t pid, pid_t tid, uint64_t *pc, uint64_t *sp)
{
	struct procfs_syscall sc;

	if (procfs_read_syscall(fd, pid, tid, &sc) < 0)
		return -1;
	*pc = sc.pc;
	*sp = sc.sp;
	return 0;
}

int procfs_read_task_state(pid_t pid, pid_t tid, char *state, uint64_t *flags)
{
	char buf[1024], *p;
	int field;

	if (read_task_file(-1, pid, tid, "stat", buf, sizeof(buf)) <= 0)
		return -1;
	p = strrchr(buf, ')');	/* the command name may hold spaces */
	if (!p || p[1] != ' ' || !p[2])
		return -1;
	*state = p[2];
	/* p is at the end of field 2; "flags" is field 9 */
	for (field = 2; field < 9 && p; field++)
		p = strchr(p + 1, ' ');
	*flags = p ? strtoull(p + 1, NULL, 10) : 0;
	return 0;
}

void procfs_raise_fd_limit(void)
{
	struct rlimit lim;

	if (getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur < lim.rlim_max) {
		lim.rlim_cur = lim.rlim_max;
		setrlimit(RLIMIT_NOFILE, &lim);
	}
}

int procfs_open_stat(pid_t pid, pid_t tid)
{
	return open_kept(pid, tid, "stat");
}

int procfs_read_last_cpu(int fd, pid_t pid, pid_t tid)
{
	char buf[1024], *p;
	int field;

	if (read_task_file(fd, pid, tid, "stat", buf, sizeof(buf)) <= 0)
		return -1;
	p = strrchr(buf, ')');	/* the command name may hold spaces */
	if (!p)
		return -1;
	/* p is at the end of field 2; "processor" is field 39 */
	for (field = 2; field < 39 && p; field++)
		p = strchr(p + 1, ' ');
	return p ? atoi(p + 1) : -1;
}

/* Read a small /proc file whole; returns its length or -1. */
static ssize_t read_small(const char *name, char *buf, size_t size)
{
	int fd = open(name, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return n;
}

/* /proc/PID/FILE into buf (empty when unreadable): its length or -1. */
static ssize_t read_pid_file(pid_t pid, const char *file, char *buf, size_t size)
{
	char name[64];
	ssize_t n;

	snprintf(name, sizeof(name), "/proc/%d/%s", (int)pid, file);
	n = read_small(name, buf, size);
	if (n < 0)
		buf[0] = '\0';
	return n;
}

void procfs_read_comm(pid_t pid, char *buf, size_t size)
{
	ssize_t n = read_pid_file(pid, "comm", buf, size);

	if (n > 0 && buf[n - 1] == '\n')
		buf[n - 1] = '\0';
}

void procfs_read_thread_comm(pid_t pid, pid_t tid, char *buf, size_t size)
{
	char file[48];
	ssize_t n;

	snprintf(file, sizeof(file), "task/%d/comm", (int)tid);
	n = read_pid_file(pid, file, buf, size);
	if (n > 0 && buf[n - 1] == '\n')
		buf[n - 1] = '\0';
}

void procfs_read_cmdline(pid_t pid, char *buf, size_t size)
{
	ssize_t n = read_pid_file(pid, "cmdline", buf, size);

	if (n < 0)
		return;
	while (n > 0 && buf[n - 1] == '\0')
		n--;
	for (ssize_t i = 0; i < n; i++)
		if (buf[i] == '\0')
			buf[i] = ' ';
	buf[n] = '\0';
}

/* The value after "KEY:" in /proc/PID/status, in base: 0, or -1. */
static int read_status_field(pid_t pid, const char *key, int base, uint64_t *value)
{
	char name[64], buf[4096], *p;
	size_t len = strlen(key);

	snprintf(name, sizeof(name), "/proc/%d/status", (int)pid);
	if (read_small(name, buf, sizeof(buf)) < 0)
		return -1;
	for (p = buf; p; p = strchr(p, '\n')) {
		if (*p == '\n')
			p++;
		if (strncmp(p, key, len) == 0 && p[len] == ':') {
			*value = strtoull(p + len + 1, NULL, base);
			return 0;
		}
	}
	return -1;
}

int procfs_read_pending(pid_t pid, uint64_t *mask)
{
	return read_status_field(pid, "ShdPnd", 16, mask);
}

long procfs_read_uid(pid_t pid)
{
	uint64_t uid;

	return read_status_field(pid, "Uid", 10, &uid) == 0 ? (long)uid : -1;
}

long procfs_read_dump_owner(pid_t pid)
{
	char name[64];
	struct stat st;

	/* a file: the directory /proc/PID keeps the euid either way */
	snprintf(name, sizeof(name), "/proc/%d/stat", (int)pid);
	return stat(name, &st) == 0 ? (long)st.st_uid : -1;
}

pid_t procfs_read_tracer(pid_t pid)
{
	uint64_t tracer;

	return read_status_field(pid, "TracerPid", 10, &tracer) == 0 ? (pid_t)tracer : 0;
}

int procfs_each_task(pid_t pid, int (*fn)(void *arg, pid_t tid), void *arg)
{
	char path[64];
	struct dirent *d;
	int rc = 0;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	dir = opendir(path);
	if (!dir)
		return -1;
	while (rc == 0 && (d = readdir(dir))) {
		pid_t tid = (pid_t)strtol(d->d_name, NULL, 10);

		if (tid > 0)
			rc = fn(arg, tid);
	}
	closedir(dir);
	return rc;
}

int procfs_read_ids(pid_t tid, pid_t *tgid, pid_t *ppid)
{
	char name[64], buf[2048], *p;

	snprintf(name, sizeof(name), "/proc/%d/status", (int)tid);
	if (read_small(name, buf, sizeof(buf)) < 0)
		return -1;
	p = strstr(buf, "\nTgid:");
	if (!p)
		return -1;
	*tgid = (pid_t)strtol(p + 6, NULL, 10);
	p = strstr(buf, "\nPPid:");
	*ppid = p ? (pid_t)strtol(p + 6, NULL, 10) : 0;
	return 0;
}

/* The 20th field after the name's closing parenthesis is field 22. */
static int read_start_ticks(pid_t pid, unsigned long long *ticks)
{
	char path[40], buf[1024];
	const char *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	for (int field = 2; p && field < 22; field++)
		p = strchr(p + 1, ' ');
	return p && sscanf(p + 1, "%llu", ticks) == 1 ? 0 : -1;
}

int procfs_read_start(pid_t pid, uint64_t now_ns, uint64_t *start_ns)
{
	unsigned long long ticks;
	long hz = sysconf(_SC_CLK_TCK);
	struct timespec boot;
	uint64_t since_boot, boot_ns;

	if (hz <= 0 || read_start_ticks(pid, &ticks) < 0 ||
	    clock_gettime(CLOCK_BOOTTIME, &boot) < 0)
		return -1;
	since_boot = (uint64_t)ticks * (1000000000u / (uint64_t)hz);
	boot_ns = (uint64_t)boot.tv_sec * 1000000000u + (uint64_t)boot.tv_nsec;
	/* boot time runs ahead of the monotonic clock by the time suspended */
	if (since_boot > boot_ns || boot_ns - since_boot > now_ns)
		return -1;
	*start_ns = now_ns - (boot_ns - since_boot);
	return 0;
}
