/* scpicheck.h - what a second of an SCPI meter's answers says about it,
 * for `sampler -p help=scpi:...` (the scpi plug-in's check): how often it
 * answers and updates, its range, and whether it looks like a power or an
 * energy meter; a meter that says nothing, or only 0, is refused before a
 * run starts on it. */
#ifndef SAMPLER_PMU_SCPICHECK_H
#define SAMPLER_PMU_SCPICHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "../common/error.h"

/* One answer of the meter, as it came. */
struct meter_reading {
	double value;		/* NaN: no reading (none in time, refused) */
	long long t_ns;		/* CLOCK_MONOTONIC, when it came; 0: never */
};

/* The meter as the plug-in was told about it. */
struct scpi_check_setup {
	const char *address;
	const char *query;	/* without the newline */
	const char *unit;	/* of the answers */
	bool integrating;	/* unit=J: its answers are an energy count */
	double answer_ms;	/* how long an answer took, on average */
	int timeout_ms;
	bool has_update, has_delay;	/* update_ms=, delay_ms= given */
	double update_ms, delay_ms;
	bool delay_plus_poll;	/* the delay declared includes half a poll */
};

/* Print what the answers (n of them, a second's) say to out; -1 with the
 * cause when they hold no reading, or only 0. */
int scpi_check_answers(const struct meter_reading *answers, size_t n,
		       const struct scpi_check_setup *setup, FILE *out, struct error *err);

#endif
