#include "export.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

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
	ret = export_input(ex, &again, res, err);
	profile_input_release(&in);
	return ret;
}
