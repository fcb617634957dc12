/* dlchurn ROUNDS [MS] - libraries that come and go: round i dlopens
 * libchurn-a.so (even i) or libchurn-b.so (odd i) from this program's
 * directory, burns MS ms of CPU time in its function (churn_burn_a or
 * churn_burn_b, the same code), and dlcloses it, so that the next one is
 * mapped where this one was.  Prints the CPU time it spent in each and how
 * often a library was loaded where the other one had just been:
 * "cpu_a_ns=N cpu_b_ns=N same_base=N rounds=N". */
#include <dlfcn.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "workload.h"

typedef uint64_t (*burn_fn)(uint64_t ns);

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 100;
	uint64_t ns = (uint64_t)(arg_double(argc, argv, 2, 10) * 1e6);
	uint64_t cpu[2] = { 0, 0 }, sink = 0;
	uintptr_t last_base = 0;
	long same_base = 0;
	char self[PATH_MAX], path[2][PATH_MAX + 32];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n < 0) {
		perror("/proc/self/exe");
		return 1;
	}
	self[n] = 0;
	dirname(self);
	for (int i = 0; i < 2; i++)
		snprintf(path[i], sizeof(path[i]), "%s/libchurn-%c.so", self, 'a' + i);
	for (long r = 0; r < rounds; r++) {
		int which = (int)(r & 1);
		char name[32];
		void *lib = dlopen(path[which], RTLD_NOW | RTLD_LOCAL);
		burn_fn burn;
		Dl_info info;
		uint64_t c0;

		snprintf(name, sizeof(name), "churn_burn_%c", 'a' + which);
		if (!lib || !(burn = (burn_fn)dlsym(lib, name)) || !dladdr((void *)burn, &info)) {
			fprintf(stderr, "dlchurn: %s\n", dlerror());
			return 1;
		}
		same_base += (uintptr_t)info.dli_fbase == last_base;
		last_base = (uintptr_t)info.dli_fbase;
		c0 = thread_cpu_ns();
		if (ns)
			sink += burn(ns);
		cpu[which] += thread_cpu_ns() - c0;
		dlclose(lib);
	}
	printf("cpu_a_ns=%" PRIu64 " cpu_b_ns=%" PRIu64 " same_base=%ld rounds=%ld sink=%" PRIu64 "\n",
	       cpu[0], cpu[1], same_base, rounds, sink & 1);
	return 0;
}
