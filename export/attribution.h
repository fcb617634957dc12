/* attribution.h - the one rule that divides a sample's energy among threads.
 *
 * A per-sample ENERGY reading is the energy spent in the interval since the
 * previous sample.  It is divided among the threads of the sample in
 * proportion to the CPU time each used in that interval:
 *
 *     share(thread) = energy * cpu_delta(thread) / sum of cpu_delta
 *
 * When no thread ran in the interval (sum of cpu_delta == 0) the energy is
 * divided equally among the sample's threads: they were all blocked at
 * their PCs, and the machine's energy went by while they waited.  A sample
 * without threads, or with a missing (NaN) reading, attributes nothing.
 * Both the perf.data and the CSV exporters use exactly this function.
 */
#ifndef SAMPLER_EXPORT_ATTRIBUTION_H
#define SAMPLER_EXPORT_ATTRIBUTION_H

#include <stdint.h>

#include "../profile/profile.h"

/* Fill shares[0..s->nthreads-1] with each thread's part of energy.
 * Returns the energy attributed (energy, or 0 when nothing could be). */
double attribute_energy(const struct profile_sample *s, double energy, double *shares);

/* Integer periods that keep totals: the exact running total is rounded,
 * and each period is what that rounding adds, so the periods of a channel
 * always sum to the rounded total of its exact shares. */
struct period_carry {
	double exact;			/* running exact total */
	uint64_t emitted;		/* running sum of periods handed out */
};

uint64_t period_carry_take(struct period_carry *c, double amount);

#endif
