/* rows.c - the rows CSV and the scripts' columns share (rows.h). */
#include "rows.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../common/grow.h"
#include "../energy/attribution.h"
#include "../common/grow.h"
#include "../common/idmap.h"
#include "../profile/textform.h"

struct row_process {
	uint32_t ppid;
	uint32_t order;			/* first appearance */
	char comm[PROFILE_COMM_MAX];
	char *argv;
};

/* A thread's last name (pthread_setname_np, prctl): its row names it when
 * it differs from its process's. */
struct row_thread {
	uint32_t pid;
	uint32_t order;			/* first appearance */
	char comm[PROFILE_COMM_MAX];
};

static void tasks_init(struct row_tasks *t)
{
	idmap_init(&t->procs, sizeof(struct row_process));
	idmap_init(&t->threads, sizeof(struct row_thread));
}

static void tasks_free(struct row_tasks *t)
{
	struct row_process *p;
	size_t pos = 0;

	while ((p = idmap_next(&t->procs, &pos, NULL)))
		free(p->argv);
	idmap_free(&t->procs);
	idmap_free(&t->threads);
}

static int collect_name(struct idmap *threads, const struct profile_name *n)
{
	struct row_thread *t;
	bool created;

	t = idmap_get(threads, n->tid, &created);
	if (!t)
		return -1;
	if (created)
		t->order = idmap_count(threads);
	t->pid = n->pid;
	snprintf(t->comm, sizeof(t->comm), "%s", n->name);
	return 0;
}

/* A process, exec or name record into the task names; -1: out of memory. */
static int collect_task(struct row_tasks *tasks, const struct profile_record *rec)
{
	struct idmap *procs = &tasks->procs;
	struct row_process *p;
	uint32_t pid;
	bool created;

	if (rec->type == PROFILE_REC_NAME)
		return collect_name(&tasks->threads, &rec->name);
	if (rec->type != PROFILE_REC_PROCESS && rec->type != PROFILE_REC_EXEC)
		return 0;
	pid = rec->type == PROFILE_REC_PROCESS ? rec->process.pid : rec->exec.pid;
	p = idmap_get(procs, pid, &created);
	if (!p)
		return -1;
	if (created)
		p->order = idmap_count(procs);
	if (rec->type == PROFILE_REC_PROCESS) {
		const struct row_process *parent = idmap_find(procs, rec->process.ppid);

		p->ppid = rec->process.ppid;
		if (parent && !p->comm[0])	/* a fork child is its parent until exec */
			memcpy(p->comm, parent->comm, sizeof(p->comm));
		if (parent && !p->argv && parent->argv)
			p->argv = strdup(parent->argv);
		return 0;
	}
	snprintf(p->comm, sizeof(p->comm), "%s", rec->exec.comm);
	free(p->argv);
	p->argv = strdup(rec->exec.argv);
	return p->argv ? 0 : -1;
}

/* First pass: every process with its last comm and argv, every thread
 * with its last name.  A read error only ends the pass early; the second
 * pass reports it. */
static int collect_tasks(const char *input, struct row_tasks *tasks, struct error *err)
{
	struct profile_record rec;
	struct profile_reader *r = profile_reader_open(input, err);

	if (!r)
		return -1;
	while (profile_read_next(r, &rec, NULL) > 0) {
		if (collect_task(tasks, &rec) < 0) {
			profile_reader_close(r);
			return error_set(err, "out of memory for the process list");
		}
	}
	profile_reader_close(r);
	return 0;
}

/* The processes in the order they appeared. */
static int write_processes(FILE *f, const struct idmap *procs, struct error *err)
{
	const struct row_process **order = calloc(idmap_count(procs) + 1, sizeof(*order));
	uint32_t *pids = calloc(idmap_count(procs) + 1, sizeof(*pids));
	const struct row_process *p;
	size_t pos = 0;
	uint32_t pid;

	if (!order || !pids) {
		free(order);
		free(pids);
		return error_set(err, "out of memory for %zu processes", idmap_count(procs));
	}
	while ((p = idmap_next(procs, &pos, &pid))) {
		order[p->order - 1] = p;
		pids[p->order - 1] = pid;
	}
	for (size_t i = 0; i < idmap_count(procs); i++) {
		fprintf(f, "# process pid=%" PRIu32 " ppid=%" PRIu32 " comm=", pids[i],
			order[i]->ppid);
		textform_escaped(f, order[i]->comm);
		fputs(" argv=", f);
		textform_escaped(f, order[i]->argv ? order[i]->argv : "");
		putc('\n', f);
	}
	free(order);
	free(pids);
	return 0;
}

