/* info.c - `sampler-export --info`: a human summary of a profile. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "../common/idmap.h"
#include "textout.h"

struct info_summary {
	FILE *f;
	const char *path;
	const struct profile_info *info;
	uint64_t samples;
	uint64_t thread_samples;
	uint64_t first_ns, last_ns;
	uint64_t cpu_ns;
	uint64_t tail_cpu_ns;		/* of it: after threads' last samples */
	uint64_t tails;			/* exit records with final values */
	uint64_t maps;
	uint64_t execs;
	struct idmap threads;		/* tid -> unused byte */
	struct idmap processes;
	char first_comm[PROFILE_COMM_MAX];
	char first_argv[PROFILE_CMDLINE_MAX];
	double sums[PROFILE_MAX_CHANNELS];	/* per channel index */
	uint64_t readings[PROFILE_MAX_CHANNELS];
	bool have_stats;
	struct profile_stats stats;
};

static void *info_open(const struct profile_info *info, const struct export_options *opt,
		       struct energy_source *energy, struct error *err)
{
	struct info_summary *s = calloc(1, sizeof(*s));

	(void)energy;	/* (no energy in this output) */
	if (!s) {
		error_set(err, "out of memory for the summary");
		return NULL;
	}
	s->info = info;
	s->path = opt->output;
	idmap_init(&s->threads, 1);
	idmap_init(&s->processes, 1);
	s->f = textout_open(opt->output, opt->force, err);
	if (!s->f) {
		free(s);
		return NULL;
	}
	return s;
}

static int note_id(struct idmap *m, uint32_t id, struct error *err)
{

	if (!idmap_get(m, id, NULL))
		return error_set(err, "out of memory for the thread list");
	return 0;
}

static int add_sample(struct info_summary *s, const struct profile_sample *smp,
		      struct error *err)
{
	const struct profile_info *info = s->info;

	if (!s->samples)
		s->first_ns = smp->time_ns;
	s->last_ns = smp->time_ns;
	s->samples++;
	s->thread_samples += smp->nthreads;
	for (uint32_t k = 0; k < info->nsample_channels; k++) {
		if (isnan(smp->values[k]))
			continue;
		s->sums[info->sample_channel[k]] += smp->values[k];
		s->readings[info->sample_channel[k]]++;
	}
	for (uint32_t i = 0; i < smp->nthreads; i++) {
		const struct profile_thread_sample *t = &smp->threads[i];

		s->cpu_ns += t->cpu_delta_ns;
		for (uint32_t k = 0; k < info->nthread_channels; k++)
			s->sums[info->thread_channel[k]] += t->counter_deltas[k];
		if (note_id(&s->threads, t->tid, err) < 0 || note_id(&s->processes, t->pid, err) < 0)
			return -1;
	}
	return 0;
}

/* What a thread did after its last sample (or all of it, never sampled):
 * part of the totals, as in the stats record. */
static void add_exit_tail(struct info_summary *s, const struct profile_exit *e)
{
	const struct profile_info *info = s->info;

	if (!e->final)
		return;
	s->tails++;
	s->cpu_ns += e->cpu_delta_ns;
	s->tail_cpu_ns += e->cpu_delta_ns;
	for (uint32_t k = 0; k < info->nthread_channels; k++)
		s->sums[info->thread_channel[k]] += e->counter_deltas[k];
}

static int info_record(void *state, const struct profile_record *rec, struct error *err)
{
	struct info_summary *s = state;

	switch (rec->type) {
	case PROFILE_REC_SAMPLE:
		return add_sample(s, &rec->sample, err);
	case PROFILE_REC_EXIT:
		add_exit_tail(s, &rec->exit);
		return note_id(&s->threads, rec->exit.tid, err);
	case PROFILE_REC_EXEC:
		if (!s->execs++) {
			snprintf(s->first_comm, sizeof(s->first_comm), "%s", rec->exec.comm);
			snprintf(s->first_argv, sizeof(s->first_argv), "%s", rec->exec.argv);
		}
		return note_id(&s->processes, rec->exec.pid, err);
	case PROFILE_REC_PROCESS:
		return note_id(&s->processes, rec->process.pid, err);
	case PROFILE_REC_THREAD:
		return note_id(&s->threads, rec->thread.tid, err);
	case PROFILE_REC_MAP:
		s->maps++;
		return 0;
	case PROFILE_REC_STATS:
		s->stats = rec->stats;
		s->have_stats = true;
		return 0;
	default:
		return 0;
	}
}

