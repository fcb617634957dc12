/* speedscope.c - call stacks in speedscope's file format
 * (https://www.speedscope.app/file-format-schema.json): one "sampled"
 * profile per thread (the ranks of a merged job are told apart by their
 * names, "app[rank 2]"), its samples the thread's distinct stacks as
 * indices into one shared table of frames, outermost first, each weighed
 * by --weight as the folded output weighs it (weight.h; default cpu, in
 * nanoseconds).  The frames are named by the exporter's symbolizer as in
 * the folded output (stackfmt.h).  Stacks are summed per thread and
 * distinct stack (intern.h), so memory grows with the distinct stacks,
 * not with the samples; the file is written at the end, threads in the
 * order of their ids, the heaviest one the profile speedscope opens first.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/grow.h"
#include "export.h"
#include "../common/idmap.h"
#include "intern.h"
#include "rows.h"
#include "stackfmt.h"
#include "tasknames.h"
#include "textout.h"
#include "weight.h"

struct ss_stack {
	uint32_t tid;
	uint32_t n;			/* frames, outermost first */
	const uint32_t *frames;
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
	struct task_names names;	/* the threads' names as the rows come */
	struct idmap threads;		/* tid -> ss_thread: every thread with a stack */
	uint64_t callers[PROFILE_MAX_FRAMES];
	/* tid, [marker,] outermost ... pc, each frame with its inlined
	 * functions: a key of stacks */
	uint32_t ids[2 + (PROFILE_MAX_FRAMES + 1) * (1 + INLINE_MAX_DEPTH)];
	struct intern frames;		/* the shared frame table: names */
	struct intern stacks;		/* (tid, frames) */
	double *weights;		/* [stack] */
	size_t weights_cap;
};

static int64_t frame_index(struct speedscope_writer *w, const char *name)
{
	return intern_string(&w->frames, name, NULL);
}

/* Add weight to the stack of w->ids[0, n): the tid, then the frames. */
static int add_stack(struct speedscope_writer *w, uint32_t n, double weight)
{
	bool created;
	int64_t i = intern_index(&w->stacks, w->ids, n * sizeof(*w->ids), &created);

	if (i < 0 || GROW_ARRAY(w->weights, w->weights_cap, (size_t)i + 1) < 0)
		return -1;
	w->weights[i] = (created ? 0 : w->weights[i]) + weight;
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
	char buf[PROFILE_PATH_MAX + 2], marker_buf[STACK_MARKER_MAX];
	const char *marker = stack_end_marker(row->stack_end, marker_buf);
	struct ss_thread *t;
	uint32_t n, m = 1;
	bool created;

	if (!(weight > 0) || (row->exit && !row->pc))
		return 0;
	/* a stack cut short starts with its marker frame, as in folded */
	if (marker) {
		int64_t id = frame_index(w, marker);

		if (id < 0)
			goto nomem;
		w->ids[m++] = (uint32_t)id;
	}
	n = profile_stack_frames(row->stacks, row->chain, w->callers, PROFILE_MAX_FRAMES);
	for (uint32_t i = 0; i <= n; i++) {
		uint64_t addr = i < n ? w->callers[n - 1 - i] : row->pc;
		const char *inlined[INLINE_MAX_DEPTH];
		size_t k = symbolizer_inlines(w->rows.symbols, row->pid, addr, i < n, inlined);
		int64_t id = frame_index(w, stack_frame_name(w->rows.symbols, row->pid, addr, buf,
							     sizeof(buf)));

		if (id < 0)
			goto nomem;
		w->ids[m++] = (uint32_t)id;
		for (size_t j = 0; j < k; j++) {
			if ((id = frame_index(w, inlined[j])) < 0)
				goto nomem;
			w->ids[m++] = (uint32_t)id;
		}
	}
	w->ids[0] = row->tid;
	t = idmap_get(&w->threads, row->tid, &created);
	if (!t || add_stack(w, m, weight) < 0)
		goto nomem;
	t->pid = row->pid;
	t->weight += weight;
	snprintf(t->name, sizeof(t->name), "%s", task_names_comm(&w->names, row->pid, row->tid));
	return 0;
nomem:
	return error_set(err, "out of memory for %zu distinct stacks of %zu frames",
			 intern_count(&w->stacks), intern_count(&w->frames));
}

