/* speedscope.c - call stacks in speedscope's file format
 * (https://www.speedscope.app/file-format-schema.json): one "sampled"
 * profile per thread (the ranks of a merged job are told apart by their
 * names, "app[rank 2]"), its samples the thread's distinct stacks as
 * indices into one shared table of frames, outermost first, each weighed
 * by --weight as the folded output weighs it (weight.h; default cpu, in
 * nanoseconds).  The frames are named by the exporter's symbolizer as in
 * the folded output (stackfmt.h).  Stacks are summed per thread and
 * distinct stack in a hash table, so memory grows with the distinct stacks,
 * not with the samples; the file is written at the end, threads in the
 * order of their ids, the heaviest one the profile speedscope opens first.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "../common/hash.h"
#include "framenames.h"
#include "../common/idmap.h"
#include "../common/json.h"
#include "rows.h"
#include "tasknames.h"
#include "textout.h"
#include "weight.h"

struct ss_stack {
	uint32_t tid;
	uint32_t n;			/* frames, outermost first */
	uint32_t *frames;		/* NULL: an empty slot */
	double weight;
};

struct ss_thread {
	char name[PROFILE_COMM_MAX];	/* the thread's, else its process's */
	uint32_t pid;
	double weight;
};

struct speedscope_writer {
	const char *path;
	bool force;
	struct weight weight;
	struct rows rows;		/* the rows, with a symbolizer */
	struct task_names names;	/* the threads' names */
	struct idmap threads;		/* tid -> ss_thread: every thread with a stack */
	uint32_t ids[FRAME_NAMES_MAX_STACK];	/* a row's stack */
	struct frame_names frames;	/* the shared frame table */
	struct ss_stack *stacks;	/* open addressing on (tid, frames) */
	size_t nstacks, stacks_cap;
};

/* ---- the stacks ------------------------------------------------------- */

static uint64_t stack_hash(uint32_t tid, const uint32_t *ids, uint32_t n)
{
	return hash_bytes(hash_bytes(HASH_SEED, &tid, sizeof(tid)), ids,
				n * sizeof(*ids));
}

static int grow_stacks(struct speedscope_writer *w)
{
	size_t cap = w->stacks_cap ? w->stacks_cap * 2 : 1024;
	struct ss_stack *stacks = calloc(cap, sizeof(*stacks));

	if (!stacks)
		return -1;
	for (size_t i = 0; i < w->stacks_cap; i++) {
		const struct ss_stack *s = &w->stacks[i];
		size_t j;

		if (!s->frames)
			continue;
		for (j = stack_hash(s->tid, s->frames, s->n) & (cap - 1); stacks[j].frames;
		     j = (j + 1) & (cap - 1))
			;
		stacks[j] = *s;
	}
	free(w->stacks);
	w->stacks = stacks;
	w->stacks_cap = cap;
	return 0;
}

static int add_stack(struct speedscope_writer *w, uint32_t tid, uint32_t n, double weight)
{
	struct ss_stack *s;
	size_t i;

	if ((w->nstacks + 1) * 2 > w->stacks_cap && grow_stacks(w) < 0)
		return -1;
	for (i = stack_hash(tid, w->ids, n) & (w->stacks_cap - 1); w->stacks[i].frames;
	     i = (i + 1) & (w->stacks_cap - 1)) {
		s = &w->stacks[i];
		if (s->tid == tid && s->n == n && memcmp(s->frames, w->ids, n * sizeof(*w->ids)) == 0) {
			s->weight += weight;
			return 0;
		}
	}
	s = &w->stacks[i];
	s->frames = malloc(n * sizeof(*s->frames));
	if (!s->frames)
		return -1;
	memcpy(s->frames, w->ids, n * sizeof(*s->frames));
	s->tid = tid;
	s->n = n;
	s->weight = weight;
	w->nstacks++;
	return 0;
}

/* ---- records ---------------------------------------------------------- */

/* One row: its weight on its thread's stack, outermost frame first.  An
 * exit row (CPU time and counts after the thread's last sample) goes to
 * its last stack; a thread never sampled has none. */
static int add_row(void *arg, const struct row *row, struct error *err)
{
	struct speedscope_writer *w = arg;
	double weight = weight_of_row(&w->weight, &w->rows, row);
	struct ss_thread *t;
	int64_t m;
	bool created;

	if (!(weight > 0) || (row->exit && !row->pc))
		return 0;
	m = frame_names_of_row(&w->frames, &w->rows, row, w->ids);
	if (m < 0)
		goto nomem;
	t = idmap_get(&w->threads, row->tid, &created);
	if (!t || add_stack(w, row->tid, (uint32_t)m, weight) < 0)
		goto nomem;
	t->pid = row->pid;
	t->weight += weight;
	snprintf(t->name, sizeof(t->name), "%s", task_names_of(&w->names, row->pid, row->tid));
	return 0;
nomem:
	return error_set(err, "out of memory for %zu distinct stacks of %zu frames", w->nstacks,
			 frame_names_count(&w->frames));
}

/* The names first (the rows are named by them), then the rows. */
static int speedscope_record(void *state, const struct profile_record *rec, struct error *err)
{
	struct speedscope_writer *w = state;

	if (task_names_record(&w->names, rec, err) < 0 ||
	    rows_record(&w->rows, rec, add_row, w, err) < 0)
		return -1;
	task_names_done(&w->names, rec);
	return 0;
}

/* ---- open and finish -------------------------------------------------- */

static void speedscope_free(struct speedscope_writer *w)
{
	for (size_t i = 0; i < w->stacks_cap; i++)
		free(w->stacks[i].frames);
	free(w->stacks);
	frame_names_free(&w->frames);
	task_names_free(&w->names);
	idmap_free(&w->threads);
	rows_free(&w->rows);
	free(w);
}

