/* pmu-workload - workloads with known event counts for the perf plug-in's
 * tests.
 *
 *   pmu-workload pages N [MS]  touch N fresh anonymous pages (N page faults),
 *                              then sleep MS ms (so a sampler sees the end)
 *   pmu-workload sleeps N MS   sleep N times for MS ms (N context switches)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static int sleeps(unsigned long n, unsigned long ms);

static int touch_pages(unsigned long n)
{
	long page = sysconf(_SC_PAGESIZE);
	volatile char *mem = mmap(NULL, n * page, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (mem == MAP_FAILED) {
		perror("pmu-workload: mmap");
		return 1;
	}
	/* one fault per page, even where transparent huge pages are on */
	madvise((void *)mem, n * page, MADV_NOHUGEPAGE);
	for (unsigned long i = 0; i < n; i++)
		mem[i * page] = 1;
	return 0;
}

static int sleeps(unsigned long n, unsigned long ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };

	for (unsigned long i = 0; i < n; i++)
		nanosleep(&ts, NULL);
	return 0;
}

int main(int argc, char **argv)
{
	if ((argc == 3 || argc == 4) && strcmp(argv[1], "pages") == 0)
		return touch_pages(strtoul(argv[2], NULL, 10)) ||
		       sleeps(argc == 4, argc == 4 ? strtoul(argv[3], NULL, 10) : 0);
	if (argc == 4 && strcmp(argv[1], "sleeps") == 0)
		return sleeps(strtoul(argv[2], NULL, 10), strtoul(argv[3], NULL, 10));
	fprintf(stderr, "usage: pmu-workload pages N [MS] | sleeps N MS\n");
	return 2;
}
