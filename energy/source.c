/* source.c - the one owner of the energy rule (energy.h): the trapezoid
 * estimate where it was built, else the end rule (attribution.c). */
#include "energy.h"

#include <math.h>
#include <stdlib.h>

struct energy_source {
	const struct profile_info *info;
	const char *input;
	struct energy_options opt;
	bool prepared;
	bool estimated;			/* estimate holds the trapezoid rule's energy */
	struct energy_estimate estimate;
};

struct energy_source *energy_source_open(const struct profile_info *info, const char *input,
					 const struct energy_options *opt, struct error *err)
{
	struct energy_source *src = calloc(1, sizeof(*src));

	if (!src) {
		error_set(err, "out of memory for the energy source");
		return NULL;
	}
	src->info = info;
	src->input = input;
	src->opt = *opt;
	return src;
}

void energy_source_close(struct energy_source *src)
{
	if (!src)
		return;
	energy_estimate_free(&src->estimate);
	free(src);
}

static bool has_energy(const struct profile_info *info)
{
	for (uint32_t k = 0; k < info->nsample_channels; k++) {
		enum channel_kind kind = info->channels[info->sample_channel[k]].kind;

		if (kind == CHANNEL_ENERGY || kind == CHANNEL_POWER)
			return true;
	}
	return false;
}

/* What the estimate keeps for the model variance, when nobody asks. */
static void forget_variance(struct energy_estimate *est)
{
	free(est->xfer_var);
	free(est->prev);
	free(est->next);
	free(est->pc);
	est->xfer_var = NULL;
	est->prev = est->next = NULL;
	est->pc = NULL;
}

int energy_source_prepare(struct energy_source *src, struct error *err)
{
	const struct energy_options *o = &src->opt;
	int built;

	if (src->prepared)
		return 0;
	src->prepared = true;
	if (o->rule != ENERGY_RULE_TRAPEZOID || !src->input || !has_energy(src->info))
		return 0;
	built = energy_estimate_build(&src->estimate, src->input, o->peers, o->npeers, src->info,
				      o->meters, o->nmeters, o->prog, err);
	if (built < 0)
		return -1;
	src->estimated = built == 0;
	if (src->estimated && o->no_variance)
		forget_variance(&src->estimate);
	return 0;
}

bool energy_source_estimated(const struct energy_source *src)
{
	return src && src->estimated;
}

const struct meter_model *energy_source_meter(const struct energy_source *src, uint32_t k)
{
	if (!energy_source_estimated(src) || k >= PROFILE_MAX_CHANNELS)
		return NULL;
	return &src->estimate.meter[k];
}

enum energy_rule energy_source_sample(const struct energy_source *src, size_t index,
				      const struct profile_sample *s, uint64_t wall_ns, uint32_t k,
				      double *out)
{
	const struct profile_info *info = src->info;
	enum channel_kind kind = info->channels[info->sample_channel[k]].kind;

	if (src->estimated && energy_estimate_row(&src->estimate, index, k, s->nthreads, out))
		return ENERGY_RULE_TRAPEZOID;
	if (kind == CHANNEL_POWER)
		attribute_energy(s, s->values[k] * (double)wall_ns * 1e-9, out);
	else
		attribute_energy(s, s->values[k], out);
	return ENERGY_RULE_END;
}

double energy_source_model_var(const struct energy_source *src, size_t index, uint32_t thread,
			       uint32_t k, bool (*same)(void *arg, uint64_t a, uint64_t b),
			       void *arg)
{
	if (!src->estimated || !src->estimate.xfer_var)
		return NAN;
	return energy_estimate_model_var(&src->estimate, index, thread, k, same, arg);
}
