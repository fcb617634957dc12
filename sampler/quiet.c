/* quiet.c - has a traced thread run since the sampler last looked (quiet.h). */
#include "quiet.h"

#include <linux/perf_event.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "procfs.h"

/* Without a ring, a thread found running (a busy one) is asked again only
 * this many samples later: reading /proc/TID/syscall of a running thread
 * is a wasted 5 us, and a busy thread is stopped anyway. */
#define QUIET_RETRY 16

static size_t ring_size(void)
{
	return 2 * (size_t)sysconf(_SC_PAGESIZE);	/* header and one data page */
}

void quiet_init(struct quiet *q)
{
	memset(q, 0, sizeof(*q));
	q->syscall_fd = -1;
}

void quiet_open(struct quiet *q, pid_t tid)
{
	struct perf_event_attr a;
	void *m;
	int fd;

	quiet_close(q);
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_DUMMY;
	a.context_switch = 1;
	a.exclude_kernel = 1;	/* allowed at perf_event_paranoid 2 */
	a.exclude_hv = 1;
	fd = (int)syscall(SYS_perf_event_open, &a, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return;
	/* Read-only: the kernel overwrites old records, the head always moves. */
	m = mmap(NULL, ring_size(), PROT_READ, MAP_SHARED, fd, 0);
	close(fd);		/* the mapping keeps the event */
	if (m != MAP_FAILED)
		q->ring = m;
}

void quiet_close(struct quiet *q)
{
	if (q->ring)
		munmap((void *)q->ring, ring_size());
	if (q->syscall_fd >= 0)
		close(q->syscall_fd);
	quiet_init(q);
}

static uint64_t ring_head(const struct quiet *q)
{
	const volatile struct perf_event_mmap_page *pg = q->ring;

	return __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
}

/* Was the thread's last switch out of a CPU into a wait (not a preemption)?
 * A misread only costs a /proc/TID/syscall read or a stop, both exact. */
/* The ring's last record (NULL: none yet).  Every record is a bare 8-byte
 * PERF_RECORD_SWITCH header (no sample_id_all). */
static const volatile struct perf_event_header *last_record(const struct quiet *q, uint64_t head)
{
	const volatile struct perf_event_mmap_page *pg = q->ring;
	uint64_t off = pg->data_offset ? pg->data_offset : (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t size = pg->data_size ? pg->data_size : (uint64_t)sysconf(_SC_PAGESIZE);
	const volatile struct perf_event_header *h;

	if (head < sizeof(*h))
		return NULL;
	return (const volatile void *)((const volatile char *)q->ring + off +
				       (head - sizeof(*h)) % size);
}

static bool ring_says_blocked(const struct quiet *q, uint64_t head)
{
	const volatile struct perf_event_header *h = last_record(q, head);

	if (!h)
		return true;	/* nothing yet: ask /proc */
	return h->type == PERF_RECORD_SWITCH && (h->misc & PERF_RECORD_MISC_SWITCH_OUT) &&
	       !(h->misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT);
}

/* The switch stamp: the ring's head, or the schedstat run count (with the
 * CPU time into *cpu_ns). */
static int read_stamp(const struct quiet *q, pid_t pid, pid_t tid, int schedstat_fd,
		      uint64_t *stamp, uint64_t *cpu_ns)
{
	if (q->ring) {
		*stamp = ring_head(q);
		return 0;
	}
	return procfs_read_schedstat(schedstat_fd, pid, tid, cpu_ns, stamp);
}

enum quiet_look quiet_look(struct quiet *q, pid_t pid, pid_t tid, int schedstat_fd,
			   uint64_t *pc, uint64_t *sp, uint64_t *cpu_ns)
{
	uint64_t stamp, cpu = *cpu_ns, blocked_pc, blocked_sp;

	/* The stamp is read before the PC: equal later, the thread was not
	 * switched in since, and it was off CPU when its PC was read. */
	if (read_stamp(q, pid, tid, schedstat_fd, &stamp, &cpu) < 0)
		return QUIET_RAN;
	if (q->known && stamp == q->mark) {
		*cpu_ns = cpu;
		return QUIET_SAME;
	}
	q->known = false;
	if (q->ring && !ring_says_blocked(q, stamp))
		return QUIET_RAN;	/* on a CPU, or preempted: it moves */
	if (q->retry_in) {
		q->retry_in--;
		return QUIET_RAN;
	}
	if (q->syscall_fd < 0)
		q->syscall_fd = procfs_open_syscall(pid, tid);
	if (procfs_read_blocked_pc(q->syscall_fd, pid, tid, &blocked_pc, &blocked_sp) < 0) {
		q->retry_in = QUIET_RETRY;
		return QUIET_RAN;
	}
	if (q->ring)
		cpu = procfs_read_cputime(schedstat_fd, pid, tid);
	*pc = blocked_pc;
	*sp = blocked_sp;
	*cpu_ns = cpu;
	q->seen = stamp;
	return QUIET_BLOCKED;
}

bool quiet_unmoved(const struct quiet *q, pid_t pid, pid_t tid, int schedstat_fd)
{
	uint64_t stamp, cpu;

	return read_stamp(q, pid, tid, schedstat_fd, &stamp, &cpu) == 0 && stamp == q->seen;
}

bool quiet_on_cpu(const struct quiet *q)
{
	const volatile struct perf_event_header *h = q->ring ? last_record(q, ring_head(q)) : NULL;

	if (!h)
		return true;	/* not known: as if it were */
	return h->type == PERF_RECORD_SWITCH && !(h->misc & PERF_RECORD_MISC_SWITCH_OUT);
}

uint64_t quiet_stamp(const struct quiet *q)
{
	return q->ring ? ring_head(q) : 0;
}

bool quiet_switched(const struct quiet *q, uint64_t since)
{
	return q->ring && ring_head(q) != since;
}

void quiet_accept(struct quiet *q)
{
	q->mark = q->seen;
	q->known = true;
}
