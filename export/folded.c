/* folded.c - call stacks in Brendan Gregg's collapsed form, one line per
 * distinct stack:  comm;outermost;...;leaf WEIGHT
 * which flamegraph.pl, inferno and speedscope read.  The weight of a
 * thread-sample is chosen with --weight (docs/EXPORT.md): samples, cpu
 * (ns), wall (ns), energy[:CHANNEL] (uJ, attributed by the one rule of
 * attribution.h) or a per-thread counter's delta: the values of the rows
 * of rows.h, so that the folded weights are the CSV's columns (the wall
 * interval of a window's first sample included).  Lines are summed per
 * distinct text in a hash table (memory grows with the distinct stacks,
 * not with the samples) and written sorted at the end.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "../common/idmap.h"
#include "rows.h"
#include "stackfmt.h"
#include "textout.h"

enum weight_kind {
	WEIGHT_SAMPLES,
	WEIGHT_CPU,
	WEIGHT_WALL,
	WEIGHT_ENERGY,
	WEIGHT_COUNTER,
};

struct folded_line {
	char *text;
	double weight;
};

struct folded_comm {
	char comm[PROFILE_COMM_MAX];
};

struct folded_writer {
	const char *path;
	bool force;			/* --force: no PATH.old */
	const struct profile_info *info;
	enum weight_kind kind;
	uint32_t channel;		/* the profile channel weighed (energy, counter) */
	struct rows rows;		/* the rows, with a symbolizer */
	struct idmap comms;		/* pid -> folded_comm: the process's name */
	struct idmap names;		/* tid -> folded_comm: the thread's, once known */
	uint64_t frames[PROFILE_MAX_FRAMES];
	struct stack_text text;
	struct folded_line *lines;	/* open addressing on the text */
	size_t nlines, cap;
};

/* ---- the weight ------------------------------------------------------- */

#define ANY_KIND -1

/* The profile channel of scope named name (NULL: the first), of kind
 * (ANY_KIND: of any). */
static int find_channel(const struct profile_info *info, const char *name, enum channel_scope scope,
			int kind, uint32_t *channel)
{
	for (uint32_t i = 0; i < info->nchannels && i < PROFILE_MAX_CHANNELS; i++) {
		const struct channel_desc *c = &info->channels[i];

		if (c->scope != scope || (kind != ANY_KIND && (int)c->kind != kind))
			continue;
		if (!name || strcmp(c->name, name) == 0) {
			*channel = i;
			return 0;
		}
	}
	return -1;
}

static int parse_weight(struct folded_writer *w, const char *spec, struct error *err)
{
	const struct profile_info *info = w->info;

	if (!spec || strcmp(spec, "samples") == 0) {
		w->kind = WEIGHT_SAMPLES;
	} else if (strcmp(spec, "cpu") == 0) {
		w->kind = WEIGHT_CPU;
	} else if (strcmp(spec, "wall") == 0) {
		w->kind = WEIGHT_WALL;
	} else if (strcmp(spec, "energy") == 0 || strncmp(spec, "energy:", 7) == 0) {
		const char *name = spec[6] ? spec + 7 : NULL;

		/* an energy meter's channel, else a power meter's (scpi, sensors) */
		if (find_channel(info, name, CHANNEL_PER_SAMPLE, CHANNEL_ENERGY, &w->channel) < 0 &&
		    find_channel(info, name, CHANNEL_PER_SAMPLE, CHANNEL_POWER, &w->channel) < 0)
			return error_set(err, "--weight %s: the profile has no %s%s energy or power channel (record with an energy plug-in such as -p rapl; --info lists the channels)",
					 spec, name ? "'" : "", name ? name : "");
		w->kind = WEIGHT_ENERGY;
	} else if (find_channel(info, spec, CHANNEL_PER_THREAD, ANY_KIND, &w->channel) == 0) {
		w->kind = WEIGHT_COUNTER;
	} else {
		return error_set(err, "unknown --weight '%s' (use samples, cpu, wall, energy[:CHANNEL] or a counter channel of the profile)",
				 spec);
	}
	return 0;
}

/* ---- the table of lines ----------------------------------------------- */

