/* attribution.h - the one rule that divides the energy of a profile among
 * the thread-samples (rows) of its samples.
 *
 * A per-sample ENERGY reading is the energy the meter counted since the
 * previous sample; a POWER reading is the meter's mean power, i.e. energy
 * per second.  Two rules divide it (--energy-rule, docs/ENERGY.md):
 *
 * end        (the rule before 0.9, kept for comparison) the energy of the
 *            interval that a sample closes goes to that sample's threads,
 *            in proportion to the CPU time each used in the interval:
 *                share(thread) = energy * cpu_delta(thread) / sum of cpu_delta
 *            (equally when no thread ran: they all waited at their PCs).
 *            Biased at every change of what runs: the interval's energy
 *            goes to the code running at its end, though the code running
 *            at its start spent part of it.
 *
 * trapezoid  (the default) each interval is split between the snapshots at
 *            both of its ends, each thread's CPU time half to its PC at the
 *            start and half to its PC at the end; the meter's energy is
 *            placed in time where the meter counted it (its update interval
 *            and delay, measured or given), an interval in which the meter
 *            did not update carries no information (its energy comes with
 *            the next update, spread over both), and within what one update
 *            covers the energy goes to the halves in proportion to the
 *            power each PC is estimated to draw (fitted on the whole
 *            profile).  Unbiased to first order in the interval length.
 *
 * A sample without threads, or with a missing (NaN) reading, gets nothing.
 * Every format uses the chosen rule: perf.data, the CSV, the scripts'
 * columns, folded and speedscope (a perf report and a sampler-report of one
 * profile give the same energy per function).
 */
#ifndef SAMPLER_EXPORT_ATTRIBUTION_H
#define SAMPLER_EXPORT_ATTRIBUTION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../common/error.h"
#include "../profile/profile.h"

enum energy_rule {
	ENERGY_RULE_TRAPEZOID,
	ENERGY_RULE_END,
};

/* "end" or "trapezoid"; -1 (err set) for anything else. */
int energy_rule_parse(const char *name, enum energy_rule *rule, struct error *err);

/* The end rule for one sample: fill shares[0..s->nthreads-1] with each
 * thread's part of energy.  Returns the energy attributed (energy, or 0
 * when nothing could be). */
double attribute_energy(const struct profile_sample *s, double energy, double *shares);

/* What the estimator knows of a channel's meter (NaN: not given). */
struct meter_model {
	double update_s;		/* interval between the meter's updates */
	double delay_s;			/* how late a reading reflects the power */
	/* measured on the profile (per-sample energy and power channels) */
	uint64_t intervals;		/* sample intervals with a reading */
	uint64_t no_update;		/* ... in which the meter did not update */
	double missed;			/* a power meter's updates no reading saw (an
					 * interval longer than update_s holds several
					 * and shows the last): their share */
	bool update_measured;		/* update_s from the profile, not given */
	bool delay_measured;		/* delay_s fitted on the profile, not given */
	uint32_t node_profiles;		/* the profiles whose readings of the node's
					 * counter made the spans: 1, its own, or
					 * with its --node-peer (nodespans.c) */
	uint64_t long_intervals;	/* the profile's long intervals (the recorder
					 * got no CPU for a while: spread.c) */
	double long_middle_s;		/* their middles' time, whose energy went to
					 * the profile's mix of code */
	double longest_s;		/* the longest sample interval */
	double placed;			/* the share of the CPU time in intervals
					 * whose threads' runs the profile gives */
	double ran;			/* in those, the share of the active time
					 * the threads ran in (the rest they waited) */
	bool pipelined;			/* a reading answers the query sent at the
					 * previous sample (scpi): it is the meter's
					 * state then, not at its own sample */
};

/* "[CHANNEL=]MS" options: the meter's update interval or delay, for one
 * channel or (no CHANNEL=) all. */
struct meter_option {
	const char *spec;
	bool delay;			/* --meter-delay, else --meter-update */
};

/* The trapezoid rule over a whole profile: the energy of every row, per
 * per-sample channel (0 for channels that are neither energy nor power). */
struct energy_estimate {
	uint32_t nchannels;		/* info->nsample_channels */
	size_t nsamples;
	size_t *row0;			/* [sample]: its first row; [nsamples]: the rows */
	double *energy;			/* [row * nchannels + k], the channel's unit times s for power */
	/* The model's own uncertainty (docs/ENERGY.md): a thread whose PC
	 * changed between two samples changed code somewhere in the interval
	 * between them, where is not known; xfer_var[row * nchannels + k] is
	 * the variance of the energy the split of that interval moved between
	 * the row and the thread's row in the previous sample (prev[row]);
	 * 0 when the PC did not change or no row came before. */
	double *xfer_var;
	size_t *prev, *next;		/* [row]: the thread's row in the previous / next
					 * sample, or SIZE_MAX */
	uint64_t *pc;			/* [row] */
	struct meter_model meter[PROFILE_MAX_CHANNELS];	/* per sample channel */
};

/* Profiles that share input's node meter (--node-peer): at most this many. */
#define ENERGY_MAX_PEERS 15

/* Read input (once more) and divide its energy by the trapezoid rule.
 * peers: profiles recorded on the same host at the same time (the other
 * ranks of a job) whose threads draw from the node that input's meter
 * counts: their samples are read too, the node's energy is divided among
 * all the threads by modelled power, and input's rows get their part only
 * (docs/ENERGY.md, "Ranks sharing a node").  A peer of another host is
 * refused (err set).
 * -1: err set (bad option, out of memory); 1: the profile holds more
 * samples and thread-samples than the estimate keeps in memory (200,000,
 * about 20 MB): nothing built, the caller uses the end rule and says so;
 * a damaged profile only ends the pass early, the caller's own pass
 * reports it.  prog: the program named in warnings and in the symbols'. */
int energy_estimate_build(struct energy_estimate *est, const char *input,
			  const char *const *peers, uint32_t npeers,
			  const struct profile_info *info, const struct meter_option *opts,
			  uint32_t nopts, const char *prog, struct error *err);
void energy_estimate_free(struct energy_estimate *est);

/* The energies of the threads of the index-th sample in channel k (its
 * nthreads rows), or NULL past the samples the estimator saw. */
const double *energy_estimate_row(const struct energy_estimate *est, size_t index, uint32_t k,
				  uint32_t nthreads, double *out);

/* Integer periods that keep totals: the exact running total is rounded,
 * and each period is what that rounding adds, so the periods of a channel
 * always sum to the rounded total of its exact shares. */
struct period_carry {
	double exact;			/* running exact total */
	uint64_t emitted;		/* running sum of periods handed out */
};

/* Channel k's model variance of the row-th row (energy_estimate_row's
 * numbering: the index-th sample's first row plus the thread): the
 * variance of the transfers with the thread's rows before and after it
 * whose code differs from this row's (same(arg, pc_a, pc_b) says whether
 * two PCs of the thread run the same code: the same function, or PC).
 * In the channel's unit squared (times s^2 for power); NAN past the
 * estimate. */
double energy_estimate_model_var(const struct energy_estimate *est, size_t index, uint32_t thread,
				 uint32_t k, bool (*same)(void *arg, uint64_t a, uint64_t b),
				 void *arg);

uint64_t period_carry_take(struct period_carry *c, double amount);

#endif
