/* table.c - sampler top's counts per (function, thread): table.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/grow.h"
#include "../common/hash.h"
#include "table.h"

int top_table_init(struct top_table *t, const struct profile_info *info, struct error *err)
{
	struct export_options opt = { .prog = TOP_PROG, .symbols = true };
	struct energy_options eo = { .rule = ENERGY_RULE_END, .prog = TOP_PROG };

	memset(t, 0, sizeof(*t));
	t->info = *info;
	t->stacks = info->stacks;
	t->energy = energy_source_open(&t->info, NULL, &eo, err);
	if (!t->energy)
		return -1;
	if (rows_init(&t->rows, &t->info, &opt, t->energy, err) < 0) {
		energy_source_close(t->energy);
		return -1;
	}
	for (uint32_t i = 0; i < info->nsample_channels && t->nenergy < TOP_MAX_ENERGY; i++) {
		uint32_t ch = info->sample_channel[i];
		enum channel_kind kind = info->channels[ch].kind;

		if (kind == CHANNEL_ENERGY || kind == CHANNEL_POWER)
			t->energy_ch[t->nenergy++] = ch;
	}
	idmap_init(&t->names, PROFILE_COMM_MAX);
	idmap_init(&t->comms, PROFILE_COMM_MAX);
	t->start_ns = t->now_start_ns = t->last_ns = info->host.start_ns;
	pthread_mutex_init(&t->lock, NULL);
	pthread_cond_init(&t->changed, NULL);
	return 0;
}

static void free_cell(struct top_cell *c)
{
	free(c->paths);
	free(c);
}

void top_table_free(struct top_table *t)
{
	for (uint32_t b = 0; b < t->nbuckets; b++)
		for (struct top_cell *c = t->buckets[b], *next; c; c = next) {
			next = c->next;
			free_cell(c);
		}
	free(t->buckets);
	if (t->other)
		free_cell(t->other);
	rows_free(&t->rows);
	energy_source_close(t->energy);
	idmap_free(&t->names);
	idmap_free(&t->comms);
	pthread_mutex_destroy(&t->lock);
	pthread_cond_destroy(&t->changed);
}

static uint32_t cell_hash(const char *dso, const char *symbol, uint32_t tid)
{
	return (uint32_t)hash_mix64(hash_u64((uintptr_t)dso) ^ (uintptr_t)symbol ^
				    (uint64_t)tid << 40);
}

static int grow_buckets(struct top_table *t)
{
	uint32_t n = t->nbuckets ? t->nbuckets * 2 : 1024;
	struct top_cell **b = calloc(n, sizeof(*b));

	if (!b)
		return -1;
	for (uint32_t i = 0; i < t->nbuckets; i++)
		for (struct top_cell *c = t->buckets[i], *next; c; c = next) {
			uint32_t h = cell_hash(c->dso, c->symbol, c->tid) & (n - 1);

			next = c->next;
			c->next = b[h];
			b[h] = c;
		}
	free(t->buckets);
	t->buckets = b;
	t->nbuckets = n;
	return 0;
}

/* The cell of (dso, symbol) in thread tid; NULL when out of memory. */
static struct top_cell *cell_get(struct top_table *t, const char *dso, const char *symbol,
				 uint32_t pid, uint32_t tid)
{
	struct top_cell *c;
	uint32_t h;

	if (t->ncells >= t->nbuckets && t->ncells < TOP_MAX_CELLS && grow_buckets(t) < 0)
		return NULL;
	h = cell_hash(dso, symbol, tid) & (t->nbuckets - 1);
	for (c = t->buckets[h]; c; c = c->next)
		if (c->symbol == symbol && c->dso == dso && c->tid == tid && c->pid == pid)
			return c;
	if (t->ncells >= TOP_MAX_CELLS) {
		/* memory stays bounded whatever the stream holds */
		if (!t->other && (t->other = calloc(1, sizeof(*t->other)))) {
			t->other->dso = SYMBOL_UNKNOWN;
			t->other->symbol = "[other]";
		}
		return t->other;
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->dso = dso;
	c->symbol = symbol;
	c->pid = pid;
	c->tid = tid;
	c->next = t->buckets[h];
	t->buckets[h] = c;
	t->ncells++;
	return c;
}

/* Code with no symbol (an address) is its file's: one row "[file]" per
 * file, as sampler-report groups it, not one row per address. */
static const char *code_name(struct top_table *t, const char *dso, const char *symbol)
{
	const char *base = strrchr(dso, '/');
	uint32_t i;

	if (strncmp(symbol, "0x", 2) != 0)
		return symbol;
	for (i = 0; i < t->nfiles; i++)
		if (t->files[i].dso == dso)
			return t->files[i].label;
	if (i == TOP_MAX_FILES)
		return symbol;
	base = base ? base + 1 : dso;
	snprintf(t->files[i].label, sizeof(t->files[i].label), base[0] == '[' ? "%s" : "[%s]", base);
	t->files[i].dso = dso;
	t->nfiles++;
	return t->files[i].label;
}

/* -g: the names on the row's stack (callers of the row's PC, innermost
 * first), up to max. */
static uint32_t stack_names(struct top_table *t, const struct row *row, const char **names,
			    const char **dsos, uint32_t max)
{
	uint32_t n, i;

	if (!row->stacks || !row->chain)
		return 0;
	n = profile_stack_frames(row->stacks, row->chain, t->rows.frames, PROFILE_MAX_FRAMES);
	if (n > max)
		n = max;
	for (i = 0; i < n; i++) {
		symbolizer_lookup(t->rows.symbols, row->pid, t->rows.frames[i], &dsos[i], &names[i]);
		names[i] = code_name(t, dsos[i], names[i]);
	}
	return i;
}

static void add_path(struct top_cell *c, const char **names, uint32_t n, uint64_t cpu_ns)
{
	struct top_path *p;

	if (n > TOP_PATH_DEPTH)
		n = TOP_PATH_DEPTH;
	for (uint32_t i = 0; i < c->npaths; i++) {
		p = &c->paths[i];
		if (p->nframes == n && !memcmp(p->frames, names, n * sizeof(*names))) {
			p->cpu_ns += cpu_ns;
			return;
		}
	}
	if (!c->paths && !(c->paths = calloc(TOP_PATHS, sizeof(*c->paths))))
		return;		/* a path less: the counts stay right */
	if (c->npaths < TOP_PATHS) {
		p = &c->paths[c->npaths++];
	} else {
		/* full: the new path takes the place of the least one (a
		 * path that runs often comes back and stays) */
		p = &c->paths[0];
		for (uint32_t i = 1; i < TOP_PATHS; i++)
			if (c->paths[i].cpu_ns < p->cpu_ns)
				p = &c->paths[i];
		if (p->cpu_ns > cpu_ns)
			return;
	}
	memcpy(p->frames, names, n * sizeof(*names));
	p->nframes = n;
	p->cpu_ns = cpu_ns;
}

static void add_counts(struct top_counts *c, const struct top_counts *d, bool self)
{
	if (self) {
		c->samples += d->samples;
		c->cpu_ns += d->cpu_ns;
		for (uint32_t i = 0; i < TOP_MAX_ENERGY; i++) {
			c->joules[i] += d->joules[i];
			c->joules_sq[i] += d->joules_sq[i];
		}
	}
	c->incl_ns += d->incl_ns;
}

#define INCL_DEPTH 128		/* frames searched for the inclusive share */

static int take_row(void *arg, const struct row *row, struct error *err)
{
	struct top_table *t = arg;
	const char *dso, *symbol, *names[INCL_DEPTH], *dsos[INCL_DEPTH];
	struct top_counts d = { .samples = !row->exit && !row->clock, .cpu_ns = row->cpu_delta_ns,
				.incl_ns = row->cpu_delta_ns };
	struct top_cell *c;
	uint32_t n;

	for (uint32_t i = 0; i < t->nenergy; i++) {
		double e = rows_energy(&t->rows, row, t->energy_ch[i]);

		if (isfinite(e)) {
			d.joules[i] = e;
			d.joules_sq[i] = e * e;
		}
	}
	rows_symbol(&t->rows, row, &dso, &symbol);
	symbol = code_name(t, dso, symbol);
	if (!(c = cell_get(t, dso, symbol, row->pid, row->tid)))
		return error_set(err, "out of memory for the view's table");
	add_counts(&c->now, &d, true);
	add_counts(&c->all, &d, true);
	if (!t->stacks)
		return 0;
	n = stack_names(t, row, names, dsos, INCL_DEPTH);
	add_path(c, names, n, row->cpu_delta_ns);
	/* each function on the stack once: recursion counts once */
	for (uint32_t i = 0; i < n; i++) {
		bool seen = names[i] == symbol && dsos[i] == dso;

		for (uint32_t j = 0; j < i && !seen; j++)
			seen = names[j] == names[i] && dsos[j] == dsos[i];
		if (seen)
			continue;
		if (!(c = cell_get(t, dsos[i], names[i], row->pid, row->tid)))
			return error_set(err, "out of memory for the view's table");
		add_counts(&c->now, &d, false);
		add_counts(&c->all, &d, false);
	}
	return 0;
}

static void set_name(struct idmap *m, uint32_t id, const char *name)
{
	char *slot = idmap_get(m, id, NULL);

	if (slot)
		snprintf(slot, PROFILE_COMM_MAX, "%s", name);
}

int top_table_record(struct top_table *t, const struct profile_record *rec, struct error *err)
{
	switch (rec->type) {
	case PROFILE_REC_SAMPLE:
		t->last_ns = rec->sample.time_ns;
		t->samples_now++;
		break;
	case PROFILE_REC_EXEC:
		set_name(&t->comms, rec->exec.pid, rec->exec.comm);
		set_name(&t->names, rec->exec.pid, rec->exec.comm);
		break;
	case PROFILE_REC_NAME:
		set_name(&t->names, rec->name.tid, rec->name.name);
		break;
	default:
		break;
	}
	return rows_record(&t->rows, rec, take_row, t, err);
}

double top_sort_value(const struct top_counts *c, enum top_sort sort)
{
	switch (sort) {
	case TOP_SORT_ENERGY:
		return c->joules[0];
	case TOP_SORT_SAMPLES:
		return (double)c->samples;
	default:
		return (double)c->cpu_ns;
	}
}

double top_energy_half(const struct top_counts *c, uint32_t i)
{
	return TOP_Z95 * sqrt(c->joules_sq[i]);
}

const char *top_energy_name(const struct top_table *t, uint32_t i)
{
	return t->info.channels[t->energy_ch[i]].name;
}

static const char *name_of(const struct idmap *m, uint32_t id)
{
	const char *s = idmap_find(m, id);

	return s ? s : "?";
}

/* The group a cell belongs to in view o: its label and DSO. */
static void group_of(const struct top_table *t, const struct top_cell *c, enum top_by by,
		     char *label, size_t size, const char **dso)
{
	*dso = "";
	switch (by) {
	case TOP_BY_THREAD:
		snprintf(label, size, "%u %s", c->tid, name_of(&t->names, c->tid));
		break;
	case TOP_BY_PROCESS:
		snprintf(label, size, "%u %s", c->pid, name_of(&t->comms, c->pid));
		break;
	case TOP_BY_RANK:
		snprintf(label, size, "rank %s", t->info.host.rank[0] ? t->info.host.rank : "-");
		break;
	default:
		snprintf(label, size, "%s", c->symbol);
		*dso = c->dso;
	}
}

static int by_group(const void *a, const void *b)
{
	const struct top_row *x = a, *y = b;
	int d = strcmp(x->label, y->label);

	return d ? d : strcmp(x->dso, y->dso);
}

static int by_key(const void *a, const void *b, void *arg)
{
	const struct top_row *x = a, *y = b;
	enum top_sort sort_key = *(const enum top_sort *)arg;
	double kx = top_sort_value(&x->now, sort_key), ky = top_sort_value(&y->now, sort_key);

	if (kx != ky)
		return kx < ky ? 1 : -1;
	kx = top_sort_value(&x->all, sort_key);
	ky = top_sort_value(&y->all, sort_key);
	if (kx != ky)
		return kx < ky ? 1 : -1;
	return by_group(a, b);
}

static bool shown(const struct top_cell *c, const struct top_view_options *o)
{
	return (!o->only_pid || c->pid == o->only_pid) && (!o->only_tid || c->tid == o->only_tid);
}

static int push_row(struct top_view *v, const struct top_table *t, const struct top_cell *c,
		    enum top_by by)
{
	struct top_row *r;

	if (GROW_ARRAY(v->rows, v->cap, (size_t)v->nrows + 1) < 0)
		return -1;
	r = &v->rows[v->nrows++];
	memset(r, 0, sizeof(*r));
	group_of(t, c, by, r->label, sizeof(r->label), &r->dso);
	r->pid = c->pid;
	r->tid = c->tid;
	r->now = c->now;
	r->all = c->all;
	r->first = c;
	return 0;
}

int top_table_view(struct top_table *t, const struct top_view_options *o, struct top_view *v)
{
	uint32_t n = 0;

	v->nrows = 0;
	memset(&v->now, 0, sizeof(v->now));
	memset(&v->all, 0, sizeof(v->all));
	for (uint32_t b = 0; b < t->nbuckets; b++)
		for (struct top_cell *c = t->buckets[b]; c; c = c->next)
			if (shown(c, o) && push_row(v, t, c, o->by) < 0)
				return -1;
	if (t->other && push_row(v, t, t->other, o->by) < 0)
		return -1;
	if (!v->nrows)
		goto out;	/* nothing yet (qsort takes no NULL array) */
	/* merge the cells of a group: sort by group, add up the runs */
	qsort(v->rows, v->nrows, sizeof(*v->rows), by_group);
	for (uint32_t i = 0; i < v->nrows; i++) {
		struct top_row *r = &v->rows[i];

		add_counts(&v->now, &r->now, true);
		add_counts(&v->all, &r->all, true);
		if (n && !by_group(&v->rows[n - 1], r)) {
			add_counts(&v->rows[n - 1].now, &r->now, true);
			add_counts(&v->rows[n - 1].all, &r->all, true);
			continue;
		}
		v->rows[n++] = *r;
	}
	v->nrows = n;
	/* a thread or a process holds its stacks whole: its inclusive time
	 * is its own, not the sum of its functions' */
	for (uint32_t i = 0; o->by != TOP_BY_FUNCTION && i < v->nrows; i++) {
		v->rows[i].now.incl_ns = v->rows[i].now.cpu_ns;
		v->rows[i].all.incl_ns = v->rows[i].all.cpu_ns;
	}
	qsort_r(v->rows, v->nrows, sizeof(*v->rows), by_key, (void *)&o->sort);
	/* rows below the limit, and rows with nothing in the interval, are
	 * left out */
	n = 0;
	for (uint32_t i = 0; i < v->nrows; i++) {
		struct top_row *r = &v->rows[i];
		double total = top_sort_value(&v->now, o->sort);
		double share = total > 0 ? 100 * top_sort_value(&r->now, o->sort) / total : 0;

		if (!r->now.samples && !r->now.incl_ns && !r->now.cpu_ns)
			continue;
		if (o->percent_limit > 0 && share < o->percent_limit)
			continue;
		v->rows[n++] = *r;
	}
	v->nrows = n;
out:
	v->now_s = (double)(t->last_ns - t->now_start_ns) / 1e9;
	v->all_s = (double)(t->last_ns - t->start_ns) / 1e9;
	v->samples_now = t->samples_now;
	v->rate_hz = v->now_s > 0 ? (double)t->samples_now / v->now_s : 0;
	v->ended = t->ended;
	return 0;
}

void top_view_free(struct top_view *v)
{
	free(v->rows);
	memset(v, 0, sizeof(*v));
}

void top_table_next_interval(struct top_table *t, bool zero)
{
	for (uint32_t b = 0; b < t->nbuckets; b++)
		for (struct top_cell *c = t->buckets[b]; c; c = c->next) {
			memset(&c->now, 0, sizeof(c->now));
			if (zero) {
				memset(&c->all, 0, sizeof(c->all));
				c->npaths = 0;
			}
		}
	if (t->other) {
		memset(&t->other->now, 0, sizeof(t->other->now));
		if (zero)
			memset(&t->other->all, 0, sizeof(t->other->all));
	}
	t->now_start_ns = t->last_ns;
	if (zero)
		t->start_ns = t->last_ns;
	t->samples_now = 0;
}

void top_view_sort(struct top_view *v, enum top_sort sort)
{
	if (v->nrows)
		qsort_r(v->rows, v->nrows, sizeof(*v->rows), by_key, &sort);
}

static int by_path_cpu(const void *a, const void *b)
{
	const struct top_path *x = a, *y = b;

	return x->cpu_ns < y->cpu_ns ? 1 : x->cpu_ns > y->cpu_ns ? -1 : 0;
}

uint32_t top_table_paths(const struct top_table *t, const struct top_view_options *o,
			 const struct top_row *row, struct top_path *out, uint32_t max)
{
	struct top_path all[4 * TOP_PATHS];
	uint32_t n = 0;

	if (o->by != TOP_BY_FUNCTION)
		return 0;
	for (uint32_t b = 0; b < t->nbuckets; b++)
		for (const struct top_cell *c = t->buckets[b]; c; c = c->next) {
			if (!shown(c, o) || strncmp(c->symbol, row->label, sizeof(row->label) - 1) ||
			    strcmp(c->dso, row->dso))
				continue;
			for (uint32_t i = 0; i < c->npaths; i++) {
				uint32_t j;

				/* the same path in another thread: one line */
				for (j = 0; j < n; j++)
					if (all[j].nframes == c->paths[i].nframes &&
					    !memcmp(all[j].frames, c->paths[i].frames,
						    all[j].nframes * sizeof(all[j].frames[0])))
						break;
				if (j < n)
					all[j].cpu_ns += c->paths[i].cpu_ns;
				else if (n < 4 * TOP_PATHS)
					all[n++] = c->paths[i];
			}
		}
	if (n)
		qsort(all, n, sizeof(all[0]), by_path_cpu);
	if (n > max)
		n = max;
	memcpy(out, all, n * sizeof(all[0]));
	return n;
}