/* The names first (the rows are named by them), then the rows. */
static int speedscope_record(void *state, const struct profile_record *rec, struct error *err)
{
	struct speedscope_writer *w = state;

	if (task_names_record(&w->names, rec, err) < 0 ||
	    rows_record(&w->rows, rec, add_row, w, err) < 0)
		return -1;
	task_names_exit(&w->names, rec);
	return 0;
}

/* ---- open and finish -------------------------------------------------- */

static void speedscope_free(struct speedscope_writer *w)
{
	intern_free(&w->stacks);
	intern_free(&w->frames);
	free(w->weights);
	task_names_free(&w->names);
	idmap_free(&w->threads);
	rows_free(&w->rows);
	free(w);
}

static void *speedscope_open(const struct profile_info *info, const struct export_options *opt,
			     struct error *err)
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
	if (rows_init(&w->rows, info, &symbolized, err) < 0) {
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

/* A JSON string: quotes, backslashes and control characters escaped. */
static void put_string(FILE *f, const char *s)
{
	putc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			fprintf(f, "\\u%04x", c);
		else
			putc(c, f);
	}
	putc('"', f);
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
	put_string(f, name);
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
	size_t n = intern_count(&w->stacks), profiles = 0, active = 0;
	struct ss_stack *stacks;
	double heaviest = -1;
	char title[PROFILE_COMM_MAX + 64];
	FILE *f;
	int ret;

	(void)result;
	if (!err) {		/* the export failed: nothing to write */
		speedscope_free(w);
		return -1;
	}
	stacks = calloc(n + 1, sizeof(*stacks));
	if (!stacks) {
		error_set(err, "out of memory for %zu distinct stacks", n);
		speedscope_free(w);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		size_t len;
		const uint32_t *key = intern_key(&w->stacks, i, &len);

		stacks[i] = (struct ss_stack){ key[0], len / sizeof(*key) - 1, key + 1, w->weights[i] };
	}
	if (n)
		qsort(stacks, n, sizeof(*stacks), by_thread_and_frames);
	for (size_t i = 0; i < n; i++) {
		const struct ss_thread *t = idmap_find(&w->threads, stacks[i].tid);

		if (i && stacks[i].tid == stacks[i - 1].tid)
			continue;
		if (t && t->weight > heaviest) {
			heaviest = t->weight;
			active = profiles;
		}
		profiles++;
	}
	f = textout_open(w->path, w->force, err);
	if (!f) {
		free(stacks);
		speedscope_free(w);
		return -1;
	}
	snprintf(title, sizeof(title), "%s (%s)", kind_names[w->weight.kind], w->weight.unit);
	fputs("{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\","
	      "\"exporter\":\"" EXPORT_PROG " " SAMPLER_VERSION "\",\"name\":", f);
	put_string(f, title);
	fprintf(f, ",\"activeProfileIndex\":%zu,\"shared\":{\"frames\":[", active);
	for (size_t i = 0; i < intern_count(&w->frames); i++) {
		fputs(i ? ",\n{\"name\":" : "\n{\"name\":", f);
		put_string(f, intern_key(&w->frames, i, NULL));
		putc('}', f);
	}
	fputs("]},\n\"profiles\":[", f);
	for (size_t i = 0, first = 0; i < n; i++) {
		if (i + 1 < n && stacks[i + 1].tid == stacks[i].tid)
			continue;
		fputs(first ? ",\n" : "\n", f);	/* first: this profile's first stack */
		put_profile(w, f, &stacks[first], i + 1 - first);
		first = i + 1;
	}
	fputs("]}\n", f);
	ret = textout_close(f, w->path, err);
	free(stacks);
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