/* The threads whose last name is not their process's, in the order they
 * appeared. */
static int write_threads(FILE *f, const struct row_tasks *tasks, struct error *err)
{
	size_t n = idmap_count(&tasks->threads), pos = 0;
	const struct row_thread **order = calloc(n + 1, sizeof(*order));
	uint32_t *tids = calloc(n + 1, sizeof(*tids));
	const struct row_thread *t;
	uint32_t tid;

	if (!order || !tids) {
		free(order);
		free(tids);
		return error_set(err, "out of memory for %zu thread names", n);
	}
	while ((t = idmap_next(&tasks->threads, &pos, &tid))) {
		order[t->order - 1] = t;
		tids[t->order - 1] = tid;
	}
	for (size_t i = 0; i < n; i++) {
		const struct row_process *p = idmap_find(&tasks->procs, order[i]->pid);

		if (p && strcmp(p->comm, order[i]->comm) == 0)
			continue;
		fprintf(f, "# thread pid=%" PRIu32 " tid=%" PRIu32 " comm=", order[i]->pid, tids[i]);
		textform_escaped(f, order[i]->comm);
		putc('\n', f);
	}
	free(order);
	free(tids);
	return 0;
}

static int write_tasks(FILE *f, const struct row_tasks *tasks, struct error *err)
{
	if (write_processes(f, &tasks->procs, err) < 0)
		return -1;
	return write_threads(f, tasks, err);
}

int rows_write_head(FILE *f, const struct profile_info *info, const char *input,
		    struct error *err)
{
	struct row_tasks tasks;
	int ret = 0;

	fputs("# host", f);
	textform_host_fields(f, &info->host);
	putc('\n', f);
	for (uint32_t i = 0; i < info->nchannels && i < PROFILE_MAX_CHANNELS; i++) {
		fprintf(f, "# channel index=%" PRIu32, i);
		textform_channel_fields(f, &info->channels[i]);
		putc('\n', f);
	}
	if (!input)
		return 0;
	tasks_init(&tasks);
	ret = collect_tasks(input, &tasks, err);
	if (ret == 0)
		ret = write_tasks(f, &tasks, err);
	tasks_free(&tasks);
	return ret;
}

int rows_write_processes(FILE *f, const struct rows *r, struct error *err)
{
	return write_tasks(f, &r->tasks, err);
}

bool rows_power_energy(const struct rows *r, const struct row *row, uint32_t ch, double *value)
{
	const struct profile_info *info = r->info;
	uint32_t ks = 0;

	if (row->exit || row->clock || info->channels[ch].kind != CHANNEL_POWER ||
	    info->channels[ch].scope != CHANNEL_PER_SAMPLE)
		return false;
	for (uint32_t i = 0; i < ch; i++)
		if (info->channels[i].scope == CHANNEL_PER_SAMPLE)
			ks++;
	if (isnan(row->sample->values[ks]))
		return false;
	*value = r->shares[ks * row->sample->nthreads + row->thread];
	return true;
}

void rows_write_meters(FILE *f, const struct rows *r, bool power_energy)
{
	const struct profile_info *info = r->info;

	for (uint32_t k = 0; k < info->nsample_channels; k++) {
		const struct meter_model *m = energy_source_meter(r->energy, k);
		enum channel_kind kind = info->channels[info->sample_channel[k]].kind;

		if (!m || (kind != CHANNEL_ENERGY && kind != CHANNEL_POWER))
			continue;
		fprintf(f, "# meter index=%" PRIu32 " rule=trapezoid update_ms=%.4g measured=%d"
			" delay_ms=%.4g delay_measured=%d intervals=%" PRIu64 " no_update=%" PRIu64
			" cells=%s missed=%.4g long=%" PRIu64 " long_ms=%.4g longest_ms=%.4g"
			" node_profiles=%" PRIu32 " placed=%.4g ran=%.4g\n",
			info->sample_channel[k], m->update_s * 1e3, m->update_measured,
			m->delay_s * 1e3, m->delay_measured, m->intervals, m->no_update,
			kind == CHANNEL_ENERGY || power_energy ? "energy" : "reading", m->missed,
			m->long_intervals, m->long_middle_s * 1e3, m->longest_s * 1e3,
			m->node_profiles, m->placed, m->ran);
	}
}

