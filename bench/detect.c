/* detect - what it costs to tell, without stopping it, that a thread has
 * not run since the sampler last looked (issue 14), per thread per read.
 *
 *   detect [THREADS [ROUNDS]]
 *
 * Starts THREADS threads blocked on a condition variable, then times, per
 * thread and read, each candidate source (a pread on a descriptor kept
 * open, as the engine does):
 *   schedstat   /proc/TID/schedstat: CPU time, run delay, run count (pcount)
 *   stat        /proc/TID/stat: state and 50 other fields
 *   status      /proc/TID/status: voluntary_ctxt_switches (and 50 lines)
 *   syscall     /proc/TID/syscall: a blocked thread's syscall, SP and PC
 *   perf-cs     read() of a per-thread software context-switches counter
 *   perf-ring   a load of data_head from a per-thread ring buffer that the
 *               kernel fills with a record at each switch in and out
 *               (PERF_RECORD_SWITCH of a dummy event): no system call
 * It also checks the rule the engine builds on: a blocked thread's run
 * count does not change while it stays blocked, and does when it wakes.
 * Prints "name ns_per_thread" lines; a benchmark, it never fails. */
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "../common/switchevent.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int generation, started;

static void *sleeper(void *arg)
{
	int seen;

	pthread_mutex_lock(&lock);
	((pid_t *)arg)[0] = (pid_t)syscall(SYS_gettid);
	started++;
	for (;;) {
		seen = generation;
		while (seen == generation)
			pthread_cond_wait(&cond, &lock);
	}
	return NULL;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int open_task(pid_t tid, const char *file)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/task/%d/%s", (int)tid, file);
	return open(path, O_RDONLY | O_CLOEXEC);
}

static int open_perf_cs(pid_t tid)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CONTEXT_SWITCHES;
	return (int)syscall(SYS_perf_event_open, &a, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

/* The engine's switch event (a PERF_RECORD_SWITCH at every switch of the
 * thread), in a ring of one data page. */
static volatile struct perf_event_mmap_page *open_ring(pid_t tid)
{
	int fd = switch_event_open(tid, false);
	void *m;

	if (fd < 0)
		return NULL;
	m = mmap(NULL, 2 * (size_t)sysconf(_SC_PAGESIZE), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	return m == MAP_FAILED ? NULL : m;
}

static uint64_t pcount(int fd)
{
	char buf[128];
	unsigned long long a, b, c = 0;
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	if (n <= 0)
		return 0;
	buf[n] = 0;
	sscanf(buf, "%llu %llu %llu", &a, &b, &c);
	return c;
}

/* ns per thread for one pread (or read) of every fd, ROUNDS times */
static double time_reads(int *fds, int n, int rounds, size_t size, int use_read)
{
	char buf[4096];
	uint64_t t0 = now_ns();
	int ok = 0;

	for (int r = 0; r < rounds; r++)
		for (int i = 0; i < n; i++) {
			ssize_t got = use_read ? read(fds[i], buf, 8) : pread(fds[i], buf, size, 0);

			ok += got > 0;
		}
	if (!ok)
		return -1;
	return (double)(now_ns() - t0) / ((double)rounds * n);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 250, rounds = argc > 2 ? atoi(argv[2]) : 200;
	pid_t *tids = calloc((size_t)n, sizeof(*tids));
	int *fds = calloc((size_t)n, sizeof(*fds));
	static const struct { const char *name, *file; size_t size; } src[] = {
		{ "schedstat", "schedstat", 128 }, { "stat", "stat", 1024 },
		{ "status", "status", 4096 }, { "syscall", "syscall", 256 },
	};
	uint64_t before, after;
	int still = 0, woke = 0;

	for (int i = 0; i < n; i++) {
		pthread_t t;

		pthread_create(&t, NULL, sleeper, &tids[i]);
	}
	for (;;) {
		pthread_mutex_lock(&lock);
		int s = started;
		pthread_mutex_unlock(&lock);
		if (s == n)
			break;
		usleep(1000);
	}
	usleep(20000);		/* let every one reach its wait */
	for (size_t s = 0; s < sizeof(src) / sizeof(src[0]); s++) {
		for (int i = 0; i < n; i++)
			fds[i] = open_task(tids[i], src[s].file);
		printf("%-10s %8.0f\n", src[s].name, time_reads(fds, n, rounds, src[s].size, 0));
		for (int i = 0; i < n; i++)
			close(fds[i]);
	}
	for (int i = 0; i < n; i++)
		fds[i] = open_perf_cs(tids[i]);
	if (fds[0] >= 0)
		printf("%-10s %8.0f\n", "perf-cs", time_reads(fds, n, rounds, 8, 1));
	else
		printf("%-10s %8s\n", "perf-cs", "-");
	for (int i = 0; i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	{
		volatile struct perf_event_mmap_page **rings = calloc((size_t)n, sizeof(*rings));
		uint64_t sum = 0, t0, h0, h1;
		int ok = 1;

		for (int i = 0; i < n; i++)
			ok &= (rings[i] = open_ring(tids[i])) != NULL;
		if (ok) {
			usleep(20000);
			h0 = rings[0]->data_head;
			t0 = now_ns();
			for (int r = 0; r < rounds; r++)
				for (int i = 0; i < n; i++)
					sum += __atomic_load_n(&rings[i]->data_head, __ATOMIC_ACQUIRE);
			printf("%-10s %8.1f\n", "perf-ring", (double)(now_ns() - t0) / ((double)rounds * n) + (double)(sum & 0) );
			usleep(50000);
			h1 = rings[0]->data_head;
			pthread_mutex_lock(&lock);
			generation++;
			pthread_cond_broadcast(&cond);
			pthread_mutex_unlock(&lock);
			usleep(50000);
			printf("ring rule: blocked head still %s, moved after a wake-up %s\n",
			       h0 == h1 ? "yes" : "NO", rings[0]->data_head != h1 ? "yes" : "NO");
		} else {
			printf("%-10s %8s\n", "perf-ring", "-");
		}
	}
	/* the rule: blocked -> run count still; woken -> changed */
	for (int i = 0; i < n; i++)
		fds[i] = open_task(tids[i], "schedstat");
	before = pcount(fds[0]);
	usleep(50000);
	after = pcount(fds[0]);
	still = before == after;
	pthread_mutex_lock(&lock);
	generation++;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
	usleep(50000);
	woke = pcount(fds[0]) != after;
	printf("rule: blocked run count still %s, changed after a wake-up %s\n",
	       still ? "yes" : "NO", woke ? "yes" : "NO");
	return 0;
}
