/* folded.c - call stacks in Brendan Gregg's collapsed form, one line per
 * distinct stack:  comm;outermost;...;leaf WEIGHT
 * which flamegraph.pl, inferno and speedscope read.  The weight of a
 * thread-sample is chosen with --weight (docs/EXPORT.md): samples, cpu
 * (ns), wall (ns), energy[:CHANNEL] (uJ, attributed by the one rule of
 * attribution.h) or a per-thread counter's delta.  Lines are summed per
 * distinct text in a hash table (memory grows with the distinct stacks,
 * not with the samples) and written sorted at the end.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attribution.h"
#include "export.h"
#include "../common/idmap.h"
#include "stackfmt.h"
#include "symbols.h"
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
	uint32_t slot;			/* sample channel (energy) or thread channel */
	double to_unit;			/* energy channel value -> uJ */
	struct symbolizer *symbols;
	struct idmap comms;		/* pid -> folded_comm: the process's name */
	struct idmap names;		/* tid -> folded_comm: the thread's, once known */
	uint64_t prev_ns;
	bool have_prev;
	double *shares;
	uint32_t shares_cap;
	uint64_t frames[PROFILE_MAX_FRAMES];
	struct stack_text text;
	struct folded_line *lines;	/* open addressing on the text */
	size_t nlines, cap;
};

/* ---- the weight ------------------------------------------------------- */

