/* quiet.c - has a traced thread run since the sampler last looked (quiet.h). */
#include "quiet.h"

#include <linux/perf_event.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../common/switchevent.h"
#include "procfs.h"

/* The switches one interval may hold to be placed: more (a thread that
 * blocks and wakes many times between two samples) leave it unplaced, as
 * does a ring that overwrote them (one page: 256 switches forward, about
 * 110 backward). */
#define RUN_SWITCHES_MAX 256
#define RUN_OUT (1ULL << 63)	/* in ring_switches: a switch out */

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

void quiet_open(struct quiet *q, pid_t tid, bool with_registers)
{
	bool backward = with_registers;
	int fd = backward ? switch_event_open(tid, true) : -1;
	void *m;

	quiet_close(q);
	if (fd < 0) {
		backward = false;
		fd = switch_event_open(tid, false);
	}
	if (fd < 0)
		return;
	/* Read-only: the kernel overwrites old records, the head always moves. */
	m = mmap(NULL, ring_size(), PROT_READ, MAP_SHARED, fd, 0);
	close(fd);		/* the mapping keeps the event */
	if (m != MAP_FAILED) {
		q->ring = m;
		q->backward = backward;
	}
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

static uint64_t ring_data_size(const struct quiet *q)
{
	const volatile struct perf_event_mmap_page *pg = q->ring;

	return pg->data_size ? pg->data_size : (uint64_t)sysconf(_SC_PAGESIZE);
}

/* The 8 bytes at ring position pos (records may wrap around the end). */
static const volatile uint64_t *ring_at(const struct quiet *q, uint64_t pos)
{
	const volatile struct perf_event_mmap_page *pg = q->ring;
	uint64_t off = pg->data_offset ? pg->data_offset : (uint64_t)sysconf(_SC_PAGESIZE);

	return (const volatile void *)((const volatile char *)q->ring + off +
				       pos % ring_data_size(q));
}

/* A switch record: its header and its time (sample_id_all). */
enum { SWITCH_RECORD = sizeof(struct perf_event_header) + sizeof(uint64_t) };

/* The ring's last record (NULL: none yet).  A forward ring holds only
 * switch records, so the last one ends at the head; a backward ring's
 * newest record starts at the head. */
static const volatile struct perf_event_header *last_record(const struct quiet *q, uint64_t head)
{
	if (q->backward)
		return head ? (const volatile void *)ring_at(q, head) : NULL;
	if (head < SWITCH_RECORD)
		return NULL;
	return (const volatile void *)ring_at(q, head - SWITCH_RECORD);
}

/* The thread is off CPU and the ring says where it will resume: the last
 * record is a switch out, and the one before it the sample of that switch,
 * with the user SP and PC (in a system call: its return address, which is
 * what a stop or /proc/TID/syscall shows).  *preempted: it left the CPU
 * runnable and waits for one; else it went to wait (it may have been woken
 * since: it is still where it was until it is switched in). */
static bool ring_left_cpu_at(const struct quiet *q, uint64_t head, uint64_t *pc, uint64_t *sp,
			     bool *preempted)
{
	const volatile struct perf_event_header *h = last_record(q, head);
	/* header, time, abi, sp, pc */
	enum { SAMPLE_SIZE = sizeof(*h) + 4 * sizeof(uint64_t) };

	if (!q->backward || !h || h->type != PERF_RECORD_SWITCH ||
	    !(h->misc & PERF_RECORD_MISC_SWITCH_OUT))
		return false;
	*preempted = h->misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT;
	head += h->size;
	h = (const volatile void *)ring_at(q, head);
	if (h->type != PERF_RECORD_SAMPLE || h->size != SAMPLE_SIZE ||
	    *ring_at(q, head + 16) != PERF_SAMPLE_REGS_ABI_64)
		return false;	/* no user registers (a kernel-only task, an exit) */
	*sp = *ring_at(q, head + 24);
	*pc = *ring_at(q, head + 32);
	/* The sample is this switch's if the run it ended began just before
	 * (a throttled event drops samples, not switch records), or it is
	 * the ring's first record. */
	head += SAMPLE_SIZE;
	if (head == 0)
		return true;
	h = (const volatile void *)ring_at(q, head);
	return h->type == PERF_RECORD_SWITCH && !(h->misc & PERF_RECORD_MISC_SWITCH_OUT);
}

bool quiet_straight_to_stop(const struct quiet *q, uint64_t since, uint64_t when_ns)
{
	/* switch in, the switch-out sample, switch out */
	enum { RUN = 2 * (sizeof(struct perf_event_header) + sizeof(uint64_t)) +
		     sizeof(struct perf_event_header) + 4 * sizeof(uint64_t) };
	uint64_t head, pc, sp;
	bool preempted;

	if (!q->backward)
		return true;	/* not known: taken as so */
	head = ring_head(q);
	if (since - head != RUN || !ring_left_cpu_at(q, head, &pc, &sp, &preempted))
		return false;
	return *ring_at(q, since - sizeof(uint64_t)) >= when_ns;	/* the switch in's time */
}

/* Was the thread's last switch out of a CPU into a wait (not a preemption)?
 * A misread only costs a /proc/TID/syscall read or a stop, both exact. */
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

enum quiet_look quiet_look(struct quiet *q, uint64_t stamp, pid_t pid, pid_t tid,
			   int schedstat_fd, uint64_t *pc, uint64_t *sp, uint64_t *cpu_ns)
{
	uint64_t cpu = *cpu_ns, blocked_pc, blocked_sp;

	/* The stamp is read before the PC: equal later, the thread was not
	 * switched in since, and it was off CPU when its PC was read. */
	if (!q->ring && read_stamp(q, pid, tid, schedstat_fd, &stamp, &cpu) < 0)
		return QUIET_RAN;
	if (q->known && stamp == q->mark) {
		*cpu_ns = cpu;	/* unchanged, or read with the run count */
		return QUIET_SAME;
	}
	q->known = false;
	if (q->backward && stamp) {
		bool preempted;

		/* Judged as the ring was at the stamp.  If the thread got a CPU
		 * since (another thread's stop freed one), its CPU time is read
		 * a little late; its PC is the stamp's. */
		if (!ring_left_cpu_at(q, stamp, &blocked_pc, &blocked_sp, &preempted))
			return QUIET_RAN;	/* on a CPU: it moves */
		if (procfs_read_cputime(schedstat_fd, pid, tid, cpu_ns) < 0)
			return QUIET_RAN;	/* stopped, it is read (and counted) so */
		*pc = blocked_pc;
		*sp = blocked_sp;
		q->seen = stamp;
		q->seen_runnable = preempted;
		return preempted ? QUIET_WAITING : QUIET_BLOCKED;
	}
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
	if (q->ring && procfs_read_cputime(schedstat_fd, pid, tid, &cpu) < 0)
		return QUIET_RAN;
	*pc = blocked_pc;
	*sp = blocked_sp;
	*cpu_ns = cpu;
	q->seen = stamp;
	q->seen_runnable = false;
	return QUIET_BLOCKED;
}

bool quiet_unmoved(const struct quiet *q, pid_t pid, pid_t tid, int schedstat_fd)
{
	uint64_t stamp, cpu;

	return read_stamp(q, pid, tid, schedstat_fd, &stamp, &cpu) == 0 && stamp == q->seen;
}

bool quiet_on_cpu(const struct quiet *q, uint64_t stamp)
{
	const volatile struct perf_event_header *h = q->ring ? last_record(q, stamp) : NULL;

	if (q->ring && q->known && stamp == q->mark)
		return false;	/* off CPU at the mark, not switched in since */

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
	q->runnable = q->seen_runnable;
}

void quiet_stopped(struct quiet *q)
{
	if (!q->backward)
		return;		/* preempted threads are stopped: see quiet.h */
	q->mark = ring_head(q);
	q->known = true;
	q->runnable = true;
}

bool quiet_runnable(const struct quiet *q)
{
	return q->runnable;
}

bool quiet_samples_registers(const struct quiet *q)
{
	return q->backward;
}

/* The switches in [from, to) of the ring, oldest first, into ev (their
 * times, the switches out with the top bit set): how many, or -1 when
 * they do not fit or the ring has overwritten some.  A backward ring
 * holds them newest first, between the switch-out samples. */
static int ring_switches(const struct quiet *q, uint64_t from, uint64_t to, uint64_t *ev, int max)
{
	uint64_t lo = q->backward ? to : from, hi = q->backward ? from : to, pos;
	int n = 0;

	if (hi - lo > ring_data_size(q))
		return -1;
	for (pos = lo; pos != hi;) {
		uint64_t word = *ring_at(q, pos), time;
		uint32_t type = (uint32_t)word;
		uint16_t misc = (uint16_t)(word >> 32), size = (uint16_t)(word >> 48);

		if (size < sizeof(struct perf_event_header) || size % 8 || hi - pos < size)
			return -1;
		if (type == PERF_RECORD_SWITCH && size == SWITCH_RECORD) {
			if (n == max)
				return -1;
			time = *ring_at(q, pos + sizeof(struct perf_event_header)) & ~RUN_OUT;
			ev[n++] = time | (misc & PERF_RECORD_MISC_SWITCH_OUT ? RUN_OUT : 0);
		}
		pos += size;
	}
	/* (the thread may run on while they are read: none overwritten?) */
	if ((q->backward ? hi - ring_head(q) : ring_head(q) - lo) > ring_data_size(q))
		return -1;
	if (q->backward)
		for (int i = 0; i < n / 2; i++) {
			uint64_t t = ev[i];

			ev[i] = ev[n - 1 - i];
			ev[n - 1 - i] = t;
		}
	return n;
}

/* A thread on a CPU at the stamp since since_ns ran until its next switch
 * out, into the sample's stop (it ran on until the interrupt reached its
 * CPU: 10-20% of a run's length, when it was preempted earlier in its
 * interval, on a loaded VM); look_ns if that is not in the ring (yet).
 * No later than stop_ns: the tracer can see a stop before the thread's
 * CPU has switched it out (6-123 us later on a loaded VM), and it ran
 * no user code after the stop. */
static void run_on(const struct quiet *q, uint64_t stamp, uint64_t since_ns, uint64_t look_ns,
		   uint64_t stop_ns, uint64_t *from_ns, uint64_t *to_ns)
{
	uint64_t ev[RUN_SWITCHES_MAX], end = look_ns;
	int n = ring_switches(q, stamp, ring_head(q), ev, RUN_SWITCHES_MAX);

	for (int i = 0; i < n; i++)
		if (ev[i] & RUN_OUT) {
			end = ev[i] & ~RUN_OUT;
			break;
		}
	if (end > stop_ns)
		end = stop_ns;
	if (end <= since_ns)
		return;
	if (!*from_ns)
		*from_ns = since_ns;
	*to_ns = end;
}

bool quiet_runs(struct quiet *q, uint64_t stamp, uint64_t after_ns, uint64_t look_ns,
		uint64_t stop_ns, uint64_t *from_ns, uint64_t *to_ns)
{
	uint64_t ev[RUN_SWITCHES_MAX], since = after_ns;
	bool on = false;
	int n;

	*from_ns = *to_ns = 0;
	if (!q->ring)
		return false;
	n = ring_switches(q, q->runs_pos, stamp, ev, RUN_SWITCHES_MAX);
	q->runs_pos = stamp;
	for (int i = 0; i < n; i++) {
		uint64_t t = ev[i] & ~RUN_OUT;

		if (!(ev[i] & RUN_OUT)) {
			on = true;
			since = t > after_ns ? t : after_ns;
			continue;
		}
		if (!on && i)	/* (out twice: the first was the run's) */
			continue;
		if (t > look_ns)
			t = look_ns;
		if (t > since) {	/* a run of (since, t] */
			if (!*from_ns)
				*from_ns = since;
			*to_ns = t;
		}
		on = false;
	}
	if (on)		/* on a CPU at the stamp: until its stop */
		run_on(q, stamp, since, look_ns, stop_ns, from_ns, to_ns);
	return *to_ns != 0;
}
