/* phases SECONDS MS [REST_MS] - one thread runs alpha (13 W), beta (28 W)
 * and gamma (8 W) in turn, and after every twelfth gamma delta (10 W, a
 * function with about 1.7% of the energy: coverage at small shares), each
 * phase lasting MS milliseconds of CPU time on average (uniformly 0.5 to
 * 1.5 times MS, so that phases do not beat with the sampling), between two
 * phases of rest (5 W, REST_MS each, default 0), for SECONDS of wall time.
 *
 * It plays code whose power depends on what it runs: a function draws its
 * power while the thread works in it, nothing while the thread is stopped
 * or waits for a CPU, as a CPU package's dynamic power.  Its clock is its
 * work: units of work done times the CPU time of a unit, which it measures
 * at the start and then every SYNC_NS of work, between two phases.  It
 * reads its CPU clock no more often than that: that clock is a system
 * call, where a stop sent to the running thread lands when the
 * inter-processor interrupt that carries it is slow (tens to hundreds of
 * microseconds on a VM), and reading it at every change of phase gathered
 * there the samples that the profiler meant for the work around it.
 *
 * With PHASES_STATE=FILE it logs there every change of phase (the units
 * done, the energy so far, the new power and the CPU time of a unit) and
 * the units done as they are done, from which the fake meters of
 * tests/fakes/fake-phase-meter.py compute the energy at any moment.  At
 * the end it prints the true energy of each function:
 *     truth alpha=J beta=J gamma=J rest=J delta=J
 *
 * With PHASES_CYCLE="alpha:8,beta:20,gamma:12" (names and ms of CPU time)
 * the phases come in that order and with those lengths, again and again,
 * no delta and no jitter: a fixed order, so that a bias at a rise or a
 * fall of power does not cancel out (t2110, issue 42).  MS is then unused.
 *
 * FILE layout (little-endian): u64 count of changes, u64 units done (stored
 * every 256 units), then 4096 entries of {u64 units done, f64 energy_J
 * before it, f64 power_W after it, f64 ns per unit from it}; entry i is at
 * i % 4096; count is stored after it.  MS below 0.05 is refused.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "workload.h"

#define ENTRIES 4096

struct change {
	uint64_t done;
	double energy;
	double power;
	double ns_per_unit;
};

struct state {
	uint64_t count;
	uint64_t done;
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
static uint64_t done;		/* units of work done */
static double ns_per_unit = 1;	/* CPU time of one unit of work */
static uint64_t clock_base_ns, done_base;	/* the work clock at a sync */
static uint64_t no_state;
static uint64_t *done_out = &no_state;	/* where the meter reads done */

#define SYNC_NS 20000000	/* work between two measures of its pace */

static inline uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline uint64_t work_ns(void)
{
	return clock_base_ns + (uint64_t)((double)(done - done_base) * ns_per_unit);
}

/* units units of work, done counted as they go (every 256 units: a store
 * costs less than a unit) */
static inline __attribute__((always_inline)) void work(uint64_t units)
{
	uint64_t x = sink | 1;

	for (uint64_t i = 0; i < units; i++) {
		if (!(i & 255))
			__atomic_store_n(done_out, done + i, __ATOMIC_RELAXED);
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		__asm__ volatile("" : "+r"(x));
	}
	sink = x;
	done += units;
	__atomic_store_n(done_out, done, __ATOMIC_RELAXED);
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

		c->done = done;
		c->energy = total;
		c->power = next >= 0 ? watts[next] : 0;
		c->ns_per_unit = ns_per_unit;
		__atomic_store_n(&shared->count, shared->count + 1, __ATOMIC_RELEASE);
	}
}

