/* weight.h - what a row weighs in a stack output (--weight, docs/EXPORT.md):
 * samples, cpu (ns), wall (ns), energy[:CHANNEL] (uJ, attributed by the one
 * rule of attribution.h) or a per-thread counter's delta: the values of the
 * rows of rows.h, so that the weights are the CSV's columns.
 */
#ifndef SAMPLER_EXPORT_WEIGHT_H
#define SAMPLER_EXPORT_WEIGHT_H

#include "../common/error.h"
#include "../profile/profile.h"
#include "rows.h"

enum weight_kind {
	WEIGHT_SAMPLES,
	WEIGHT_CPU,
	WEIGHT_WALL,
	WEIGHT_ENERGY,
	WEIGHT_COUNTER,
};

struct weight {
	enum weight_kind kind;
	uint32_t channel;		/* the profile channel weighed (energy, counter) */
	const char *unit;		/* "ns", "uJ", "samples" or the counter's name */
};

/* Parse spec (NULL: dflt) against the profile's channels; -1 (err set) for
 * an unknown weight or a channel the profile lacks. */
int weight_parse(struct weight *w, const struct profile_info *info, const char *spec,
		 const char *dflt, struct error *err);

/* What a row weighs; exit rows weigh only CPU time and counts. */
double weight_of_row(const struct weight *w, struct rows *rows, const struct row *row);

#endif
