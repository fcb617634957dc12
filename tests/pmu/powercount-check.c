/* powercount-check - scpi poll_hz='s count (pmu/powercount.h) against a
 * simulated power meter whose energy is known.
 *
 *   powercount-check SEEDS HOLDS [SECONDS] [STOPPED]
 *
 * Per seed: a workload runs t2120's phases (13, 28 and 8 W in turn, 5 to
 * 15 ms each) for SECONDS (1.2); a meter updates every 2 ms with the mean
 * power of its last period, 10 ms late; a poller reads it every 1.0-1.2
 * ms and a sampler takes the count every ms.  HOLDS times per run the
 * poller is held back 50-100 ms (it got no CPU), at random, each hold in
 * a slice of the run of its own (HOLDS up to SECONDS x 4).  The count's
 * takes are added up and compared with what the meter drew over the same
 * time.  STOPPED 1: the workload is held stopped (0 W) 2 to 6 ms after
 * each phase, which lasts 1 to 3 ms (a target the sampler holds stopped
 * most of the time, under load): the meter answers 0 W again and again,
 * the same reading over several periods.  Prints per seed "seed=S error=PCT unseen_ms=MS held_ms=MS" and
 * then "mean=PCT worst=PCT" (absolute errors of the totals).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "../../pmu/powercount.h"

#define NS_PER_S 1000000000LL
#define METER_PERIOD_NS 2000000LL
#define METER_DELAY_NS 10000000LL
#define MAX_PHASES 4096
#define MAX_HOLDS 64

static unsigned long long rng_state;

static double uniform(double lo, double hi)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return lo + (hi - lo) * (double)(rng_state >> 11) / 9007199254740992.0;
}

struct phase {
	long long start_ns;
	double watts;
};

static struct phase phases[MAX_PHASES];
static int nphases;

/* The workload's energy (J) until t_ns; nothing before it starts. */
static double energy_until(long long t_ns)
{
	double joules = 0;

	for (int i = 0; i < nphases && phases[i].start_ns < t_ns; i++) {
		long long end = i + 1 < nphases ? phases[i + 1].start_ns : t_ns;

		joules += phases[i].watts * (double)((end < t_ns ? end : t_ns) - phases[i].start_ns) * 1e-9;
	}
	return joules;
}

/* The meter's reading at t_ns: its latest update's mean power. */
static double reading_at(long long t_ns)
{
	long long tick = t_ns / METER_PERIOD_NS * METER_PERIOD_NS;

	return (energy_until(tick - METER_DELAY_NS) -
		energy_until(tick - METER_PERIOD_NS - METER_DELAY_NS)) /
	       ((double)METER_PERIOD_NS * 1e-9);
}

/* One run: the relative error of the count's total; its unseen time. */
static double run(unsigned seed, int holds, double seconds, int stopped, double *unseen_ms,
		  double *held_ms)
{
	static const double watts[] = { 13, 28, 8 };
	long long end_ns = (long long)(seconds * NS_PER_S), t = 0, hold_at[MAX_HOLDS];
	long long hold_ns[MAX_HOLDS], next_take = NS_PER_S / 1000, first_take = -1, last_take = 0;
	struct power_count *count = power_count_new(200000000LL);
	double total = 0;

	rng_state = 0x9E3779B97F4A7C15ull ^ ((unsigned long long)seed * 0x2545F4914F6CDD1Dull);
	nphases = 0;
	for (long long at = 0; at < end_ns + METER_DELAY_NS && nphases < MAX_PHASES; nphases++) {
		if (stopped && nphases % 2) {
			phases[nphases] = (struct phase){ at, 0 };
			at += (long long)(uniform(2, 6) * 1e6);
			continue;
		}
		phases[nphases] = (struct phase){ at, watts[(stopped ? nphases / 2 : nphases) % 3] };
		at += (long long)(stopped ? uniform(1, 3) * 1e6 : uniform(5, 15) * 1e6);
	}
	*held_ms = 0;
	for (int i = 0; i < holds; i++) {	/* each in a slice of its own */
		double slice = (seconds - 0.25) / holds;

		hold_at[i] = (long long)((0.1 + slice * (i + uniform(0, 0.4))) * NS_PER_S);
		hold_ns[i] = (long long)(uniform(50, 100) * 1e6);
		*held_ms += (double)hold_ns[i] * 1e-6;
	}
	*unseen_ms = 0;
	while (t < end_ns) {
		t += (long long)(uniform(1.0, 1.2) * 1e6);
		for (int i = 0; i < holds; i++)
			if (t >= hold_at[i] && t < hold_at[i] + hold_ns[i])
				t = hold_at[i] + hold_ns[i];
		while (next_take <= t) {	/* the sampler's takes until this poll */
			double joules = power_count_take(count);

			if (first_take < 0)
				first_take = next_take;
			if (!isnan(joules))
				total += joules;
			last_take = next_take;
			next_take += NS_PER_S / 1000;
		}
		*unseen_ms += (double)power_count_feed(count, reading_at(t), t) * 1e-6;
	}
	power_count_free(count);
	/* the count ends at the last poll before the last take; the meter's
	 * energy over the takes' span, as its readings tell it, is the truth */
	return total / (energy_until(last_take - METER_DELAY_NS) -
			energy_until(first_take - METER_DELAY_NS)) - 1;
}

int main(int argc, char **argv)
{
	unsigned seeds = argc > 1 ? (unsigned)atoi(argv[1]) : 20;
	int holds = argc > 2 ? atoi(argv[2]) : 0;
	double seconds = argc > 3 ? atof(argv[3]) : 1.2, sum = 0, worst = 0;
	int stopped = argc > 4 ? atoi(argv[4]) : 0;

	if (seeds < 1 || holds < 0 || holds > MAX_HOLDS || !(seconds >= 0.5 && seconds <= 60) ||
	    holds > seconds * 4 || (stopped != 0 && stopped != 1)) {
		fprintf(stderr, "usage: powercount-check SEEDS HOLDS [SECONDS] [STOPPED] (HOLDS 0 to %d and to SECONDS x 4, SECONDS 0.5 to 60, STOPPED 0 or 1)\n",
			MAX_HOLDS);
		return 2;
	}
	for (unsigned seed = 1; seed <= seeds; seed++) {
		double unseen_ms, held_ms, error = run(seed, holds, seconds, stopped,
						      &unseen_ms, &held_ms);

		printf("seed=%u error=%.3f unseen_ms=%.1f held_ms=%.1f\n", seed, 100 * error, unseen_ms,
		       held_ms);
		sum += fabs(error);
		worst = fmax(worst, fabs(error));
	}
	printf("mean=%.3f worst=%.3f\n", 100 * sum / seeds, 100 * worst);
	return 0;
}