void rows_write_stats(FILE *f, const struct rows *r)
{
	if (!r->have_stats)
		return;
	fputs("# stats", f);
	textform_stats_fields(f, &r->stats);
	putc('\n', f);
}

int rows_init(struct rows *r, const struct profile_info *info, const struct export_options *opt,
	      struct energy_source *energy, struct error *err)
{
	memset(r, 0, sizeof(*r));
	r->info = info;
	r->energy = energy;
	tasks_init(&r->tasks);
	if (opt->symbols && (!(r->symbols = symbolizer_new(export_prog(opt))) ||
			     symbolizer_set_cache(r->symbols, opt->symbol_cache) < 0)) {
		rows_free(r);
		return error_set(err, "out of memory for the symbolizer");
	}
	if (r->symbols) {
		symbolizer_set_demangle(r->symbols, !opt->no_demangle);
		symbolizer_set_inlines(r->symbols, !opt->no_inline);
		symbolizer_set_clock(r->symbols, info->host.realtime_ns, info->host.monotonic_ns);
		symbolizer_set_jit_maps(r->symbols, !opt->ids_without_pids);
	}
	if (energy_source_prepare(energy, err) < 0) {
		rows_free(r);
		return -1;
	}
	return 0;
}

void rows_free(struct rows *r)
{
	symbolizer_free(r->symbols);
	free(r->shares);
	tasks_free(&r->tasks);
	memset(r, 0, sizeof(*r));
}

/* Each per-sample energy channel's share for each thread, by the one rule;
 * a power channel's too, of its reading times the wall interval (the
 * energy of the interval, rows_energy). */
static int attribute_sample(struct rows *r, const struct profile_sample *s, uint64_t wall_ns,
			    struct error *err)
{
	const struct profile_info *info = r->info;
	uint32_t need = s->nthreads * info->nsample_channels;
	size_t index = r->sample_index++;

	if (!need)
		return 0;	/* no thread to share a reading among */
	if (GROW_ARRAY(r->shares, r->shares_cap, need) < 0)
		return error_set(err, "out of memory for a sample of %u threads", s->nthreads);
	for (uint32_t k = 0; k < info->nsample_channels; k++) {
		enum channel_kind kind = info->channels[info->sample_channel[k]].kind;
		double *shares = r->shares + k * s->nthreads;

		if (kind == CHANNEL_ENERGY || kind == CHANNEL_POWER)
			energy_source_sample(r->energy, index, s, wall_ns, k, shares);
	}
	return 0;
}

/* The cpu rows of a thread-sample's clock samples, after its own row. */
static int clock_rows(struct rows *r, const struct row *sample_row,
		      const struct profile_thread_sample *t, row_fn emit, void *arg,
		      struct error *err)
{
	struct row row = *sample_row;

	row.clock = true;
	row.wall_delta_ns = 0;
	for (uint32_t k = 0; k < t->nclock; k++) {
		const struct profile_clock_sample *c = &t->clock[k];

		row.pc = c->pc;
		row.cpu_delta_ns = c->cpu_ns;
		row.chain = c->chain;
		row.stack_end = r->info->stacks ? c->stack_end : PROFILE_STACK_COMPLETE;
		if (emit(arg, &row, err) < 0)
			return -1;
	}
	return 0;
}

static int sample_rows(struct rows *r, const struct stack_tree *stacks,
		       const struct profile_sample *s, row_fn emit, void *arg, struct error *err)
{
	uint64_t start = r->info->host.start_ns;
	struct row row = {
		.time_ns = (int64_t)(s->time_ns - start),
		.wall_delta_ns = s->time_ns - (r->have_prev ? r->prev_ns : start),
		.sample = s,
		.stacks = stacks,
	};

	if (s->time_ns < (r->have_prev ? r->prev_ns : start))
		row.wall_delta_ns = 0;
	r->prev_ns = s->time_ns;
	r->have_prev = true;
	if (attribute_sample(r, s, row.wall_delta_ns, err) < 0)
		return -1;
	for (uint32_t i = 0; i < s->nthreads; i++) {
		const struct profile_thread_sample *t = &s->threads[i];

		row.pid = t->pid;
		row.tid = t->tid;
		row.pc = t->pc;
		row.cpu_delta_ns = r->info->clock ? t->pc_cpu_ns : t->cpu_delta_ns;
		row.thread = i;
		row.chain = t->chain;
		/* (set by the reader in profiles with stacks only) */
		row.stack_end = r->info->stacks ? t->stack_end : PROFILE_STACK_COMPLETE;
		if (emit(arg, &row, err) < 0 || clock_rows(r, &row, t, emit, arg, err) < 0)
			return -1;
	}
	return 0;
}

