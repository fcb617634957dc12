/* summary.c - the end of a run on stderr. */
#include "summary.h"

#include <inttypes.h>
#include <stdio.h>

#include "../common/error.h"

/* A source that stops answering or disappears mid-run does not stop the run
 * (its samples carry NaN); say so once per channel. */
static void warn_readings(const char *prog, const struct summary_run *run,
			  const struct engine_stats *st)
{
	const struct profile_info *info = run->info;

	if (st->pmu_failed)
		warn_print(prog, "PMU readings missing: %s", st->pmu_err.msg);
	for (uint32_t i = 0; i < info->nchannels; i++) {
		const struct channel_desc *c = &info->channels[i];

		if (c->scope == CHANNEL_PER_SAMPLE && st->channel_missing[i])
			warn_print(prog, "%s: channel '%s': %" PRIu64 " of %" PRIu64
				   " readings missing (the device did not answer in time, sent no usable "
				   "reading or went away; those samples carry no value, see stats missing=)",
				   c->source, c->name, st->channel_missing[i], st->profile.samples);
	}
}

static void print_debug(const struct summary_run *run, const struct engine_stats *st)
{
	const struct profile_stats *p = &st->profile;
	double wall = (double)p->wall_ns / 1e9;
	double hz = run->hz;
	double achieved = wall > 0 ? (double)p->samples / wall : 0;
	double per_sample = p->samples ? (double)p->latency_ns / (double)p->samples / 1e3 : 0;
	double per_ts = p->thread_samples ? (double)run->bytes / (double)p->thread_samples : 0;

	fprintf(stderr,
		"sampler: wall time: %.6f s actual, %.6f s ideal (samples / frequency)\n"
		"sampler: samples: %" PRIu64 " actual, %.0f ideal (wall time x frequency), %" PRIu64 " missed slots\n"
		"sampler: frequency: %.3f Hz target, %.3f Hz achieved (%.1f%%)\n"
		"sampler: stop latency: %.6f s total, %.2f us per sample (mean)\n"
		"sampler: threads: %" PRIu32 " seen, %" PRIu64 " thread-samples; processes: %" PRIu32 " seen\n"
		"sampler: signals delivered to the target: %" PRIu64 "\n"
		"sampler: profile: %" PRIu64 " bytes, %.2f bytes per thread-sample%s\n"
		"sampler: scheduling: %s\n",
		wall, hz > 0 ? (double)p->samples / hz : 0,
		p->samples, wall * hz, p->missed_slots,
		hz, achieved, hz > 0 ? 100.0 * achieved / hz : 0,
		(double)p->latency_ns / 1e9, per_sample,
		p->threads_seen, p->thread_samples, p->processes_seen,
		p->signals_delivered,
		run->bytes, per_ts, run->written ? "" : " (no -o: nothing written)",
		run->tuned->summary);
	/* A normal-priority sampler gets no more CPU than each busy thread. */
	if (!run->tuned->realtime && run->tune->nice == TUNE_NICE_NONE && !run->tune->idle &&
	    hz > 0 && p->samples >= 10 && achieved < 0.5 * hz)
		fprintf(stderr, "sampler: hint: the sampler got too little CPU next to the target's busy threads; "
			"--idle or --nice 19 for the target (or root, for SCHED_FIFO) keeps the rate\n");
	if (st->stuck_samples)
		fprintf(stderr, "sampler: samples that left out a thread which did not stop within 1 s: %" PRIu64 "\n",
			st->stuck_samples);
}

void summary_print(const char *prog, const struct summary_run *run,
		   const struct engine_stats *st)
{
	warn_readings(prog, run, st);
	if (run->debug)
		print_debug(run, st);
}
