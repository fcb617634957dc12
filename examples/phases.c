/* phases SECONDS MS [REST_MS] - one thread runs alpha (13 W), beta (28 W)
 * and gamma (8 W) in turn, and after every twelfth gamma delta (10 W, a
 * function with about 1.7% of the energy: coverage at small shares), each
 * phase lasting MS milliseconds of its CPU time on average (uniformly 0.5
 * to 1.5 times MS, so that phases do not beat with the sampling), between
 * two phases of rest (5 W, REST_MS each, default 0), for SECONDS of wall
 * time.
 *
 * It plays code whose power depends on what it runs: a function draws its
 * power while the thread runs it (CPU time), nothing while the thread is
 * stopped or waits for a CPU, as a CPU package's dynamic power.  With
 * PHASES_STATE=FILE it logs every change of phase there (its CPU time, the
 * energy so far and the new power), from which the fake meters of
 * tests/fakes/fake-phase-meter.py compute the energy at any moment (with
 * the thread's CPU time from /proc).  At the end it prints the true energy
 * of each function:
 *     truth alpha=J beta=J gamma=J rest=J delta=J
 *
 * FILE layout (little-endian): u64 count of changes, u64 pid, u64 tid, then
 * 4096 entries of {u64 cpu_ns (the thread's), f64 energy_J before it, f64
 * power_W after it}; entry i is at i % 4096; count is stored after it.
 * A phase is a number of units of work, their CPU time measured at the
 * start; MS below 0.05 is refused.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "workload.h"

#define ENTRIES 4096

struct change {
	uint64_t cpu_ns;
	double energy;
	double power;
};

struct state {
	uint64_t count;
	uint64_t pid, tid;
	struct change log[ENTRIES];
};

enum { ALPHA, BETA, GAMMA, REST, DELTA, NPHASES };
static const double watts[NPHASES] = { 13, 28, 8, 5, 10 };
static const char *const names[NPHASES] = { "alpha", "beta", "gamma", "rest", "delta" };
#define DELTA_EVERY 12		/* cycles: 10 W / (12 x 49 W + 10 W) = 1.7% */

static struct state *shared;
static double energy[NPHASES];	/* the truth, J */
static double total;		/* J so far, at last_ns */
static uint64_t last_ns;
static int current = -1;
static uint64_t sink;

static inline uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Close the phase in progress at now and start phase next (-1: none). */
static void change(int next, uint64_t now)
{
	if (current >= 0) {
		double e = watts[current] * (double)(now - last_ns) * 1e-9;

		energy[current] += e;
		total += e;
	}
	current = next;
	last_ns = now;
	if (shared) {
		struct change *c = &shared->log[shared->count % ENTRIES];

		c->cpu_ns = now;
		c->energy = total;
		c->power = next >= 0 ? watts[next] : 0;
		__atomic_store_n(&shared->count, shared->count + 1, __ATOMIC_RELEASE);
	}
}

static double ns_per_unit = 1;	/* CPU time of one unit of work */

/* Work for end_ns - now ns of CPU time (in units of work measured at the
 * start: no clock is read while a phase runs, so that every sample falls
 * in the function of the phase), then return the thread's CPU time. */
static inline __attribute__((always_inline)) uint64_t spin_until(uint64_t end_ns)
{
	uint64_t x = sink | 1, now = cpu_ns();
	uint64_t units = end_ns > now ? (uint64_t)((double)(end_ns - now) / ns_per_unit) : 0;

	for (uint64_t i = 0; i < units; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		__asm__ volatile("" : "+r"(x));
	}
	sink = x;
	return cpu_ns();
}

__attribute__((noinline)) uint64_t alpha(uint64_t end_ns)
{
	return spin_until(end_ns);
}

__attribute__((noinline)) uint64_t beta(uint64_t end_ns)
{
	return spin_until(end_ns);
}

__attribute__((noinline)) uint64_t gamma_(uint64_t end_ns) __asm__("gamma");
__attribute__((noinline)) uint64_t gamma_(uint64_t end_ns)
{
	return spin_until(end_ns);
}

__attribute__((noinline)) uint64_t rest(uint64_t end_ns)
{
	return spin_until(end_ns);
}

static void calibrate(void)
{
	uint64_t t0 = cpu_ns(), x = 1, n = 4000000;

	for (uint64_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		__asm__ volatile("" : "+r"(x));
	}
	sink += x;
	ns_per_unit = (double)(cpu_ns() - t0) / (double)n;
	if (!(ns_per_unit > 0))
		ns_per_unit = 1;
}

__attribute__((noinline)) uint64_t delta(uint64_t end_ns)
{
	return spin_until(end_ns);
}

static uint64_t (*const run[NPHASES])(uint64_t) = { alpha, beta, gamma_, rest, delta };

static void map_state(void)
{
	const char *path = getenv("PHASES_STATE");
	int fd;

	if (!path)
		return;
	fd = open(path, O_RDWR);
	if (fd < 0 || ftruncate(fd, sizeof(struct state)) < 0) {
		perror(path);
		exit(1);
	}
	shared = mmap(NULL, sizeof(struct state), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (shared == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	if (shared->count)	/* a meter's counter never goes back */
		total = shared->log[(shared->count - 1) % ENTRIES].energy;
	shared->pid = (uint64_t)getpid();
	__atomic_store_n(&shared->tid, (uint64_t)syscall(SYS_gettid), __ATOMIC_RELEASE);
}

int main(int argc, char **argv)
{
	double seconds = arg_double(argc, argv, 1, 1), ms = arg_double(argc, argv, 2, 5);
	uint64_t rest_ns = (uint64_t)(arg_double(argc, argv, 3, 0) * 1e6), now;
	double end;
	uint64_t rnd = 0x9E3779B97F4A7C15u;
	int phase = ALPHA, cycles = 0;

	if (ms < 0.05) {
		fprintf(stderr, "phases: MS must be at least 0.05\n");
		return 2;
	}
	map_state();
	calibrate();
	now = cpu_ns();
	if (rest_ns) {
		change(REST, now);
		now = rest(now + rest_ns);
	}
	end = now_s() + seconds;
	while (now_s() < end) {
		double len;

		rnd ^= rnd << 13;
		rnd ^= rnd >> 7;
		rnd ^= rnd << 17;
		len = ms * 1e6 * (0.5 + (double)(rnd >> 11) / 9007199254740992.0);
		change(phase, now);
		now = run[phase](now + (uint64_t)len);
		if (phase == GAMMA && ++cycles % DELTA_EVERY == 0)
			phase = DELTA;
		else
			phase = phase == DELTA ? ALPHA : (phase + 1) % 3;
	}
	if (rest_ns) {
		change(REST, now);
		now = rest(now + rest_ns);
	}
	change(-1, now);
	printf("truth");
	for (int i = 0; i < NPHASES; i++)
		printf(" %s=%.6f", names[i], energy[i]);
	printf("\n");
	return 0;
}