static uint64_t text_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;	/* FNV-1a */

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

static int grow_lines(struct folded_writer *w)
{
	size_t cap = w->cap ? w->cap * 2 : 1024;
	struct folded_line *lines = calloc(cap, sizeof(*lines));

	if (!lines)
		return -1;
	for (size_t i = 0; i < w->cap; i++) {
		size_t j;

		if (!w->lines[i].text)
			continue;
		for (j = text_hash(w->lines[i].text) & (cap - 1); lines[j].text; j = (j + 1) & (cap - 1))
			;
		lines[j] = w->lines[i];
	}
	free(w->lines);
	w->lines = lines;
	w->cap = cap;
	return 0;
}

static int add_line(struct folded_writer *w, const char *text, double weight, struct error *err)
{
	size_t i;

	if ((w->nlines + 1) * 2 > w->cap && grow_lines(w) < 0)
		goto nomem;
	for (i = text_hash(text) & (w->cap - 1); w->lines[i].text; i = (i + 1) & (w->cap - 1)) {
		if (strcmp(w->lines[i].text, text) == 0) {
			w->lines[i].weight += weight;
			return 0;
		}
	}
	w->lines[i].text = strdup(text);
	if (!w->lines[i].text)
		goto nomem;
	w->lines[i].weight = weight;
	w->nlines++;
	return 0;
nomem:
	return error_set(err, "out of memory for %zu distinct stacks", w->nlines);
}

/* ---- records ---------------------------------------------------------- */

/* The thread's name as perf shows it (its own, else its process's). */
static const char *comm_of(struct folded_writer *w, uint32_t pid, uint32_t tid)
{
	const struct folded_comm *c = idmap_find(&w->names, tid);

	if (!c || !c->comm[0])
		c = idmap_find(&w->comms, pid);
	return c ? c->comm : "";
}

/* What a row weighs; exit rows weigh only CPU time and counts. */
static double row_weight(const struct folded_writer *w, const struct row *row)
{
	uint64_t count = 0;
	double value = 0;

	switch (w->kind) {
	case WEIGHT_SAMPLES:
		return row->exit ? 0 : 1;
	case WEIGHT_CPU:
		return (double)row->cpu_delta_ns;
	case WEIGHT_WALL:
		return (double)row->wall_delta_ns;
	case WEIGHT_ENERGY:
		value = rows_energy(&w->rows, row, w->channel) * 1e6;	/* uJ */
		return isnan(value) ? 0 : value;
	case WEIGHT_COUNTER:
		if (rows_cell(&w->rows, row, w->channel, &count, &value) != ROW_CELL_COUNT)
			return 0;
		return (double)count;
	}
	return 0;
}

/* One row: its weight on the line of its stack.  An exit row (CPU time
 * and counts after the thread's last sample) goes to its last stack; a
 * thread never sampled has none. */
static int add_row(void *arg, const struct row *row, struct error *err)
{
	struct folded_writer *w = arg;
	double weight = row_weight(w, row);
	uint32_t n;

	if (!(weight > 0) || (row->exit && !row->pc))
		return 0;
	n = profile_stack_frames(row->stacks, row->chain, w->frames, PROFILE_MAX_FRAMES);
	if (stack_text_build(&w->text, w->rows.symbols, comm_of(w, row->pid, row->tid), row->pid,
			     row->pc, w->frames, n, row->stack_end) < 0)
		return error_set(err, "out of memory for a call stack");
	return add_line(w, w->text.buf, weight, err);
}

static int on_process(struct folded_writer *w, const struct profile_process *p, struct error *err)
{
	const struct folded_comm *parent = idmap_find(&w->comms, p->ppid);
	struct folded_comm inherited = { "" }, *c;
	bool created;

	if (parent && p->ppid)	/* a fork child is its parent until exec */
		inherited = *parent;
	c = idmap_get(&w->comms, p->pid, &created);
	if (!c)
		return error_set(err, "out of memory for process %" PRIu32, p->pid);
	if (created || inherited.comm[0])
		*c = inherited;
	return 0;
}

