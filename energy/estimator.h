/* estimator.h - the trapezoid estimator's state, shared by its
 * five rooms (docs/ENERGY.md): estimate.c reads the profiles and hands
 * the result out (attribution.h), runs.c shapes each change of function
 * by how long the functions' runs last, metermodel.c turns a channel's
 * readings into the spans of its meter's updates, nodespans.c those of a
 * node's counter read by several profiles, spread.c fits each code's
 * power and gives the spans' energy to the halves of the sample
 * intervals.  Nothing outside those five includes it. */
#ifndef SAMPLER_EXPORT_ESTIMATOR_H
#define SAMPLER_EXPORT_ESTIMATOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "attribution.h"

#define NO_ROW SIZE_MAX

struct est_sample {
	double start, time;		/* its interval, s since the recording's start */
	double active;			/* when its threads were let run again (start + the
					 * sampler's mean hold, at most what CPU time allows) */
	double read;			/* when its meters were read: at the end of the
					 * hold that follows it (the next one's active) */
	double cpu_max;			/* the most CPU time one thread used in it */
	/* The part of it its threads ran in, which the halves cover: from
	 * the first switch in of its threads that ran to their last switch
	 * out, where the profile has their runs (info.runs), else from
	 * active to time (docs/ENERGY.md, "Where in its interval a thread
	 * ran"); run_from NAN while not known. */
	double run_from, run_to;
	bool placed;			/* run_from, run_to from the profile */
	double fade;			/* how far into the active part from either end
					 * its threads' PCs there tell what ran: all of it,
					 * but in a long interval (spread.c) */
	size_t row0;
	uint32_t nthreads;
	double cpu;			/* its threads' CPU time in the interval, s */
	bool brk;			/* first of a window: nothing known before it */
};

struct est_row {
	uint32_t tid, pid;
	uint32_t key;			/* index of its code among the distinct codes */
	uint64_t pc;
	uint64_t code;			/* its PC as (file, offset): est_code */
	double cpu;			/* s */
	size_t sample;
	size_t prev;			/* the thread's row in the previous sample, or NO_ROW */
	uint64_t func;			/* its function: (file, symbol), or its PC where none */
	uint32_t func_id;		/* index of its function among the distinct ones */
	/* Where in the interval this row closes its thread changed function:
	 * the change point's density over the active part is
	 * 1 + shape (2u - 1), u in [0, 1] (0: uniform; runs.c). */
	double shape;
};

/* A mapping of a file, for est_code. */
struct est_map {
	uint32_t pid;
	uint64_t start, end, pgoff;
	uint64_t file;			/* (device, inode) */
};

/* The energy one meter update reports, and the time it covers: from the
 * previous update to this one, each known only to lie somewhere in a
 * window (uniformly): a time t belongs to the span with the probability
 * that the previous update came before t and this one after it, rising
 * over [a0, a] and falling over [b0, b] (a0 == a, b0 == b: sharp).
 * energy NAN: a model span, time no update of a power meter saw, which
 * the fitted powers fill (metermodel.c). */
struct span {
	double a0, a, b0, b, energy;
};

/* The profile exported is lane 0; the other lanes are its node peers:
 * profiles of the same host whose threads draw from the node meter that
 * lane 0's readings count (attribution.h), and whose readings of it cut
 * its spans too (nodespans.c). */

/* What the passes over the profiles read (estimate.c). */
struct est_input {
	struct est_sample *samples;
	size_t nsamples, samples_cap;
	size_t nown;			/* lane 0's samples: the readings, the output */
	uint32_t nlanes;
	size_t lane_end[ENERGY_MAX_PEERS + 1];	/* [lane]: one past its last sample */
	struct est_row *rows;
	size_t nrows, rows_cap;
	double *values;			/* [sample * nsc + k]; a peer's: of its channel
					 * like lane 0's k, NAN where it has none */
	size_t values_cap;
	struct est_map *maps;
	size_t nmaps, maps_cap;
};

/* The rows' code and functions, and each code's fitted power. */
struct est_codes {
	struct symbolizer *symbols;	/* the functions of the rows (runs.c) */
	uint32_t nkeys, nfuncs;
	double *func_run;		/* per function: its mean run, in samples (runs.c) */
	double *power, *num, *den;	/* per key */
	double *fit_next;		/* per key: a round's new powers (spread.c) */
};