static const char *plural(uint64_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

static void print_channels(struct info_summary *s)
{
	const struct profile_info *info = s->info;
	FILE *f = s->f;

	if (!info->nchannels)
		fputs("channels:   none\n", f);
	for (uint32_t i = 0; i < info->nchannels && i < PROFILE_MAX_CHANNELS; i++) {
		const struct channel_desc *c = &info->channels[i];
		const char *unit = c->unit[0] ? c->unit : "events";

		textout_printf(f, "channel:    %s (%s, %s, %s)", c->name, c->source[0] ? c->source : "-",
			channel_kind_name(c->kind),
			c->scope == CHANNEL_PER_SAMPLE ? "per sample" : "per thread");
		if (c->kind == CHANNEL_ENERGY || c->kind == CHANNEL_COUNTER)
			textout_printf(f, ": total %.10g %s", s->sums[i], unit);
		else if (s->readings[i])
			textout_printf(f, ": mean %.6g %s over %" PRIu64 " readings", s->sums[i] / s->readings[i],
				unit, s->readings[i]);
		if (c->kind == CHANNEL_ENERGY && c->scale > 0)
			textout_printf(f, " = %.6g J", s->sums[i] * c->scale);
		if (c->has_update)
			textout_printf(f, "; updates every %g ms", c->update_ms);
		if (c->has_delay)
			textout_printf(f, "; %g ms late", c->delay_ms);
		if (c->has_update || c->has_delay)
			fputs(" (declared)", f);
		if (s->have_stats && i < s->stats.nchannels && s->stats.channel_refused[i])
			fprintf(f, "; %" PRIu64 " %s refused (not in the total)",
				s->stats.channel_refused[i],
				plural(s->stats.channel_refused[i], "reading", "readings"));
		putc('\n', f);
	}
}


static void print_host(struct info_summary *s)
{
	const struct profile_host *h = &s->info->host;
	FILE *f = s->f;

	if (!h->hostname[0] && !h->os_release[0] && !h->nr_cpus_online) {
		fputs("host:       not recorded (the pperf layout keeps no host facts)\n", f);
		return;
	}
	textout_printf(f, "host:       %s, %s %s, %s, %s, %" PRIu32 "/%" PRIu32 " CPUs online, %" PRIu64
		" MiB\n", h->hostname, h->os_release, h->arch, h->cpu_desc, h->cpu_id,
		h->nr_cpus_online, h->nr_cpus_avail, h->total_mem_kb / 1024);
	textout_printf(f, "recorded:   sampler %s: %s\n", h->sampler_version, h->cmdline);
}

static void print_summary(struct info_summary *s, const struct export_result *res)
{
	const struct profile_host *h = &s->info->host;
	double duration = s->samples ? (s->last_ns - s->first_ns) / 1e9 : 0;
	FILE *f = s->f;

	textout_printf(f, "profile:    %s format%s\n",
		s->info->format == PROFILE_FORMAT_PPERF ? "pperf (original tool)" : "native",
		s->info->compressed ? ", bzip2-compressed" : "");
	print_host(s);
	if (s->execs)
		textout_printf(f, "command:    %s (%s)\n", s->first_argv, s->first_comm);
	else
		fputs("command:    not recorded\n", f);
	textout_printf(f, "duration:   %.6f s (first to last sample)\n", duration);
	textout_printf(f, "samples:    %" PRIu64 ", %" PRIu64 " thread-samples, %.6f s CPU time",
		s->samples, s->thread_samples, s->cpu_ns / 1e9);
	if (s->tails)
		textout_printf(f, " (%.6f s of it read at %" PRIu64 " thread %s, after the last samples)",
			s->tail_cpu_ns / 1e9, s->tails, plural(s->tails, "exit", "exits"));
	putc('\n', f);
	textout_printf(f, "frequency:  %.1f Hz achieved, %.1f Hz target\n",
		duration > 0 ? (s->samples - 1) / duration : 0.0, h->target_hz);
	textout_printf(f, "threads:    %zu %s in %zu %s, %" PRIu64 " map %s\n",
		idmap_count(&s->threads), plural(idmap_count(&s->threads), "thread", "threads"),
		idmap_count(&s->processes), plural(idmap_count(&s->processes), "process", "processes"),
		s->maps, plural(s->maps, "record", "records"));
	print_channels(s);
	if (s->have_stats) {
		textout_printf(f, "stats:      wall %.6f s, samples took %.6f s (threads held %.6f s after"
			" them), %" PRIu64 " missed slots, %" PRIu64 " missing readings, %" PRIu64
			" signals, exit status %" PRId32 "\n", s->stats.wall_ns / 1e9,
			s->stats.latency_ns / 1e9, s->stats.hold_ns / 1e9,
			s->stats.missed_slots, s->stats.missing_readings,
			s->stats.signals_delivered, s->stats.exit_status);
	}
	if (res && res->partial)
		textout_printf(f, "truncated:  yes: %s\n", res->dropped);
	else
		textout_printf(f, "truncated:  no\n");
}

static int info_finish(void *state, const struct export_result *result,
		       struct error *err)
{
	struct info_summary *s = state;
	int ret;

	print_summary(s, result);
	ret = textout_close(s->f, s->path, err);
	idmap_free(&s->threads);
	idmap_free(&s->processes);
	free(s);
	return ret;
}

const struct exporter info_exporter = {
	.name = "info",
	.open = info_open,
	.record = info_record,
	.finish = info_finish,
};
