/* csv.c - one row per thread-sample and per thread exit (CSV v2 in the
 * project notes, docs/EXPORT.md).  An exit row carries what the thread did
 * after its last sample (all of it when it was never sampled), so that the
 * CPU time and counter columns add up to the profile's totals.  What a row
 * holds, the head lines and the two passes over the profile are rows.h's,
 * shared with the scripts' columns. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include "../common/outfile.h"
#include "export.h"
#include "rows.h"
#include "textout.h"
#include "../profile/textform.h"

struct csv_writer {
	FILE *f;
	const char *path;
	struct rows rows;
	struct stack_text stack;	/* profiles with stacks: the stack column */
};

static void csv_free(struct csv_writer *c)
{
	rows_free(&c->rows);
	stack_text_free(&c->stack);
	free(c);
}

static void write_column_names(struct csv_writer *c)
{
	const struct profile_info *info = c->rows.info;

	fputs("time_ns,pid,tid,kind,pc,cpu_delta_ns,wall_delta_ns", c->f);
	for (uint32_t i = 0; i < info->nchannels && i < PROFILE_MAX_CHANNELS; i++) {
		putc(',', c->f);
		textform_escaped(c->f, info->channels[i].name);
	}
	for (uint32_t i = 0; i < info->nchannels && i < PROFILE_MAX_CHANNELS; i++) {
		if (!rows_has_model_var(&c->rows, i))
			continue;
		putc(',', c->f);
		textform_escaped(c->f, info->channels[i].name);
		fputs(":var", c->f);
	}
	fputs(c->rows.symbols ? ",dso,symbol" : "", c->f);
	fputs(info->stacks ? ",stack\n" : "\n", c->f);
}

static void *csv_open(const struct profile_info *info, const struct export_options *opt,
		      struct energy_source *energy, struct error *err)
{
	struct csv_writer *c = calloc(1, sizeof(*c));

	if (!c) {
		error_set(err, "out of memory for the CSV writer");
		return NULL;
	}
	if (rows_init(&c->rows, info, opt, energy, err) < 0) {
		free(c);
		return NULL;
	}
	c->path = opt->output;
	c->f = textout_open(opt->output, opt->force, err);
	if (!c->f)
		goto fail;
	fputs("# sampler csv v2\n", c->f);
	if (rows_write_head(c->f, info, opt->input, err) < 0) {
		textout_close(c->f, c->path, NULL);
		goto fail;
	}
	rows_write_meters(c->f, &c->rows, false);
	write_column_names(c);
	return c;
fail:
	csv_free(c);
	return NULL;
}

static void write_channel_cells(struct csv_writer *c, const struct row *row)
{
	const struct profile_info *info = c->rows.info;

	for (uint32_t i = 0; i < info->nchannels && i < PROFILE_MAX_CHANNELS; i++) {
		uint64_t count;
		double value;

		putc(',', c->f);
		switch (rows_cell(&c->rows, row, i, &count, &value)) {
		case ROW_CELL_COUNT:
			fprintf(c->f, "%" PRIu64, count);
			break;
		case ROW_CELL_VALUE:
			fprintf(c->f, "%.10g", value);
			break;
		case ROW_CELL_EMPTY:
			break;
		}
	}
	for (uint32_t i = 0; i < info->nchannels && i < PROFILE_MAX_CHANNELS; i++) {
		double value;

		if (!rows_has_model_var(&c->rows, i))
			continue;
		putc(',', c->f);
		if (rows_model_var(&c->rows, row, i, &value))
			fprintf(c->f, "%.6g", value);
	}
}

static int write_row(void *arg, const struct row *row, struct error *err)
{
	struct csv_writer *c = arg;

	fprintf(c->f, "%" PRId64 ",%" PRIu32 ",%" PRIu32 ",%s,0x%" PRIx64 ",%" PRIu64 ",%" PRIu64,
		row->time_ns, row->pid, row->tid, row->exit ? "exit" : row->clock ? "cpu" : "sample", row->pc,
		row->cpu_delta_ns, row->wall_delta_ns);
	write_channel_cells(c, row);
	if (c->rows.symbols) {
		const char *dso, *sym;

		rows_symbol(&c->rows, row, &dso, &sym);
		putc(',', c->f);
		textform_escaped(c->f, dso);
		putc(',', c->f);
		textform_escaped(c->f, sym);
	}
	/* The stack column (profiles with stacks, the last one): outermost
	 * first, the row's function last, joined by ';'. */
	if (c->rows.info->stacks) {
		if (rows_stack(&c->rows, row, &c->stack, err) < 0)
			return -1;
		putc(',', c->f);
		textform_escaped(c->f, c->stack.buf);
	}
	putc('\n', c->f);
	return 0;
}

static int csv_record(void *state, const struct profile_record *rec, struct error *err)
{
	struct csv_writer *c = state;

	if (ferror(c->f))	/* the output is gone: stop reading */
		return outfile_path_write_error(c->path, errno, err);
	return rows_record(&c->rows, rec, write_row, c, err);
}

static int csv_finish(void *state, const struct export_result *result,
		      struct error *err)
{
	struct csv_writer *c = state;
	int ret;

	(void)result;
	rows_write_stats(c->f, &c->rows);
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
	.bytes_per_sample = 85, .bytes_per_frame = 26,
};