/* The spans of the channel at hand (metermodel.c, nodespans.c). */
struct est_spans {
	struct span *spans;
	size_t nspans, spans_cap;
	uint32_t span_lanes;		/* the lanes whose readings made them */
};

/* per half (2 * nsamples), one round's: its modelled power, and the
 * energy and seconds the spans give it (handed to its threads once);
 * and its expected time in the span at hand (predicted) */
struct est_halves {
	double *half_watts, *half_energy, *half_seconds, *half_overlap;
	/* the same for the shape term of the change points (spread.c): the
	 * expected time moved by a thread's shape, per unit of shape */
	double *half_watts_q, *half_energy_q, *half_seconds_q, *half_overlap_q;
};

/* per sample, the middle of a long interval (spread.c): its modelled
 * power and its expected time in the span at hand; per lane, one
 * round's energy the spans give the middles (handed to the lane's
 * rows), and the modelled energy of the lane in the meter's spans that
 * several lanes meet and the energy they give it (lane_settle) */
struct est_mix {
	double *mix_watts, *mix_overlap;
	double lane_mix[ENERGY_MAX_PEERS + 1];
	double lane_model[ENERGY_MAX_PEERS + 1], lane_meter[ENERGY_MAX_PEERS + 1];
	double shared_energy, shared_model;	/* of the spans several lanes meet */
};

/* the last round: the energy given to each thread's slots of a
 * sample's interval, [own row], the first half's (at the thread's
 * previous PC) and the second's (at its PC now) */
struct est_out {
	double *first, *second;
};

struct est {
	const struct profile_info *info;
	uint32_t nsc;
	struct est_input in;
	struct est_codes codes;
	struct est_spans meter;
	struct est_halves halves;
	struct est_mix mix;
	struct est_out out;
};

/* spread.c: the model of the halves, one round of it, the fit */
double mean_interval(const struct est *e);
/* Each sample's fade (after shape_changes): where a long interval's ends
 * stop telling what ran (-1: out of memory). */
int set_fades(struct est *e);
/* Lane 0's long intervals, their middles' time and its longest interval,
 * into m. */
void measure_long(const struct est *e, struct meter_model *m);
/* One round: every span's energy to the halves it overlaps, by modelled
 * power; out (the last round) gets each row's part of channel k. */
void spread_energy(struct est *e, uint32_t k, double *out);
/* Fit each code's power on the spans (a fixed point, run until it holds,
 * but 20 rounds with node peers); scan: one of the delay search's fits,
 * which compare residuals only (20 rounds). */
void fit_powers(struct est *e, uint32_t k, bool scan);
/* qsort's order of doubles, ascending. */
int spread_cmp_double(const void *a, const void *b);
/* How far the spans' energies are from the fitted powers' prediction. */
double spread_residual(struct est *e, uint32_t k);

/* runs.c: where in an interval a thread changed function, from how long
 * the function's runs last (each row's shape) */
int shape_changes(struct est *e);

/* metermodel.c: a channel's meter and the spans of its updates */
/* The meter's update interval, how many intervals saw no update and (a
 * power meter) the share of its updates no reading saw (-1: out of
 * memory). */
int measure_meter(struct est *e, uint32_t k, const struct channel_desc *ch,
		  struct meter_model *m);
/* Channel k's readings as spans under m (-1: out of memory). */
int build_spans(struct est *e, uint32_t k, enum channel_kind kind, const struct meter_model *m);
/* An external meter's delay fitted on the profile (-1: out of memory). */
int fit_delay(struct est *e, uint32_t k, enum channel_kind kind, struct meter_model *m);
/* "[CHANNEL=]MS" into the meters it names; -1 (err set) when bad. */
int apply_option(const struct profile_info *info, const struct meter_option *o,
		 struct meter_model *meters, struct error *err);

/* spans.c: append a span (-1: out of memory). */
int add_span(struct est *e, double a0, double a, double b0, double b, double energy);

/* nodespans.c: an energy counter of the node read by every lane, as the
 * spans of all their readings; 1 when they cannot be put together. */
int build_node_spans(struct est *e, uint32_t k, const struct meter_model *m);

#endif