/* The exit row: CPU time and counts since the last sample, at the last
 * sampled PC; no wall interval, no per-sample readings (energy 0). */
static int exit_row(struct rows *r, const struct stack_tree *stacks, const struct profile_exit *e,
		    row_fn emit, void *arg, struct error *err)
{
	struct row row = {
		.time_ns = (int64_t)(e->time_ns - r->info->host.start_ns),
		.pid = e->pid,
		.tid = e->tid,
		.exit = true,
		.pc = e->last_pc,
		.cpu_delta_ns = e->cpu_delta_ns,
		.exit_rec = e,
		.stacks = stacks,
		.chain = e->last_chain,
		.stack_end = r->info->stacks ? e->last_stack_end : PROFILE_STACK_COMPLETE,
	};

	if (e->final && emit(arg, &row, err) < 0)
		return -1;	/* (without final: gone before it could be read) */
	if (!e->owed.cpu_ns)
		return 0;
	row.exit = false;	/* what it owed its clock samples: a cpu row */
	row.clock = true;
	row.pc = e->owed.pc;
	row.cpu_delta_ns = e->owed.cpu_ns;
	row.chain = e->owed.chain;
	row.stack_end = r->info->stacks ? e->owed.stack_end : PROFILE_STACK_COMPLETE;
	return emit(arg, &row, err);
}

int rows_stack(struct rows *r, const struct row *row, struct stack_text *text,
	       struct error *err)
{
	uint32_t n = profile_stack_frames(row->stacks, row->chain, r->frames, PROFILE_MAX_FRAMES);

	if (stack_text_build(text, r->symbols, NULL, row->pid, row->pc, false, r->frames, n,
			     row->stack_end) < 0)
		return error_set(err, "out of memory for a call stack");
	return 0;
}

static int add_map(struct rows *r, const struct profile_map *m, struct error *err)
{
	if (!r->symbols)
		return 0;
	if (symbolizer_add_map(r->symbols, m) < 0)
		return error_set(err, "out of memory for the maps of process %" PRIu32, m->pid);
	return 0;
}

int rows_record(struct rows *r, const struct profile_record *rec, row_fn emit, void *arg,
		struct error *err)
{
	switch (rec->type) {
	case PROFILE_REC_SAMPLE:
		return sample_rows(r, rec->stacks, &rec->sample, emit, arg, err);
	case PROFILE_REC_EXIT:
		return exit_row(r, rec->stacks, &rec->exit, emit, arg, err);
	case PROFILE_REC_MAP:
		return add_map(r, &rec->map, err);
	case PROFILE_REC_EXEC:
	case PROFILE_REC_NAME:
		if (r->collect && collect_task(&r->tasks, rec) < 0)
			return error_set(err, "out of memory for the process list");
		return 0;
	case PROFILE_REC_PROCESS:
		if (r->collect && collect_task(&r->tasks, rec) < 0)
			return error_set(err, "out of memory for the process list");
		if (r->symbols && symbolizer_add_process(r->symbols, &rec->process) < 0)
			return error_set(err, "out of memory for the maps of process %" PRIu32,
					 rec->process.pid);
		return 0;
	case PROFILE_REC_WINDOW:
		/* A window's first sample covers no time outside it. */
		if (rec->window.enabled) {
			r->prev_ns = rec->window.time_ns;
			r->have_prev = true;
		}
		return 0;
	case PROFILE_REC_STATS:
		r->stats = rec->stats;
		r->have_stats = true;
		return 0;
	default:
		return 0;
	}
}

static enum row_cell exit_cell(const struct row *row, const struct channel_desc *ch, uint32_t kt,
			       uint64_t *count, double *value)
{
	if (ch->scope == CHANNEL_PER_THREAD) {
		*count = row->exit_rec->counter_deltas[kt];
		return ROW_CELL_COUNT;
	}
	if (ch->kind != CHANNEL_ENERGY)
		return ROW_CELL_EMPTY;
	*value = 0;
	return ROW_CELL_VALUE;
}

