#include "export.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* An output this large, and this many times its profile, is announced:
 * a 324-byte bzip2 profile made 52.8 MB of perf.data unannounced. */
#define LARGE_OUTPUT_BYTES 10000000ULL
#define LARGE_OUTPUT_GROWTH 100

static void note_truncation(struct profile_reader *r, struct export_result *res)
{
	uint64_t good;

	if (res->partial || !profile_reader_truncated(r, &good))
		return;
	res->partial = true;
	snprintf(res->dropped, sizeof(res->dropped),
		 "profile is cut short after byte %" PRIu64
		 " (no end statistics): exported the %" PRIu64
		 " complete records before it; anything the recorder wrote later was lost",
		 good, res->records);
}

struct energy_options export_energy_options(const struct export_options *opt)
{
	struct energy_options o = { .rule = ENERGY_RULE_TRAPEZOID, .prog = export_prog(opt) };

	if (opt) {
		o.rule = opt->energy_rule;
		o.meters = opt->meters;
		o.nmeters = opt->nmeters;
		o.peers = opt->peers;
		o.npeers = opt->npeers;
	}
	return o;
}

static int export_input(const struct exporter *ex, const struct export_options *opt,
			struct export_result *res, struct error *err)
{
	struct profile_reader *r;
	struct profile_record rec;
	struct error read_err;
	struct energy_options eo = export_energy_options(opt);
	struct energy_source *energy;
	void *state = NULL;
	int ret;

	r = profile_reader_open(opt->input, err);
	if (!r)
		return -1;
	/* (an input read once has no second pass for the estimate) */
	energy = energy_source_open(profile_reader_info(r), ex->reads_input_twice ? opt->input : NULL,
				    &eo, err);
	if (energy)
		state = ex->open(profile_reader_info(r), opt, energy, err);
	if (!state) {
		energy_source_close(energy);
		profile_reader_close(r);
		return -1;
	}
	while ((ret = profile_read_next(r, &rec, &read_err)) > 0) {
		if (ex->record(state, &rec, err) < 0) {
			ex->finish(state, res, NULL);
			energy_source_close(energy);
			profile_reader_close(r);
			return -1;
		}
		res->records++;
	}
	if (ret < 0) {
		res->partial = true;
		snprintf(res->dropped, sizeof(res->dropped),
			 "exported %" PRIu64 " records, dropped the rest: %s",
			 res->records, read_err.msg);
	}
	note_truncation(r, res);
	for (unsigned k = 0; k < PROFILE_REPAIR_KINDS; k++)
		res->repaired[k] = profile_reader_repaired(r, k);
	ret = ex->finish(state, res, err);	/* before close: state may use the info */
	energy_source_close(energy);
	profile_reader_close(r);
	if (ret < 0)
		return -1;
	return res->partial ? 1 : 0;
}

/* The samples (thread-samples and their clock samples) of input, and the
 * frames of their stacks; what cannot be read stops the count (the export
 * says why). */
static void count_samples(const char *input, uint64_t *samples, uint64_t *frames)
{
	struct profile_reader *r;
	struct profile_record rec;
	struct error err;

	*samples = *frames = 0;
	r = profile_reader_open(input, &err);
	if (!r)
		return;
	while (profile_read_next(r, &rec, &err) > 0) {
		if (rec.type != PROFILE_REC_SAMPLE)
			continue;
		for (uint32_t i = 0; i < rec.sample.nthreads; i++) {
			const struct profile_thread_sample *ts = &rec.sample.threads[i];

			*samples += 1 + ts->nclock;
			*frames += profile_stack_depth(rec.stacks, ts->chain);
			for (uint32_t k = 0; k < ts->nclock; k++)
				*frames += profile_stack_depth(rec.stacks, ts->clock[k].chain);
		}
	}
	profile_reader_close(r);
}

static void format_bytes(double bytes, char *out, size_t len)
{
	if (bytes >= 1e9)
		snprintf(out, len, "%.1f GB", bytes / 1e9);
	else
		snprintf(out, len, "%.1f MB", bytes / 1e6);
}

/* Say before writing it that the output will be large: from the samples
 * and stack depths of the profile, at the exporter's bytes per each. */
static void warn_large_output(const struct exporter *ex, const struct export_options *opt)
{
	uint64_t samples, frames;
	char size[32], limit[64] = "";
	struct stat st;
	double bytes;

	if (!ex->bytes_per_sample || stat(opt->input, &st) < 0)
		return;
	count_samples(opt->input, &samples, &frames);
	bytes = (double)samples * ex->bytes_per_sample + (double)frames * ex->bytes_per_frame;
	if (bytes < LARGE_OUTPUT_BYTES || bytes < (double)st.st_size * LARGE_OUTPUT_GROWTH)
		return;
	format_bytes(bytes, size, sizeof(size));
	if (opt->size_limit)
		snprintf(limit, sizeof(limit), " (now %" PRIu64 " bytes)", opt->size_limit);
	warn_print(EXPORT_PROG, "%s: about %s of %s output to write (%" PRIu64 " samples, %.1f "
		   "frames each, from a profile of %" PRIu64 " bytes); --max-size SIZE bounds it%s",
		   opt->input, size, ex->name, samples, samples ? (double)frames / (double)samples : 0,
		   (uint64_t)st.st_size, limit);
}

int export_profile(const struct exporter *ex, const struct export_options *opt,
		   struct export_result *res, struct error *err)
{
	struct export_options again = *opt;
	struct profile_input in = { .fd = -1 };
	int ret;

	memset(res, 0, sizeof(*res));
	if (!ex->reads_input_twice)
		return export_input(ex, opt, res, err);
	/* stdin or a pipe: read from a copy that can be read twice */
	if (profile_input_keep(opt->input, &in, err) < 0)
		return -1;
	again.input = in.path;
	warn_large_output(ex, &again);
	ret = export_input(ex, &again, res, err);
	profile_input_release(&in);
	return ret;
}
