/* pperf.c - re-write a profile in the original tool's layout.  The bytes
 * are the profile writer's business (PROFILE_FORMAT_PPERF); this only
 * replays the records into it. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "export.h"

struct pperf_copy {
	struct profile_writer *w;
	bool have_stats;
	struct profile_stats stats;
};

/* The layout holds one PMU value per sample: the first per-sample channel
 * of a kind it knows (energy, power, current, voltage).  Say which of the
 * profile's channels that leaves out, rather than drop them silently. */
static void warn_dropped_channels(const struct profile_info *info)
{
	char names[512] = "";
	size_t len = 0;
	uint32_t kept = UINT32_MAX, dropped = 0;

	if (info->nsample_channels &&
	    info->channels[info->sample_channel[0]].kind != CHANNEL_COUNTER)
		kept = info->sample_channel[0];
	for (uint32_t i = 0; i < info->nchannels && i < PROFILE_MAX_CHANNELS; i++) {
		if (i == kept)
			continue;
		if (len < sizeof(names))
			len += snprintf(names + len, sizeof(names) - len, "%s%s",
					dropped ? ", " : "", info->channels[i].name);
		dropped++;
	}
	if (dropped)
		warn_print(EXPORT_PROG, "pperf keeps one per-sample energy, power, current or voltage channel and no counters: %" PRIu32 " channel%s dropped: %s (use --format perf or csv to keep them)",
			   dropped, dropped == 1 ? "" : "s", names);
}

static void *pperf_open(const struct profile_info *info, const struct export_options *opt,
			struct energy_source *energy, struct error *err)
{
	struct pperf_copy *c = calloc(1, sizeof(*c));
	struct profile_info flat = *info;	/* the layout has no call stacks */
	struct outfile *out;

	(void)energy;	/* (no energy in this output) */
	if (!c) {
		error_set(err, "out of memory for the pperf writer");
		return NULL;
	}
	out = outfile_open(opt->output, 0666, opt->force ? OUTFILE_FORCE : 0, err);
	flat.stacks = false;
	c->w = out ? profile_writer_open_out(out, PROFILE_FORMAT_PPERF, &flat, err) : NULL;
	if (!c->w) {
		free(c);
		return NULL;
	}
	warn_dropped_channels(info);
	if (info->stacks)
		warn_print(EXPORT_PROG, "pperf keeps no call stacks: each thread-sample keeps its PC only (use --format perf, csv or folded to keep them)");
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
		ret = profile_writer_finish(c->w, &c->stats, NULL, err);
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
