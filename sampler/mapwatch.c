/* mapwatch.c - the mmap records of a process's perf event (mapwatch.h). */
#include "mapwatch.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "../common/grow.h"

/* Data pages of a thread's ring: 4 KiB hold about 25 mappings between two
 * samples; more are counted as lost and the maps read again. */
#define RING_PAGES 1
/* A record longer than this (a path near PATH_MAX) is passed over; the
 * PC in it makes the engine read /proc again. */
#define RECORD_MAX 4352

/* The fixed part of PERF_RECORD_MMAP2, after its header. */
struct mmap2_body {
	uint32_t pid, tid;
	uint64_t addr, len, pgoff;
	uint32_t maj, min;
	uint64_t ino, ino_generation;
	uint32_t prot, flags;
};

/* What sample_id_all appends to it with PERF_SAMPLE_TID | PERF_SAMPLE_TIME. */
struct sample_id {
	uint32_t pid, tid;
	uint64_t time;
};

/* One thread's event: its ring (the descriptor is closed: the mapping
 * keeps the event). */
struct ring {
	pid_t tid;
	bool gone;			/* the thread ended: freed once read out */
	struct perf_event_mmap_page *page;
};

/* A mapping read, until handed on in time order. */
struct mapping_read {
	uint64_t time;
	size_t seq;
	struct map_entry map;		/* path owned */
};

struct mapwatch {
	pid_t pid;
	size_t page_size, data_size;
	struct ring *rings;
	size_t nrings, rings_cap;
	struct mapping_read *got;
	size_t ngot, got_cap;
	unsigned char record[RECORD_MAX];
};

/* A perf event cannot be both inherited by new threads and mapped
 * (per-task, the kernel refuses: every thread would write one ring), so
 * each thread has its own. */
