/* csv.c - one row per thread-sample (contract 2 in the project notes).
 *
 * The comment lines name every process with its last comm and argv, which
 * only the whole profile tells, so the profile is read twice: a first pass
 * collects the processes (a few bytes each), the second writes the rows.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "attribution.h"
#include "export.h"
#include "../common/idmap.h"
#include "symbols.h"
#include "textout.h"
#include "../profile/textform.h"

struct csv_process {
	uint32_t ppid;
	uint32_t order;			/* first appearance */
	char comm[PROFILE_COMM_MAX];
	char *argv;
};

struct csv_writer {
	FILE *f;
	const char *path;
	const struct profile_info *info;
	struct symbolizer *symbols;	/* NULL without --symbols */
	uint64_t start_ns;
	uint64_t prev_ns;
	bool have_prev;
	bool have_stats;
	struct profile_stats stats;
	uint32_t shares_cap;
	double *shares;			/* [sample channel][thread] */
};

static void free_processes(struct idmap *procs)
{
	struct csv_process *p;
	size_t pos = 0;

	while ((p = idmap_next(procs, &pos, NULL)))
		free(p->argv);
	idmap_free(procs);
}

static int collect_process(struct idmap *procs, const struct profile_record *rec)
{
	struct csv_process *p;
	uint32_t pid = rec->type == PROFILE_REC_PROCESS ? rec->process.pid : rec->exec.pid;
	bool created;

	p = idmap_get(procs, pid, &created);
	if (!p)
		return -1;
	if (created)
		p->order = idmap_count(procs);
	if (rec->type == PROFILE_REC_PROCESS) {
		const struct csv_process *parent = idmap_find(procs, rec->process.ppid);

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

/* First pass: every process with its last comm and argv.  A read error
 * only ends the pass early; the second pass reports it. */
static int collect_processes(const char *input, struct idmap *procs, struct error *err)
{
	struct profile_record rec;
	struct profile_reader *r = profile_reader_open(input, err);

	if (!r)
		return -1;
	while (profile_read_next(r, &rec, NULL) > 0) {
		if (rec.type != PROFILE_REC_PROCESS && rec.type != PROFILE_REC_EXEC)
			continue;
		if (collect_process(procs, &rec) < 0) {
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
	const struct csv_process **order = calloc(idmap_count(procs) + 1, sizeof(*order));
	uint32_t *pids = calloc(idmap_count(procs) + 1, sizeof(*pids));
	const struct csv_process *p;
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

static int write_preamble(struct csv_writer *c, const struct idmap *procs, struct error *err)
{
	const struct profile_info *info = c->info;
	FILE *f = c->f;

	fputs("# sampler csv v1\n# host", f);
	textform_host_fields(f, &info->host);
	putc('\n', f);
	for (uint32_t i = 0; i < info->nchannels && i < PROFILE_MAX_CHANNELS; i++) {
		fprintf(f, "# channel index=%" PRIu32, i);
		textform_channel_fields(f, &info->channels[i]);
		putc('\n', f);
	}
	if (write_processes(f, procs, err) < 0)
		return -1;
	fputs("time_ns,pid,tid,pc,cpu_delta_ns,wall_delta_ns", f);
	for (uint32_t i = 0; i < info->nchannels && i < PROFILE_MAX_CHANNELS; i++) {
		putc(',', f);
		textform_escaped(f, info->channels[i].name);
	}
	fputs(c->symbols ? ",dso,symbol\n" : "\n", f);
	return 0;
}

static void csv_free(struct csv_writer *c)
{
	symbolizer_free(c->symbols);
	free(c->shares);
	free(c);
}

static void *csv_open(const struct profile_info *info, const struct export_options *opt,
		      struct error *err)
{
	struct csv_writer *c = calloc(1, sizeof(*c));
	struct idmap procs;

	if (!c) {
		error_set(err, "out of memory for the CSV writer");
		return NULL;
	}
	c->info = info;
	c->path = opt->output;
	c->start_ns = info->host.start_ns;
	if (opt->symbols && (!(c->symbols = symbolizer_new()) ||
			     symbolizer_set_cache(c->symbols, opt->symbol_cache) < 0)) {
		error_set(err, "out of memory for the symbolizer");
		goto fail;
	}
	idmap_init(&procs, sizeof(struct csv_process));
	if (collect_processes(opt->input, &procs, err) < 0) {
		free_processes(&procs);
		goto fail;
	}
	c->f = textout_open(opt->output, err);
	if (!c->f) {
		free_processes(&procs);
		goto fail;
	}
	if (write_preamble(c, &procs, err) < 0) {
		free_processes(&procs);
		textout_close(c->f, c->path, NULL);
		goto fail;
	}
	free_processes(&procs);
	return c;
fail:
	csv_free(c);
	return NULL;
}

/* Each per-sample energy channel's share for each thread, by the one rule. */
static int attribute_sample(struct csv_writer *c, const struct profile_sample *s,
			    struct error *err)
{
	const struct profile_info *info = c->info;
	uint32_t need = s->nthreads * info->nsample_channels;

	if (need > c->shares_cap) {
		double *p = realloc(c->shares, need * sizeof(*p));

		if (!p)
			return error_set(err, "out of memory for a sample of %u threads",
					 s->nthreads);
		c->shares = p;
		c->shares_cap = need;
	}
	for (uint32_t k = 0; k < info->nsample_channels; k++) {
		if (info->channels[info->sample_channel[k]].kind == CHANNEL_ENERGY)
			attribute_energy(s, s->values[k], c->shares + k * s->nthreads);
	}
	return 0;
}

static void write_channel_cells(struct csv_writer *c, const struct profile_sample *s,
				uint32_t thread)
{
	const struct profile_info *info = c->info;
	uint32_t ks = 0, kt = 0;

	for (uint32_t i = 0; i < info->nchannels && i < PROFILE_MAX_CHANNELS; i++) {
		const struct channel_desc *ch = &info->channels[i];

		putc(',', c->f);
		if (ch->scope == CHANNEL_PER_THREAD) {
			fprintf(c->f, "%" PRIu64, s->threads[thread].counter_deltas[kt++]);
			continue;
		}
		if (ch->kind == CHANNEL_ENERGY) {
			if (!isnan(s->values[ks]))
				fprintf(c->f, "%.10g", c->shares[ks * s->nthreads + thread]);
		} else if (!isnan(s->values[ks])) {
			fprintf(c->f, "%.10g", s->values[ks]);
		}
		ks++;
	}
}

static int write_rows(struct csv_writer *c, const struct profile_sample *s, struct error *err)
{
	int64_t time = (int64_t)(s->time_ns - c->start_ns);
	uint64_t wall = s->time_ns - (c->have_prev ? c->prev_ns : c->start_ns);

	if (!c->have_prev && s->time_ns < c->start_ns)
		wall = 0;
	c->prev_ns = s->time_ns;
	c->have_prev = true;
	if (attribute_sample(c, s, err) < 0)
		return -1;
	for (uint32_t i = 0; i < s->nthreads; i++) {
		const struct profile_thread_sample *t = &s->threads[i];

		fprintf(c->f, "%" PRId64 ",%" PRIu32 ",%" PRIu32 ",0x%" PRIx64 ",%" PRIu64
			",%" PRIu64, time, t->pid, t->tid, t->pc, t->cpu_delta_ns, wall);
		write_channel_cells(c, s, i);
		if (c->symbols) {
			const char *dso, *sym;

			symbolizer_lookup(c->symbols, t->pid, t->pc, &dso, &sym);
			putc(',', c->f);
			textform_escaped(c->f, dso);
			putc(',', c->f);
			textform_escaped(c->f, sym);
		}
		putc('\n', c->f);
	}
	return 0;
}

static int add_map(struct csv_writer *c, const struct profile_map *m, struct error *err)
{
	if (!c->symbols)
		return 0;
	if (symbolizer_add_map(c->symbols, m) < 0)
		return error_set(err, "out of memory for the maps of process %" PRIu32, m->pid);
	return 0;
}

static int csv_record(void *state, const struct profile_record *rec, struct error *err)
{
	struct csv_writer *c = state;

	switch (rec->type) {
	case PROFILE_REC_SAMPLE:
		return write_rows(c, &rec->sample, err);
	case PROFILE_REC_MAP:
		return add_map(c, &rec->map, err);
	case PROFILE_REC_PROCESS:
		if (c->symbols && rec->process.ppid &&
		    symbolizer_fork(c->symbols, rec->process.pid, rec->process.ppid) < 0)
			return error_set(err, "out of memory for the maps of process %" PRIu32,
					 rec->process.pid);
		return 0;
	case PROFILE_REC_WINDOW:
		/* A window's first sample covers no time outside it. */
		if (rec->window.enabled) {
			c->prev_ns = rec->window.time_ns;
			c->have_prev = true;
		}
		return 0;
	case PROFILE_REC_STATS:
		c->stats = rec->stats;
		c->have_stats = true;
		return 0;
	default:
		return 0;
	}
}

static int csv_finish(void *state, const struct export_result *result,
		      struct error *err)
{
	struct csv_writer *c = state;
	int ret;

	(void)result;

	if (c->have_stats) {
		fputs("# stats", c->f);
		textform_stats_fields(c->f, &c->stats);
		putc('\n', c->f);
	}
	ret = textout_close(c->f, c->path, err);
	csv_free(c);
	return ret;
}

const struct exporter csv_exporter = {
	.name = "csv",
	.reads_input_twice = true,
	.open = csv_open,
	.record = csv_record,
	.finish = csv_finish,
};