/* Work until the work clock reads end_ns, then return the clock. */
static inline __attribute__((always_inline)) uint64_t spin_until(uint64_t end_ns)
{
	uint64_t now = work_ns();

	work(end_ns > now ? (uint64_t)((double)(end_ns - now) / ns_per_unit) : 0);
	return work_ns();
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

__attribute__((noinline)) uint64_t delta(uint64_t end_ns)
{
	return spin_until(end_ns);
}

/* The clock's rate, before any state is shared (done starts at 0 after):
 * the fastest of a few rounds, those a tick or a page fault did not slow */
static void calibrate(void)
{
	double best = 0;

	for (int round = 0; round < 8; round++) {
		uint64_t t0 = cpu_ns(), n = 500000;
		double ns;

		work(n);
		ns = (double)(cpu_ns() - t0) / (double)n;
		if (ns > 0 && (best == 0 || ns < best))
			best = ns;
	}
	ns_per_unit = best > 0 ? best : 1;
	done = 0;
}

/* Between two phases: the work clock keeps the pace of the CPU clock
 * (stops, and a busy sibling hyperthread, slow the work); its reading
 * goes on from where it is. */
static void sync_pace(void)
{
	static uint64_t cpu0, done0;
	uint64_t now = work_ns(), cpu;

	if (now - clock_base_ns < SYNC_NS && cpu0)
		return;
	cpu = cpu_ns();
	if (cpu0 && done > done0 && cpu > cpu0)
		ns_per_unit = (double)(cpu - cpu0) / (double)(done - done0);
	cpu0 = cpu;
	done0 = done;
	clock_base_ns = now;
	done_base = done;
}

static uint64_t (*const run[NPHASES])(uint64_t) = { alpha, beta, gamma_, rest, delta };

#define MAX_CYCLE 16

struct step {
	int phase;
	double ns;
};

/* PHASES_CYCLE into steps; their count, 0 when unset, -1 when bad. */
static int parse_cycle(struct step *steps)
{
	const char *p = getenv("PHASES_CYCLE");
	int n = 0;

	if (!p || !*p)
		return 0;
	while (*p && n < MAX_CYCLE) {
		const char *colon = strchr(p, ':');
		char *end;
		int i;

		if (!colon)
			return -1;
		for (i = 0; i < NPHASES; i++)
			if (strlen(names[i]) == (size_t)(colon - p) &&
			    !strncmp(names[i], p, (size_t)(colon - p)))
				break;
		steps[n].ns = strtod(colon + 1, &end) * 1e6;
		if (i == NPHASES || end == colon + 1 || !(steps[n].ns >= 5e4) ||
		    (*end && *end != ','))
			return -1;
		steps[n++].phase = i;
		p = *end ? end + 1 : end;
	}
	return *p ? -1 : n;
}

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
	done_out = &shared->done;
	__atomic_store_n(done_out, 0, __ATOMIC_RELEASE);
}

int main(int argc, char **argv)
{
	double seconds = arg_double(argc, argv, 1, 1), ms = arg_double(argc, argv, 2, 5);
	uint64_t rest_ns = (uint64_t)(arg_double(argc, argv, 3, 0) * 1e6), now;
	double end;
	uint64_t rnd = 0x9E3779B97F4A7C15u;
	int phase = ALPHA, cycles = 0, step = 0;
	struct step steps[MAX_CYCLE];
	int nsteps = parse_cycle(steps);

	if (ms < 0.05) {
		fprintf(stderr, "phases: MS must be at least 0.05\n");
		return 2;
	}
	if (nsteps < 0) {
		fprintf(stderr, "phases: bad PHASES_CYCLE (expected NAME:MS,..., e.g. "
			"alpha:8,beta:20,gamma:12; MS at least 0.05)\n");
		return 2;
	}
	calibrate();
	map_state();
	now = work_ns();
	if (rest_ns) {
		sync_pace();
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
		if (nsteps) {
			phase = steps[step].phase;
			len = steps[step].ns;
			step = (step + 1) % nsteps;
		}
		sync_pace();
		change(phase, now);
		now = run[phase](now + (uint64_t)len);
		if (phase == GAMMA && ++cycles % DELTA_EVERY == 0)
			phase = DELTA;
		else
			phase = phase == DELTA ? ALPHA : (phase + 1) % 3;
	}
	if (rest_ns) {
		sync_pace();
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