static int find_channel(const struct profile_info *info, const char *name, enum channel_scope scope,
			bool energy_only, uint32_t *slot)
{
	const uint32_t *index = scope == CHANNEL_PER_SAMPLE ? info->sample_channel : info->thread_channel;
	uint32_t n = scope == CHANNEL_PER_SAMPLE ? info->nsample_channels : info->nthread_channels;

	for (uint32_t k = 0; k < n; k++) {
		const struct channel_desc *c = &info->channels[index[k]];

		if (energy_only && c->kind != CHANNEL_ENERGY)
			continue;
		if (!name || strcmp(c->name, name) == 0) {
			*slot = k;
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
		const struct channel_desc *c;

		if (find_channel(info, name, CHANNEL_PER_SAMPLE, true, &w->slot) < 0)
			return error_set(err, "--weight %s: the profile has no %s%s energy channel (record with an energy plug-in such as -p rapl; --info lists the channels)",
					 spec, name ? "'" : "", name ? name : "");
		c = &info->channels[info->sample_channel[w->slot]];
		w->kind = WEIGHT_ENERGY;
		w->to_unit = (c->scale > 0 && isfinite(c->scale) ? c->scale : 1e-6) * 1e6;
	} else if (find_channel(info, spec, CHANNEL_PER_THREAD, false, &w->slot) == 0) {
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

static int add_stack(struct folded_writer *w, const struct stack_tree *stacks, uint32_t pid,
		     uint32_t tid, uint64_t pc, uint32_t chain, double weight, struct error *err)
{
	uint32_t n = profile_stack_frames(stacks, chain, w->frames, PROFILE_MAX_FRAMES);

	if (!(weight > 0))
		return 0;
	if (stack_text_build(&w->text, w->symbols, comm_of(w, pid, tid), pid, pc, w->frames, n) < 0)
		return error_set(err, "out of memory for a call stack");
	return add_line(w, w->text.buf, weight, err);
}

static int ensure_shares(struct folded_writer *w, uint32_t n, struct error *err)
{
	double *shares;

	if (n <= w->shares_cap)
		return 0;
	shares = realloc(w->shares, n * sizeof(*shares));
	if (!shares)
		return error_set(err, "out of memory for a sample of %u threads", n);
	w->shares = shares;
	w->shares_cap = n;
	return 0;
}

static double thread_weight(const struct folded_writer *w, const struct profile_thread_sample *t,
			    uint32_t i, uint64_t wall)
{
	switch (w->kind) {
	case WEIGHT_SAMPLES:
		return 1;
	case WEIGHT_CPU:
		return (double)t->cpu_delta_ns;
	case WEIGHT_WALL:
		return (double)wall;
	case WEIGHT_ENERGY:
		return w->shares[i] * w->to_unit;
	case WEIGHT_COUNTER:
		return (double)t->counter_deltas[w->slot];
	}
	return 0;
}

static int on_sample(struct folded_writer *w, const struct stack_tree *stacks,
		     const struct profile_sample *s, struct error *err)
{
	uint64_t start = w->info->host.start_ns;
	uint64_t wall = w->have_prev ? s->time_ns - w->prev_ns :
			s->time_ns > start ? s->time_ns - start : 0;

	w->prev_ns = s->time_ns;
	w->have_prev = true;
	if (w->kind == WEIGHT_ENERGY) {
		if (ensure_shares(w, s->nthreads, err) < 0)
			return -1;
		attribute_energy(s, s->values[w->slot], w->shares);
	}
	for (uint32_t i = 0; i < s->nthreads; i++) {
		const struct profile_thread_sample *t = &s->threads[i];

		if (add_stack(w, stacks, t->pid, t->tid, t->pc, t->chain, thread_weight(w, t, i, wall),
			      err) < 0)
			return -1;
	}
	return 0;
}

/* CPU time and counts after a thread's last sample, at its last stack. */
static int on_exit_tail(struct folded_writer *w, const struct stack_tree *stacks,
			const struct profile_exit *e, struct error *err)
{
	double weight = w->kind == WEIGHT_CPU ? (double)e->cpu_delta_ns :
			w->kind == WEIGHT_COUNTER ? (double)e->counter_deltas[w->slot] : 0;
	int ret = 0;

	if (e->final && e->last_pc)
		ret = add_stack(w, stacks, e->pid, e->tid, e->last_pc, e->last_chain, weight, err);
	idmap_remove(&w->names, e->tid);	/* a later thread may reuse the tid */
	return ret;
}

static int on_process(struct folded_writer *w, const struct profile_process *p, struct error *err)
{
	const struct folded_comm *parent = idmap_find(&w->comms, p->ppid);
	struct folded_comm inherited = { "" }, *c;
	bool created;

	if (parent && p->ppid)	/* a fork child is its parent until exec */
		inherited = *parent;
	if (p->ppid && symbolizer_fork(w->symbols, p->pid, p->ppid) < 0)
		goto nomem;
	c = idmap_get(&w->comms, p->pid, &created);
	if (!c)
		goto nomem;
	if (created || inherited.comm[0])
		*c = inherited;
	return 0;
nomem:
	return error_set(err, "out of memory for process %" PRIu32, p->pid);
}

static int on_exec(struct folded_writer *w, const struct profile_exec *e, struct error *err)
{
	bool created;
	struct folded_comm *c = idmap_get(&w->comms, e->pid, &created);

	if (!c)
		return error_set(err, "out of memory for process %" PRIu32, e->pid);
	snprintf(c->comm, sizeof(c->comm), "%s", e->comm);
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

static int on_map(struct folded_writer *w, const struct profile_map *m, struct error *err)
{
	if (symbolizer_add_map(w->symbols, m) < 0)
		return error_set(err, "out of memory for the maps of process %" PRIu32, m->pid);
	return 0;
}

static int folded_record(void *state, const struct profile_record *rec, struct error *err)
{
	struct folded_writer *w = state;

	switch (rec->type) {
	case PROFILE_REC_SAMPLE:
		return on_sample(w, rec->stacks, &rec->sample, err);
	case PROFILE_REC_EXIT:
		return on_exit_tail(w, rec->stacks, &rec->exit, err);
	case PROFILE_REC_PROCESS:
		return on_process(w, &rec->process, err);
	case PROFILE_REC_EXEC:
		return on_exec(w, &rec->exec, err);
	case PROFILE_REC_NAME:
		return on_name(w, &rec->name, err);
	case PROFILE_REC_MAP:
		return on_map(w, &rec->map, err);
	default:
		return 0;
	}
}

/* ---- open and finish -------------------------------------------------- */

static void folded_free(struct folded_writer *w)
{
	for (size_t i = 0; i < w->cap; i++)
		free(w->lines[i].text);
	free(w->lines);
	free(w->shares);
	stack_text_free(&w->text);
	idmap_free(&w->comms);
	idmap_free(&w->names);
	symbolizer_free(w->symbols);
	free(w);
}

static void *folded_open(const struct profile_info *info, const struct export_options *opt,
			 struct error *err)
{
	struct folded_writer *w = calloc(1, sizeof(*w));

	if (!w) {
		error_set(err, "out of memory for the folded writer");
		return NULL;
	}
	w->info = info;
	w->path = opt->output;
	w->force = opt->force;
	idmap_init(&w->comms, sizeof(struct folded_comm));
	idmap_init(&w->names, sizeof(struct folded_comm));
	if (parse_weight(w, opt->weight, err) < 0)
		goto fail;
	if (!(w->symbols = symbolizer_new()) ||
	    symbolizer_set_cache(w->symbols, opt->symbol_cache) < 0) {
		error_set(err, "out of memory for the symbolizer");
		goto fail;
	}
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
