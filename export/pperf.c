/* pperf.c - re-write a profile in the original tool's layout.  The bytes
 * are the profile writer's business (PROFILE_FORMAT_PPERF); this only
 * replays the records into it. */
#include <stdlib.h>

#include "export.h"

struct pperf_copy {
	struct profile_writer *w;
	bool have_stats;
	struct profile_stats stats;
};

static void *pperf_open(const struct profile_info *info, const struct export_options *opt,
			struct error *err)
{
	struct pperf_copy *c = calloc(1, sizeof(*c));

	if (!c) {
		error_set(err, "out of memory for the pperf writer");
		return NULL;
	}
	c->w = profile_writer_open(opt->output, PROFILE_FORMAT_PPERF, info, err);
	if (!c->w) {
		free(c);
		return NULL;
	}
	return c;
}

static int pperf_record(void *state, const struct profile_record *rec, struct error *err)
{
	struct pperf_copy *c = state;

	switch (rec->type) {
	case PROFILE_REC_PROCESS:
		return profile_write_process(c->w, &rec->process, err);
	case PROFILE_REC_EXEC:
		return profile_write_exec(c->w, &rec->exec, err);
	case PROFILE_REC_THREAD:
		return profile_write_thread(c->w, &rec->thread, err);
	case PROFILE_REC_NAME:
		return profile_write_name(c->w, &rec->name, err);
	case PROFILE_REC_EXIT:
		return profile_write_exit(c->w, &rec->exit, err);
	case PROFILE_REC_MAP:
		return profile_write_map(c->w, &rec->map, err);
	case PROFILE_REC_SAMPLE:
		return profile_write_sample(c->w, &rec->sample, err);
	case PROFILE_REC_WINDOW:
		return profile_write_window(c->w, &rec->window, err);
	case PROFILE_REC_STATS:
		c->stats = rec->stats;
		c->have_stats = true;
		return 0;
	}
	return 0;
}

static int pperf_finish(void *state, const struct export_result *result,
			struct error *err)
{
	struct pperf_copy *c = state;
	int ret = 0;

	(void)result;

	/* A cut-short input stays cut short: no statistics are invented. */
	if (c->have_stats)
		ret = profile_writer_finish(c->w, &c->stats, err);
	else
		profile_writer_abandon(c->w);
	free(c);
	return ret;
}

const struct exporter pperf_exporter = {
	.name = "pperf",
	.open = pperf_open,
	.record = pperf_record,
	.finish = pperf_finish,
};