static int open_event(pid_t tid)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_DUMMY;
	a.mmap = 1;
	a.mmap2 = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	a.sample_id_all = 1;
	a.use_clockid = 1;
	a.clockid = CLOCK_MONOTONIC;	/* the profile's clock */
	return (int)syscall(SYS_perf_event_open, &a, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

struct mapwatch *mapwatch_new(pid_t pid)
{
	struct mapwatch *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	w->pid = pid;
	w->page_size = (size_t)sysconf(_SC_PAGESIZE);
	w->data_size = RING_PAGES * w->page_size;
	return w;
}

static void ring_close(const struct mapwatch *w, struct ring *r)
{
	munmap(r->page, w->page_size + w->data_size);
}

void mapwatch_free(struct mapwatch *w)
{
	if (!w)
		return;
	for (size_t i = 0; i < w->nrings; i++)
		ring_close(w, &w->rings[i]);
	free(w->rings);
	free(w->got);
	free(w);
}

static struct ring *find_ring(struct mapwatch *w, pid_t tid)
{
	for (size_t i = 0; i < w->nrings; i++)
		if (w->rings[i].tid == tid && !w->rings[i].gone)
			return &w->rings[i];
	return NULL;
}

int mapwatch_add_thread(struct mapwatch *w, pid_t tid)
{
	struct ring *r;
	void *page;
	int fd;

	if (find_ring(w, tid))
		return 0;	/* the leader's, opened with its process */
	if (GROW_ARRAY(w->rings, w->rings_cap, w->nrings + 1) < 0)
		return -1;
	fd = open_event(tid);
	if (fd < 0)
		return -1;
	page = mmap(NULL, w->page_size + w->data_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (page == MAP_FAILED)
		return -1;
	r = &w->rings[w->nrings++];
	*r = (struct ring){ .tid = tid, .page = page };
	return 0;
}

void mapwatch_drop_thread(struct mapwatch *w, pid_t tid)
{
	struct ring *r = w ? find_ring(w, tid) : NULL;

	if (r)
		r->gone = true;
}

/* len bytes of the ring from position pos, which may wrap around its end. */
static void ring_copy(const struct mapwatch *w, const struct ring *r, uint64_t pos, void *to,
		      size_t len)
{
	const unsigned char *data = (const unsigned char *)r->page + w->page_size;
	size_t at = (size_t)(pos % w->data_size), first = w->data_size - at;

	if (first > len)
		first = len;
	memcpy(to, data + at, first);
	memcpy((unsigned char *)to + first, data, len - first);
}

/* The mapping of an MMAP2 record of size bytes in w->record; its time. */
static int parse_mmap2(struct mapwatch *w, size_t size, struct map_entry *m, uint64_t *time,
		       pid_t *pid)
{
	const size_t head = sizeof(struct perf_event_header);
	struct mmap2_body b;
	struct sample_id id;

	if (size < head + sizeof(b) + 1 + sizeof(id))
		return -1;
	memcpy(&b, w->record + head, sizeof(b));
	memcpy(&id, w->record + size - sizeof(id), sizeof(id));
	w->record[size - sizeof(id) - 1] = 0;	/* the path's padding ends it */
	*m = (struct map_entry){
		.start = b.addr, .end = b.addr + b.len, .pgoff = b.pgoff,
		.dev_major = b.maj, .dev_minor = b.min, .inode = b.ino,
		.prot = b.prot & (PROT_READ | PROT_WRITE | PROT_EXEC),
		.path = (char *)w->record + head + sizeof(b),
	};
	if (strcmp(m->path, "//anon") == 0)
		m->path[0] = 0;		/* as /proc shows anonymous memory */
	*time = id.time;
	*pid = (pid_t)b.pid;
	return m->end > m->start ? 0 : -1;
}

/* Keep a mapping read, its path copied: 0, or -1 when out of memory. */
static int keep(struct mapwatch *w, const struct map_entry *m, uint64_t time)
{
	struct mapping_read *g;

	if (GROW_ARRAY(w->got, w->got_cap, w->ngot + 1) < 0)
		return -1;
	g = &w->got[w->ngot];
	*g = (struct mapping_read){ .time = time, .seq = w->ngot, .map = *m };
	g->map.path = strdup(m->path);
	if (!g->map.path)
		return -1;
	w->ngot++;
	return 0;
}

/* The mappings of r's ring made up to until into w->got, consumed;
 * false when some were lost. */
static bool read_ring(struct mapwatch *w, struct ring *r, uint64_t since, uint64_t until)
{
	uint64_t head = __atomic_load_n(&r->page->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = r->page->data_tail;
	bool whole = true;

	while (tail < head) {
		struct perf_event_header h;
		struct map_entry m;
		uint64_t time;
		pid_t pid;

		ring_copy(w, r, tail, &h, sizeof(h));
		if (h.size < sizeof(h) || h.size > head - tail) {
			whole = false;	/* cannot be: take the rest as lost */
			tail = head;
			break;
		}
		if (h.type == PERF_RECORD_LOST)
			whole = false;
		if (h.type == PERF_RECORD_MMAP2 && h.size <= sizeof(w->record)) {
			ring_copy(w, r, tail, w->record, h.size);
			if (parse_mmap2(w, h.size, &m, &time, &pid) == 0) {
				if (time > until)
					break;	/* for a later sample */
				if (pid == w->pid && time >= since && keep(w, &m, time) < 0)
					whole = false;
			}
		}
		tail += h.size;
	}
	__atomic_store_n(&r->page->data_tail, tail, __ATOMIC_RELEASE);
	if (r->gone && tail == head) {
		ring_close(w, r);
		r->page = NULL;
	}
	return whole;
}

static int by_time(const void *a, const void *b)
{
	const struct mapping_read *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

int mapwatch_read(struct mapwatch *w, uint64_t since, uint64_t until, mapwatch_fn fn,
		  void *arg)
{
	bool whole = true;
	size_t keep_rings = 0, handed = 0;

	for (size_t i = 0; i < w->nrings; i++) {
		whole &= read_ring(w, &w->rings[i], since, until);
		if (w->rings[i].page)
			w->rings[keep_rings++] = w->rings[i];
	}
	w->nrings = keep_rings;
	/* threads map in parallel: hand them on in the order they were made */
	if (w->ngot)		/* got is NULL until a map came */
		qsort(w->got, w->ngot, sizeof(*w->got), by_time);
	for (size_t i = 0; i < w->ngot; i++) {
		if (whole && fn(arg, &w->got[i].map, w->got[i].time))
			whole = false;
		handed += whole;
		free(w->got[i].map.path);
	}
	w->ngot = 0;
	return whole ? (int)handed : -1;
}