static void *speedscope_open(const struct profile_info *info, const struct export_options *opt,
			     struct energy_source *energy, struct error *err)
{
	struct speedscope_writer *w = calloc(1, sizeof(*w));
	struct export_options symbolized = *opt;	/* frames are always named */

	if (!w) {
		error_set(err, "out of memory for the speedscope writer");
		return NULL;
	}
	w->path = opt->output;
	w->force = opt->force;
	task_names_init(&w->names);
	idmap_init(&w->threads, sizeof(struct ss_thread));
	symbolized.symbols = true;
	if (rows_init(&w->rows, info, &symbolized, energy, err) < 0) {
		task_names_free(&w->names);
		idmap_free(&w->threads);
		free(w);
		return NULL;
	}
	if (weight_parse(&w->weight, info, opt->weight, "cpu", err) < 0) {
		speedscope_free(w);
		return NULL;
	}
	return w;
}

static int by_thread_and_frames(const void *a, const void *b)
{
	const struct ss_stack *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	for (uint32_t i = 0; i < x->n && i < y->n; i++)
		if (x->frames[i] != y->frames[i])
			return x->frames[i] < y->frames[i] ? -1 : 1;
	return (x->n > y->n) - (x->n < y->n);
}

static const char *const kind_names[] = {
	[WEIGHT_SAMPLES] = "thread-samples",
	[WEIGHT_CPU] = "cpu",
	[WEIGHT_WALL] = "wall",
	[WEIGHT_ENERGY] = "energy",
	[WEIGHT_COUNTER] = "counter",
};

/* speedscope's units: time in nanoseconds, anything else unitless. */
static const char *unit_of(const struct weight *w)
{
	return w->kind == WEIGHT_CPU || w->kind == WEIGHT_WALL ? "nanoseconds" : "none";
}

static void put_profile(struct speedscope_writer *w, FILE *f, const struct ss_stack *s, size_t n)
{
	const struct ss_thread *t = idmap_find(&w->threads, s->tid);
	char name[PROFILE_COMM_MAX + 64];
	double total = 0;

	snprintf(name, sizeof(name), "%s (tid %" PRIu32 ")", t && t->name[0] ? t->name : "?",
		 s->tid);
	for (size_t i = 0; i < n; i++)
		total += s[i].weight;
	fputs("{\"type\":\"sampled\",\"name\":", f);
	json_put_string(f, name);
	fprintf(f, ",\"unit\":\"%s\",\"startValue\":0,\"endValue\":%.15g,\"samples\":[",
		unit_of(&w->weight), total);
	for (size_t i = 0; i < n; i++) {
		fputs(i ? ",[" : "[", f);
		for (uint32_t j = 0; j < s[i].n; j++)
			fprintf(f, j ? ",%" PRIu32 : "%" PRIu32, s[i].frames[j]);
		putc(']', f);
	}
	fputs("],\"weights\":[", f);
	for (size_t i = 0; i < n; i++)
		fprintf(f, i ? ",%.15g" : "%.15g", s[i].weight);
	fputs("]}", f);
}

static int speedscope_finish(void *state, const struct export_result *result, struct error *err)
{
	struct speedscope_writer *w = state;
	size_t n = 0, profiles = 0, active = 0;
	double heaviest = -1;
	char title[PROFILE_COMM_MAX + 64];
	FILE *f;
	int ret;

	(void)result;
	if (!err) {		/* the export failed: nothing to write */
		speedscope_free(w);
		return -1;
	}
	for (size_t i = 0; i < w->stacks_cap; i++)
		if (w->stacks[i].frames)
			w->stacks[n++] = w->stacks[i];
	for (size_t i = n; i < w->stacks_cap; i++)
		w->stacks[i].frames = NULL;
	if (n)
		qsort(w->stacks, n, sizeof(*w->stacks), by_thread_and_frames);
	for (size_t i = 0; i < n; i++) {
		const struct ss_thread *t = idmap_find(&w->threads, w->stacks[i].tid);

		if (i && w->stacks[i].tid == w->stacks[i - 1].tid)
			continue;
		if (t && t->weight > heaviest) {
			heaviest = t->weight;
			active = profiles;
		}
		profiles++;
	}
	f = textout_open(w->path, w->force, err);
	if (!f) {
		speedscope_free(w);
		return -1;
	}
	snprintf(title, sizeof(title), "%s (%s)", kind_names[w->weight.kind], w->weight.unit);
	fputs("{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\","
	      "\"exporter\":\"" EXPORT_PROG " " SAMPLER_VERSION "\",\"name\":", f);
	json_put_string(f, title);
	fprintf(f, ",\"activeProfileIndex\":%zu,\"shared\":{\"frames\":[", active);
	for (size_t i = 0; i < frame_names_count(&w->frames); i++) {
		fputs(i ? ",\n{\"name\":" : "\n{\"name\":", f);
		json_put_string(f, frame_names_name(&w->frames, i));
		putc('}', f);
	}
	fputs("]},\n\"profiles\":[", f);
	for (size_t i = 0, first = 0; i < n; i++) {
		if (i + 1 < n && w->stacks[i + 1].tid == w->stacks[i].tid)
			continue;
		fputs(first ? ",\n" : "\n", f);	/* first: this profile's first stack */
		put_profile(w, f, &w->stacks[first], i + 1 - first);
		first = i + 1;
	}
	fputs("]}\n", f);
	ret = textout_close(f, w->path, err);
	speedscope_free(w);
	return ret;
}

const struct exporter speedscope_exporter = {
	.name = "speedscope",
	.reads_input_twice = true,	/* the energy estimate (attribution.h) */
	.open = speedscope_open,
	.record = speedscope_record,
	.finish = speedscope_finish,
};
