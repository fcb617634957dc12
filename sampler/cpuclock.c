/* cpuclock.c - the kernel's samples of a thread on its CPU clock (cpuclock.h). */
#include "cpuclock.h"

#include <asm/perf_regs.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define CLOCK_PERIOD_MIN_NS 250000	/* perf record's 4 kHz */
#define CLOCK_PER_INTERVAL 4		/* at most, at low sampling rates */
/* Data pages of a ring: room for the samples of a few intervals, so that
 * a late drain loses none (a sample with its stack copy is ~8.4 KiB). */
#define RING_PAGES 2
#define RING_PAGES_STACKS 16

#if defined(__x86_64__)
/* The user registers the unwinder starts from (unwind.h), in the kernel's
 * numbering: written in ascending bit order, AX BX CX DX SI DI BP SP IP
 * R8..R15. */
#define CLOCK_REGS (0x1ffULL | 0xffULL << PERF_REG_X86_R8)
#define CLOCK_NREGS 17
/* Their places in DWARF order. */
static const unsigned char dwarf_of[CLOCK_NREGS] = {
	0, 3, 2, 1, 4, 5, 6, 7, UNWIND_REG_PC, 8, 9, 10, 11, 12, 13, 14, 15,
};
#else
#define CLOCK_REGS 0ULL		/* not known here: no registers, no stacks */
#define CLOCK_NREGS 0
#endif

uint64_t cpuclock_period_ns(uint64_t sample_period_ns)
{
	uint64_t p = sample_period_ns / CLOCK_PER_INTERVAL;

	if (p > PROFILE_MAX_CLOCK_PERIOD_NS)	/* -f 0.001: what a profile holds */
		return PROFILE_MAX_CLOCK_PERIOD_NS;
	return p > CLOCK_PERIOD_MIN_NS ? p : CLOCK_PERIOD_MIN_NS;
}

size_t cpuclock_record_max(uint32_t stack_bytes)
{
	/* header, ip, pid/tid, time, abi and registers, size, stack, dyn_size */
	return sizeof(struct perf_event_header) + 3 * 8 + 8 + CLOCK_NREGS * 8 + 8 +
	       stack_bytes + 8;
}

void cpuclock_init(struct cpuclock *c)
{
	memset(c, 0, sizeof(*c));
}

static int event_open(pid_t tid, uint64_t period_ns, uint32_t stack_bytes)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	a.sample_period = period_ns;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	a.exclude_kernel = 1;	/* as perf record :u, allowed at paranoid 2 */
	a.exclude_hv = 1;
	a.use_clockid = 1;
	a.clockid = CLOCK_MONOTONIC;	/* the profile's clock */
	if (stack_bytes) {
		if (!CLOCK_REGS) {
			errno = EOPNOTSUPP;
			return -1;
		}
		a.sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
		a.sample_regs_user = CLOCK_REGS;
		a.sample_stack_user = stack_bytes;
	}
	return (int)syscall(SYS_perf_event_open, &a, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

int cpuclock_open(struct cpuclock *c, pid_t tid, uint64_t period_ns, uint32_t stack_bytes)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t size = (1 + (stack_bytes ? RING_PAGES_STACKS : RING_PAGES)) * page;
	int fd = event_open(tid, period_ns, stack_bytes & ~7u);
	void *m;

	cpuclock_close(c);
	if (fd < 0)
		return -1;
	/* Writable: the engine moves the tail, so that a full ring loses new
	 * samples (and says so) rather than overwriting unread ones. */
	m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);		/* the mapping keeps the event */
	if (m == MAP_FAILED)
		return -1;
	c->ring = m;
	c->size = size;
	c->regs = stack_bytes != 0;
	return 0;
}

void cpuclock_close(struct cpuclock *c)
{
	if (c->ring)
		munmap(c->ring, c->size);
	cpuclock_init(c);
}

bool cpuclock_on(const struct cpuclock *c)
{
	return c->ring != NULL;
}

/* The record at ring position pos, of size bytes: in place, or copied to
 * buf when it wraps around the end (NULL when buf is too small). */
static const uint8_t *record_at(const struct cpuclock *c, uint64_t pos, size_t size, uint8_t *buf,
				size_t len)
{
	const struct perf_event_mmap_page *pg = c->ring;
	const uint8_t *data = (const uint8_t *)c->ring + pg->data_offset;
	uint64_t off = pos % pg->data_size, first = pg->data_size - off;

	if (size <= first)
		return data + off;
	if (size > len)
		return NULL;
	memcpy(buf, data + off, first);
	memcpy(buf + first, data, size - first);
	return buf;
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* A sample record (IP, TID, TIME, then with registers REGS_USER and
 * STACK_USER): false when it is not one of ours. */
static bool parse_sample(const struct cpuclock *c, const uint8_t *r, size_t size,
			 struct cpuclock_sample *s)
{
	const uint8_t *p = r + sizeof(struct perf_event_header), *end = r + size;
	uint64_t abi, len;

	if (size < sizeof(struct perf_event_header) + 3 * 8)
		return false;
	*s = (struct cpuclock_sample){ .pc = get64(p), .time_ns = get64(p + 16) };
	p += 24;
	if (!c->regs)
		return true;
	if (end - p < 8)
		return false;
	abi = get64(p);
	p += 8;
	if (abi != PERF_SAMPLE_REGS_ABI_NONE) {
		if (end - p < CLOCK_NREGS * 8)
			return false;
		for (unsigned i = 0; i < CLOCK_NREGS; i++)
			s->regs.r[dwarf_of[i]] = get64(p + 8 * i);
		p += CLOCK_NREGS * 8;
		s->has_regs = abi == PERF_SAMPLE_REGS_ABI_64;
	}
	if (end - p < 8)
		return false;
	len = get64(p);
	p += 8;
	if (len > (uint64_t)(end - p) || (len && (uint64_t)(end - p) - len < 8))
		return false;
	if (len) {
		uint64_t dyn = get64(p + len);

		s->stack = (struct unwind_stack){
			.start = s->regs.r[UNWIND_REG_SP], .len = dyn < len ? dyn : len, .data = p,
		};
	}
	return true;
}

bool cpuclock_drain(struct cpuclock *c, uint64_t until_ns, uint8_t *buf, size_t len,
		    cpuclock_fn fn, void *arg)
{
	struct perf_event_mmap_page *pg = c->ring;
	uint64_t head, tail;
	bool whole = true;

	if (!pg)
		return false;
	head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	tail = pg->data_tail;
	while (head - tail >= sizeof(struct perf_event_header)) {
		struct perf_event_header h;
		struct cpuclock_sample s;
		const uint8_t *r;

		/* (a header never wraps: records are 8-byte aligned) */
		memcpy(&h, record_at(c, tail, sizeof(h), NULL, 0), sizeof(h));
		if (h.size < sizeof(h) || h.size > head - tail) {
			whole = false;	/* not a record: start again at the head */
			tail = head;
			break;
		}
		r = record_at(c, tail, h.size, buf, len);
		if (h.type == PERF_RECORD_SAMPLE && r && parse_sample(c, r, h.size, &s)) {
			if (s.time_ns > until_ns)
				break;	/* the next interval's */
			fn(arg, &s);
		} else if (h.type == PERF_RECORD_LOST || h.type == PERF_RECORD_SAMPLE) {
			whole = false;
		}
		tail += h.size;
	}
	__atomic_store_n(&pg->data_tail, tail, __ATOMIC_RELEASE);
	return whole;
}
