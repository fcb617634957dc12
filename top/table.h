/* table.h - sampler top's counts: what the profile stream says, summed per
 * (function, thread), for the last interval and since the start.
 *
 * The reader thread feeds records (top_table_record) under the table's
 * lock; the display takes a view (top_table_view) under the same lock,
 * then starts the next interval.  Rows come from the exporter's rows.h and
 * its symbolizer (each DSO read once, each (pid, pc) resolved once), so
 * the view shows what sampler-export and sampler-report would.
 */
#ifndef SAMPLER_TOP_TABLE_H
#define SAMPLER_TOP_TABLE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "../common/error.h"
#include "../common/idmap.h"
#include "../export/rows.h"
#include "../profile/profile.h"

/* The program named in warnings and errors of sampler top. */
#define TOP_PROG "sampler top"

#define TOP_MAX_ENERGY 8		/* energy channels shown */
#define TOP_MAX_FILES 256	/* files whose unnamed code has a row of its own */
#define TOP_PATHS 4			/* call paths kept per (function, thread) */
#define TOP_PATH_DEPTH 24		/* callers kept per call path */
#define TOP_MAX_CELLS (1u << 20)	/* then new keys go to one "[other]" cell */
#define TOP_Z95 1.959963984540054	/* the report's default 95% interval */

enum top_sort { TOP_SORT_CPU, TOP_SORT_ENERGY, TOP_SORT_SAMPLES };
enum top_by { TOP_BY_FUNCTION, TOP_BY_THREAD, TOP_BY_PROCESS, TOP_BY_RANK };

/* Sums over thread-samples (and exit rows). */
struct top_counts {
	uint64_t samples;		/* thread-samples */
	uint64_t cpu_ns;		/* CPU time, self */
	uint64_t incl_ns;		/* -g: CPU time with the function anywhere on the stack */
	double joules[TOP_MAX_ENERGY];	/* energy by attribution.h's rule */
	double joules_sq[TOP_MAX_ENERGY];	/* sum of squares: the interval's variance */
};

/* One call path of a cell: its callers' names, innermost first. */
struct top_path {
	const char *frames[TOP_PATH_DEPTH];
	uint32_t nframes;
	uint64_t cpu_ns;		/* since the start */
};

struct top_cell {
	const char *dso, *symbol;	/* the symbolizer's strings: stable */
	uint32_t pid, tid;
	struct top_counts now, all;
	struct top_path *paths;		/* -g: up to TOP_PATHS, NULL before the first */
	uint32_t npaths;
	struct top_cell *next;		/* hash chain */
};

/* What the display asked for. */
struct top_view_options {
	enum top_sort sort;
	enum top_by by;
	double percent_limit;		/* hide rows below this share of the sort key */
	uint32_t only_pid, only_tid;	/* filter (0: all) */
};

/* One row of a view: a group of cells. */
struct top_row {
	char label[64];			/* function, or "TID name", "PID comm", "rank R" */
	const char *dso;		/* function rows: the DSO, else "" */
	uint32_t pid, tid;		/* the first cell's (for the filter keys) */
	struct top_counts now, all;
	const struct top_cell *first;	/* function rows: the cells' paths */
};

struct top_view {
	struct top_row *rows;
	uint32_t nrows;
	size_t cap;			/* GROW_ARRAY's */
	struct top_counts now, all;	/* totals of the filtered cells */
	double now_s, all_s;		/* wall time of the interval, since the start */
	double rate_hz;			/* samples per second in the interval */
	uint64_t samples_now;
	bool ended;			/* the stream ended */
};

struct top_table {
	pthread_mutex_t lock;
	pthread_cond_t changed;		/* the stream ended */
	struct profile_info info;
	struct rows rows;
	struct energy_source *energy;	/* the rows' energy: the end rule (no second pass) */
	bool stacks;
	uint32_t nenergy;
	uint32_t energy_ch[TOP_MAX_ENERGY];	/* profile channel indexes */
	struct top_cell **buckets;
	uint32_t nbuckets, ncells;
	struct top_cell *other;		/* past TOP_MAX_CELLS */
	struct idmap names;		/* tid -> char[PROFILE_COMM_MAX] (threads) */
	struct idmap comms;		/* pid -> char[PROFILE_COMM_MAX] (processes) */
	struct {
		const char *dso;	/* the symbolizer's string */
		char label[64];		/* "[file]": its code that has no symbol */
	} files[TOP_MAX_FILES];
	uint32_t nfiles;
	uint64_t start_ns;		/* the interval "since start" begins */
	uint64_t now_start_ns;		/* the current interval begins */
	uint64_t last_ns;		/* the newest sample */
	uint64_t samples_now;
	bool ended;
	int status;			/* 0, or -1 with err: the stream was bad */
	struct error err;
};

int top_table_init(struct top_table *t, const struct profile_info *info, struct error *err);
void top_table_free(struct top_table *t);

/* Take one record (the caller holds t->lock).  -1: err set. */
int top_table_record(struct top_table *t, const struct profile_record *rec, struct error *err);

/* Fill v with the rows of the current interval and the totals (the caller
 * holds t->lock); -1 when out of memory. */
int top_table_view(struct top_table *t, const struct top_view_options *o, struct top_view *v);
void top_view_free(struct top_view *v);

/* Start the next interval (zero: also forget everything since the start). */
void top_table_next_interval(struct top_table *t, bool zero);

/* Sort the rows of v again (a new key on the rows shown). */
void top_view_sort(struct top_view *v, enum top_sort sort);

/* -g: the call paths of row (a function row of view o) with the most CPU
 * time since the start, at most max, into out.  The caller holds t->lock. */
uint32_t top_table_paths(const struct top_table *t, const struct top_view_options *o,
			 const struct top_row *row, struct top_path *out, uint32_t max);

/* The sort key's value of a row (or a total). */
double top_sort_value(const struct top_counts *c, enum top_sort sort);

/* Joules in c of energy channel i and the half width of their 95%
 * interval: compound-Poisson sampling error, var = sum e^2, as the
 * report's totals (scripts/samplerlib/stats.py). */
double top_energy_half(const struct top_counts *c, uint32_t i);

/* The name of energy channel i. */
const char *top_energy_name(const struct top_table *t, uint32_t i);

#endif
