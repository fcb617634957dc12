/* energy.h - the one owner of the energy rule: the energy of each
 * thread-sample (row) of a profile, per per-sample channel, and its model
 * variance.  The export loop opens one source per profile; every writer
 * (perf.data, the rows of the CSV, the scripts' columns, folded,
 * speedscope, firefox, pprof, and a merge's inputs) asks it, so they all
 * give the same energy.  The rule (attribution.h): the trapezoid estimate
 * where it was built, else the end rule; the source decides once, and
 * says so (a warning when the estimate could not be built). */
#ifndef SAMPLER_ENERGY_ENERGY_H
#define SAMPLER_ENERGY_ENERGY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../common/error.h"
#include "../profile/profile.h"
#include "attribution.h"

struct energy_options {
	enum energy_rule rule;		/* --energy-rule */
	const struct meter_option *meters;	/* --meter-delay/-update */
	uint32_t nmeters;
	const char *const *peers;	/* --node-peer profiles */
	uint32_t npeers;
	const char *prog;		/* named in warnings and the symbols' */
	bool no_variance;		/* the model variance is not asked for: not kept */
};

struct energy_source;

/* A source of info's energy, read from input (NULL: the end rule only,
 * nothing is read); nothing is read until energy_source_prepare.  NULL:
 * out of memory (err set). */
struct energy_source *energy_source_open(const struct profile_info *info, const char *input,
					 const struct energy_options *opt, struct error *err);
void energy_source_close(struct energy_source *src);

/* Before the first sample, from every writer that gives energy: build
 * the trapezoid estimate once (one more pass over the input, and the
 * peers) when the rule is trapezoid and the profile has an energy or
 * power channel; where it cannot be built (too large) the end rule
 * serves, with one warning.  -1: err set (bad option, out of memory). */
int energy_source_prepare(struct energy_source *src, struct error *err);

/* Whether the trapezoid estimate serves (after prepare). */
bool energy_source_estimated(const struct energy_source *src);

/* Channel k's meter as the estimate measured or was told it; NULL
 * without the estimate. */
const struct meter_model *energy_source_meter(const struct energy_source *src, uint32_t k);

/* The energy of each thread of the index-th sample s in per-sample
 * channel k (an energy or power channel) into out[0..s->nthreads-1], in
 * the channel's unit (times s for power: a power reading is taken over
 * wall_ns, the sample's interval, by the end rule).  Returns the rule that
 * gave it: the estimate's, else (past what the estimate holds, or
 * without it) the end rule's. */
enum energy_rule energy_source_sample(const struct energy_source *src, size_t index,
				      const struct profile_sample *s, uint64_t wall_ns, uint32_t k,
				      double *out);

/* The model variance of the thread-th row of the index-th sample in
 * channel k (energy_estimate_model_var); NAN without the estimate. */
double energy_source_model_var(const struct energy_source *src, size_t index, uint32_t thread,
			       uint32_t k, bool (*same)(void *arg, uint64_t a, uint64_t b),
			       void *arg);

#endif