/* A cpu row: its counts and energy stay with its thread-sample's row. */
static enum row_cell clock_cell(const struct channel_desc *ch, uint64_t *count, double *value)
{
	if (ch->scope == CHANNEL_PER_THREAD) {
		*count = 0;
		return ROW_CELL_COUNT;
	}
	if (ch->kind != CHANNEL_ENERGY)
		return ROW_CELL_EMPTY;
	*value = 0;
	return ROW_CELL_VALUE;
}

enum row_cell rows_cell(const struct rows *r, const struct row *row, uint32_t ch,
			uint64_t *count, double *value)
{
	const struct profile_info *info = r->info;
	const struct channel_desc *desc = &info->channels[ch];
	const struct profile_sample *s = row->sample;
	uint32_t ks = 0, kt = 0;

	for (uint32_t i = 0; i < ch; i++) {	/* its place among its scope's channels */
		if (info->channels[i].scope == CHANNEL_PER_THREAD)
			kt++;
		else
			ks++;
	}
	if (row->exit)
		return exit_cell(row, desc, kt, count, value);
	if (row->clock)
		return clock_cell(desc, count, value);
	if (desc->scope == CHANNEL_PER_THREAD) {
		*count = s->threads[row->thread].counter_deltas[kt];
		return ROW_CELL_COUNT;
	}
	if (isnan(s->values[ks]))
		return ROW_CELL_EMPTY;
	*value = desc->kind == CHANNEL_ENERGY ? r->shares[ks * s->nthreads + row->thread]
					      : s->values[ks];
	return ROW_CELL_VALUE;
}

void rows_symbol(const struct rows *r, const struct row *row, const char **dso,
		 const char **symbol)
{
	symbolizer_lookup(r->symbols, row->pid, row->pc, dso, symbol);
}

struct same_code {
	struct symbolizer *symbols;
	uint32_t pid;
};

/* Whether two PCs of a process run the same function (the same PC
 * without symbols): a change of code between them moves energy between
 * two rows of the report. */
static bool same_code(void *arg, uint64_t a, uint64_t b)
{
	const struct same_code *c = arg;
	const char *dso_a, *sym_a, *dso_b, *sym_b;

	if (a == b)
		return true;
	if (!c->symbols)
		return false;
	symbolizer_lookup(c->symbols, c->pid, a, &dso_a, &sym_a);
	symbolizer_lookup(c->symbols, c->pid, b, &dso_b, &sym_b);
	return strcmp(sym_a, sym_b) == 0 && strcmp(dso_a, dso_b) == 0;
}

bool rows_has_model_var(const struct rows *r, uint32_t ch)
{
	const struct channel_desc *desc = &r->info->channels[ch];

	return energy_source_estimated(r->energy) && desc->scope == CHANNEL_PER_SAMPLE &&
	       (desc->kind == CHANNEL_ENERGY || desc->kind == CHANNEL_POWER);
}

bool rows_model_var(const struct rows *r, const struct row *row, uint32_t ch, double *value)
{
	const struct profile_info *info = r->info;
	struct same_code c = { r->symbols, row->pid };
	uint32_t ks = 0;

	if (!rows_has_model_var(r, ch) || row->exit || row->clock)
		return false;
	for (uint32_t i = 0; i < ch; i++)
		if (info->channels[i].scope == CHANNEL_PER_SAMPLE)
			ks++;
	if (isnan(row->sample->values[ks]))
		return false;
	*value = energy_source_model_var(r->energy, r->sample_index - 1, row->thread, ks,
					 same_code, &c);
	return !isnan(*value);
}

double rows_energy(const struct rows *r, const struct row *row, uint32_t ch)
{
	const struct profile_info *info = r->info;
	const struct channel_desc *desc = &info->channels[ch];
	const struct profile_sample *s = row->sample;
	double scale = desc->scale > 0 && isfinite(desc->scale) ? desc->scale :
		       desc->kind == CHANNEL_ENERGY ? 1e-6 : 1;	/* uJ, W: as perf.data */
	uint32_t ks = 0;

	if (desc->scope != CHANNEL_PER_SAMPLE ||
	    (desc->kind != CHANNEL_ENERGY && desc->kind != CHANNEL_POWER))
		return NAN;
	if (row->exit || row->clock)
		return 0;	/* after the last sample, or a cpu row: no reading */
	for (uint32_t i = 0; i < ch; i++)
		if (info->channels[i].scope == CHANNEL_PER_SAMPLE)
			ks++;
	if (isnan(s->values[ks]))
		return NAN;
	return r->shares[ks * s->nthreads + row->thread] * scale;
}