static int on_exec(struct folded_writer *w, const struct profile_exec *e, struct error *err)
{
	bool created;
	struct folded_comm *c = idmap_get(&w->comms, e->pid, &created);

	if (!c)
		return error_set(err, "out of memory for process %" PRIu32, e->pid);
	snprintf(c->comm, sizeof(c->comm), "%s", e->comm);
	idmap_remove(&w->names, e->pid);	/* its name went with the old image */
	return 0;
}

static int on_name(struct folded_writer *w, const struct profile_name *n, struct error *err)
{
	bool created;
	struct folded_comm *c = idmap_get(&w->names, n->tid, &created);

	if (!c)
		return error_set(err, "out of memory for thread %" PRIu32, n->tid);
	snprintf(c->comm, sizeof(c->comm), "%s", n->name);
	return 0;
}

/* The names first (the rows are named by them), then the rows. */
static int folded_record(void *state, const struct profile_record *rec, struct error *err)
{
	struct folded_writer *w = state;
	int ret = 0;

	switch (rec->type) {
	case PROFILE_REC_PROCESS:
		ret = on_process(w, &rec->process, err);
		break;
	case PROFILE_REC_EXEC:
		ret = on_exec(w, &rec->exec, err);
		break;
	case PROFILE_REC_NAME:
		ret = on_name(w, &rec->name, err);
		break;
	default:
		break;
	}
	if (ret < 0 || rows_record(&w->rows, rec, add_row, w, err) < 0)
		return -1;
	if (rec->type == PROFILE_REC_EXIT)
		idmap_remove(&w->names, rec->exit.tid);	/* a later thread may reuse the tid */
	return 0;
}

/* ---- open and finish -------------------------------------------------- */

static void folded_free(struct folded_writer *w)
{
	for (size_t i = 0; i < w->cap; i++)
		free(w->lines[i].text);
	free(w->lines);
	stack_text_free(&w->text);
	idmap_free(&w->comms);
	idmap_free(&w->names);
	rows_free(&w->rows);
	free(w);
}

static void *folded_open(const struct profile_info *info, const struct export_options *opt,
			 struct error *err)
{
	struct folded_writer *w = calloc(1, sizeof(*w));
	struct export_options symbolized = *opt;	/* frames are always named */

	if (!w) {
		error_set(err, "out of memory for the folded writer");
		return NULL;
	}
	w->info = info;
	w->path = opt->output;
	w->force = opt->force;
	idmap_init(&w->comms, sizeof(struct folded_comm));
	idmap_init(&w->names, sizeof(struct folded_comm));
	symbolized.symbols = true;
	if (rows_init(&w->rows, info, &symbolized, err) < 0) {
		idmap_free(&w->comms);
		idmap_free(&w->names);
		free(w);
		return NULL;
	}
	if (parse_weight(w, opt->weight, err) < 0)
		goto fail;
	return w;
fail:
	folded_free(w);
	return NULL;
}

static int by_text(const void *a, const void *b)
{
	return strcmp(((const struct folded_line *)a)->text, ((const struct folded_line *)b)->text);
}

static int folded_finish(void *state, const struct export_result *result, struct error *err)
{
	struct folded_writer *w = state;
	size_t n = 0;
	FILE *f;
	int ret;

	(void)result;
	if (!err) {		/* the export failed: nothing to write */
		folded_free(w);
		return -1;
	}
	for (size_t i = 0; i < w->cap; i++)
		if (w->lines[i].text)
			w->lines[n++] = w->lines[i];
	for (size_t i = n; i < w->cap; i++)
		w->lines[i].text = NULL;
	if (n)
		qsort(w->lines, n, sizeof(*w->lines), by_text);
	f = textout_open(w->path, w->force, err);
	if (!f) {
		folded_free(w);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		double v = round(w->lines[i].weight);

		if (v >= 1)
			fprintf(f, "%s %.0f\n", w->lines[i].text, v);
	}
	ret = textout_close(f, w->path, err);
	folded_free(w);
	return ret;
}

const struct exporter folded_exporter = {
	.name = "folded",
	.open = folded_open,
	.record = folded_record,
	.finish = folded_finish,
};
