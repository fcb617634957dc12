/* summary.h - what the sampler says about a run at its end: a warning per
 * channel with missing readings, one warning when the sampling rate fell
 * short of the target (what was measured, and the fix that applies), and
 * with -d the run's statistics. */
#ifndef SAMPLER_SUMMARY_H
#define SAMPLER_SUMMARY_H

#include <stdbool.h>
#include <stdint.h>

#include "../profile/profile.h"
#include "engine.h"
#include "tune.h"

/* A run below this share of its target frequency gets the rate warning. */
#define SUMMARY_RATE_WARN_SHARE 0.9

struct summary_run {
	double hz;				/* the target frequency */
	const struct profile_info *info;	/* the channels */
	const struct tune *tune;		/* what was asked (--idle, --nice) */
	const struct tune_state *tuned;		/* what is in effect */
	bool written;				/* a profile was written (-o) */
	uint64_t bytes;				/* its size */
	bool failed;				/* the run ends with an error */
	bool debug;				/* -d */
};

/* Print the warnings (and with -d the statistics) on stderr. */
void summary_print(const char *prog, const struct summary_run *run,
		   const struct engine_stats *st);

#endif
