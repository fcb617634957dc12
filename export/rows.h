/* rows.h - the rows of the row-per-thread-sample outputs (CSV and the
 * scripts' columns): what each row holds, in one place, so that both
 * outputs give the same numbers.
 *
 * A row is a thread-sample (kind sample), the tail a thread ran after its
 * last sample (kind exit: CPU time and counters, no wall interval, energy
 * 0, other per-sample readings missing), or, in profiles with clock
 * samples, one place the kernel found a thread running on its CPU clock
 * (kind cpu: the CPU time charged there, no wall interval, energy 0,
 * counts 0, other readings missing), written after its thread-sample,
 * which keeps the rest of the thread's CPU time (profile.h, pc_cpu_ns).  Times are relative to the
 * recording's start; a sample's wall interval is the time since the
 * previous sample; its energy is divided by the one rule (attribution.h:
 * --energy-rule, the trapezoid estimator by default, which reads the
 * profile once more before the rows).
 *
 * Both outputs start with the same text lines: the host, one line per
 * channel, one per process with its last comm and argv, and one per thread
 * whose last name is not its process's.  Only the whole
 * profile tells those, so the CSV reads the profile twice: a first pass
 * collects the processes (a few bytes each), the second makes the rows.
 * The columns name the processes at their end instead, from the one pass.
 */
#ifndef SAMPLER_EXPORT_ROWS_H
#define SAMPLER_EXPORT_ROWS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "../energy/energy.h"
#include "export.h"
#include "../common/idmap.h"
#include "stackfmt.h"
#include "../symbols/symbols.h"

/* The names the rows' text lines give: processes and renamed threads. */
struct row_tasks {
	struct idmap procs;		/* pid -> struct row_process */
	struct idmap threads;		/* tid -> struct row_thread */
};

struct rows {
	const struct profile_info *info;
	struct symbolizer *symbols;	/* NULL without --symbols */
	uint64_t prev_ns;
	bool have_prev;
	bool have_stats;
	struct profile_stats stats;	/* the last stats record */
	size_t shares_cap;
	double *shares;			/* [sample channel][thread] */
	struct energy_source *energy;	/* the rows' energy (the export loop's) */
	size_t sample_index;		/* samples seen so far */
	bool collect;			/* collect the processes as they come */
	uint64_t frames[PROFILE_MAX_FRAMES];	/* rows_stack's */
	struct row_tasks tasks;		/* (rows_write_processes) */
};

struct row {
	int64_t time_ns;		/* since the recording's start */
	uint32_t pid;
	uint32_t tid;
	bool exit;			/* kind exit, else sample */
	bool clock;			/* kind cpu, else sample */
	uint64_t pc;
	uint64_t cpu_delta_ns;
	uint64_t wall_delta_ns;
	/* where the channel values come from (rows_cell) */
	const struct profile_sample *sample;
	uint32_t thread;
	const struct profile_exit *exit_rec;
	/* profiles with stacks: the thread's call stack (an exit row: its
	 * last), for profile_stack_frames */
	const struct stack_tree *stacks;
	uint32_t chain;
	uint8_t stack_end;		/* how it ended (enum profile_stack_end) */
};

/* A row's channel cell: missing (an empty CSV cell), an integer count, or
 * a value. */
enum row_cell {
	ROW_CELL_EMPTY,
	ROW_CELL_COUNT,
	ROW_CELL_VALUE,
};

typedef int (*row_fn)(void *arg, const struct row *row, struct error *err);

/* With a symbolizer when opt->symbols; the rows' energy from energy
 * (energy.h).  -1: err set (r is then freed). */
int rows_init(struct rows *r, const struct profile_info *info, const struct export_options *opt,
	      struct energy_source *energy, struct error *err);
void rows_free(struct rows *r);

/* Take one record of the second pass: each row it makes goes to emit (a
 * sample gives one per thread, a final exit one).  -1: err set. */
int rows_record(struct rows *r, const struct profile_record *rec, row_fn emit, void *arg,
		struct error *err);

/* Channel ch (profile channel index) of row. */
enum row_cell rows_cell(const struct rows *r, const struct row *row, uint32_t ch,
			uint64_t *count, double *value);

/* The row's energy of channel ch in joules, by the one rule of
 * attribution.h: an energy channel's reading, or a power channel's reading
 * times the sample's wall interval.  0 for an exit row; NAN for a missing
 * reading or a channel that is neither. */
double rows_energy(const struct rows *r, const struct row *row, uint32_t ch);

/* The row's DSO and symbol (symbols.h; needs --symbols), what perf
 * report --sort dso,sym names. */
void rows_symbol(const struct rows *r, const struct row *row, const char **dso,
		 const char **symbol);

/* The row's call stack as text (stackfmt.h: names with --symbols, else
 * addresses), outermost first.  -1: err set. */
int rows_stack(struct rows *r, const struct row *row, struct stack_text *text,
	       struct error *err);

/* The text lines both outputs start with, after their magic line: host,
 * channels, and the processes of a first pass over input (none when input
 * is NULL).  -1: err set. */
int rows_write_head(FILE *f, const struct profile_info *info, const char *input,
		    struct error *err);

/* The processes collected during the one pass (r->collect set before it),
 * for an output that may name them at its end.  -1: err set. */
int rows_write_processes(FILE *f, const struct rows *r, struct error *err);

/* A power channel's energy in a sample row by the rule (energy.h), in the
 * channel's unit times seconds: false for another kind, an exit row or a
 * missing reading. */
bool rows_power_energy(const struct rows *r, const struct row *row, uint32_t ch, double *value);

/* A row's model variance of channel ch (energy_estimate_model_var: the
 * change points between its function and the thread's functions in the
 * samples before and after it), in the channel's unit squared (times s^2
 * for power): false without the estimate, for another kind or channel,
 * an exit row or a missing reading. */
/* Whether channel ch has a model variance column (the trapezoid estimate
 * was built and ch is a per-sample energy or power channel): the CSV's
 * `<channel>:var` and the columns' model_var values, in channel order. */
bool rows_has_model_var(const struct rows *r, uint32_t ch);
bool rows_model_var(const struct rows *r, const struct row *row, uint32_t ch, double *value);

/* The `# meter ...` lines of the trapezoid rule: per energy or power
 * channel, the meter's update interval and delay it used, how many sample
 * intervals saw no update (docs/ENERGY.md), and whether a power
 * channel's cells hold the rows' energy (power_energy) or the readings. */
void rows_write_meters(FILE *f, const struct rows *r, bool power_energy);

/* The `# stats ...` line of the last stats record, if any. */
void rows_write_stats(FILE *f, const struct rows *r);

#endif
