/* export.h - profile exporters: one reading loop, one set of ops per format.
 *
 * export_profile() reads a profile record by record and hands each record
 * to the chosen exporter as it comes (nothing is kept per sample, so memory
 * does not grow with the profile).  A profile that is cut short or corrupt
 * is exported up to its last good record and reported as partial.
 */
#ifndef SAMPLER_EXPORT_EXPORT_H
#define SAMPLER_EXPORT_EXPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "../common/error.h"
#include "../profile/profile.h"
#include "../energy/attribution.h"
#include "../energy/energy.h"

#define EXPORT_PROG "sampler-export"	/* for warnings and errors */
#define EXPORT_MAX_EVENTS 32		/* --event NAME given at most this often */

struct export_options {
	const char *prog;		/* named in warnings (NULL: sampler-export) */
	const char *input;		/* the profile's path */
	const char *output;		/* "-": stdout (perf: pipe mode) */
	bool force;			/* replace output without keeping OUTPUT.old */
	const char *max_size;		/* --max-size as given (NULL: the default) */
	uint64_t size_limit;		/* ...the bound it set on the output (0: none) */
	bool symbols;			/* CSV: add dso and symbol columns */
	const char *symbol_cache;	/* persistent symbol cache dir, NULL: off */
	bool no_demangle;		/* symbols: C++ and Rust names as mangled */
	bool no_inline;			/* stacks: no inlined frames (inlines.h) */
	const char *events[EXPORT_MAX_EVENTS];	/* perf: --event names, none: all */
	uint32_t nevents;
	const char *weight;		/* folded: samples (NULL), cpu, wall, energy[:CH], COUNTER */
	enum energy_rule energy_rule;	/* rows' energy (attribution.h) */
	struct meter_option meters[2 * PROFILE_MAX_CHANNELS];	/* --meter-delay/-update */
	uint32_t nmeters;
	const char *peers[ENERGY_MAX_PEERS];	/* --node-peer (attribution.h) */
	uint32_t npeers;
	bool ids_without_pids;		/* a merge of many profiles: no JIT maps by pid */
};

/* The program a warning names: opt->prog, else sampler-export. */
static inline const char *export_prog(const struct export_options *opt)
{
	return opt && opt->prog ? opt->prog : EXPORT_PROG;
}

/* The energy options of opt (opt NULL: the defaults). */
struct energy_options export_energy_options(const struct export_options *opt);

struct export_result {
	uint64_t records;		/* records exported */
	bool partial;			/* input truncated or corrupt */
	char dropped[sizeof(((struct error *)0)->msg) + 128];	/* what was dropped, one line */
	uint64_t repaired[PROFILE_REPAIR_KINDS];	/* profile_reader_repaired */
};

struct exporter {
	const char *name;		/* --format NAME */
	bool reads_input_twice;		/* open() reads opt->input once more */
	/* What one thread-sample (or clock sample) and one frame of its
	 * stack add to the output: the estimate said before writing a large
	 * one (export.c; as measured on examples/calltree's profiles, -g and
	 * not).  0: the output does not grow per sample. */
	uint32_t bytes_per_sample, bytes_per_frame;
	/* energy: the profile's energy (energy.h), opened by the loop */
	void *(*open)(const struct profile_info *info, const struct export_options *opt,
		      struct energy_source *energy, struct error *err);
	int (*record)(void *state, const struct profile_record *rec, struct error *err);
	/* Complete the output and free the state; -1 if the output is bad.
	 * result says how the reading went (partial or not). */
	int (*finish)(void *state, const struct export_result *result, struct error *err);
};

extern const struct exporter perf_exporter;	/* perfdata.c */
extern const struct exporter csv_exporter;	/* csv.c */
extern const struct exporter columns_exporter;	/* columns.c: for the scripts */
extern const struct exporter pperf_exporter;	/* pperf.c */
extern const struct exporter info_exporter;	/* info.c: --info */
extern const struct exporter folded_exporter;	/* folded.c: collapsed stacks */
extern const struct exporter speedscope_exporter;	/* speedscope.c: its JSON */
extern const struct exporter firefox_exporter;	/* firefox.c: the Firefox Profiler's */
extern const struct exporter pprof_exporter;	/* pprof.c: gzipped profile.proto */


/* 0: whole profile exported; 1: partial export (result->dropped says what
 * was lost); -1: nothing usable (err says why).  An output estimated at
 * 100 times the profile and 10 MB or more is announced (one warning, with
 * --max-size) before it is written. */
int export_profile(const struct exporter *ex, const struct export_options *opt,
		   struct export_result *result, struct error *err);

#endif
