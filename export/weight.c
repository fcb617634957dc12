/* weight.c - what a row weighs in a stack output (weight.h). */
#include <math.h>
#include <string.h>

#include "weight.h"

#define ANY_KIND -1

/* The profile channel of scope named name (NULL: the first), of kind
 * (ANY_KIND: of any). */
static int find_channel(const struct profile_info *info, const char *name, enum channel_scope scope,
			int kind, uint32_t *channel)
{
	for (uint32_t i = 0; i < info->nchannels && i < PROFILE_MAX_CHANNELS; i++) {
		const struct channel_desc *c = &info->channels[i];

		if (c->scope != scope || (kind != ANY_KIND && (int)c->kind != kind))
			continue;
		if (!name || strcmp(c->name, name) == 0) {
			*channel = i;
			return 0;
		}
	}
	return -1;
}

int weight_parse(struct weight *w, const struct profile_info *info, const char *spec,
		 const char *dflt, struct error *err)
{
	if (!spec)
		spec = dflt;
	w->channel = 0;
	if (strcmp(spec, "samples") == 0) {
		w->kind = WEIGHT_SAMPLES;
		w->unit = "samples";
	} else if (strcmp(spec, "cpu") == 0 || strcmp(spec, "wall") == 0) {
		w->kind = spec[0] == 'c' ? WEIGHT_CPU : WEIGHT_WALL;
		w->unit = "ns";
	} else if (strcmp(spec, "energy") == 0 || strncmp(spec, "energy:", 7) == 0) {
		const char *name = spec[6] ? spec + 7 : NULL;

		/* an energy meter's channel, else a power meter's (scpi, sensors) */
		if (find_channel(info, name, CHANNEL_PER_SAMPLE, CHANNEL_ENERGY, &w->channel) < 0 &&
		    find_channel(info, name, CHANNEL_PER_SAMPLE, CHANNEL_POWER, &w->channel) < 0)
			return error_set(err, "--weight %s: the profile has no %s%s energy or power channel (record with an energy plug-in such as -p rapl; --info lists the channels)",
					 spec, name ? "'" : "", name ? name : "");
		w->kind = WEIGHT_ENERGY;
		w->unit = "uJ";
	} else if (find_channel(info, spec, CHANNEL_PER_THREAD, ANY_KIND, &w->channel) == 0) {
		w->kind = WEIGHT_COUNTER;
		w->unit = info->channels[w->channel].name;
	} else {
		return error_set(err, "unknown --weight '%s' (use samples, cpu, wall, energy[:CHANNEL] or a counter channel of the profile)",
				 spec);
	}
	return 0;
}

double weight_of_row(const struct weight *w, struct rows *rows, const struct row *row)
{
	uint64_t count = 0;
	double value = 0;

	switch (w->kind) {
	case WEIGHT_SAMPLES:
		return row->exit || row->clock ? 0 : 1;
	case WEIGHT_CPU:
		return (double)row->cpu_delta_ns;
	case WEIGHT_WALL:
		return (double)row->wall_delta_ns;
	case WEIGHT_ENERGY:
		value = rows_energy(rows, row, w->channel) * 1e6;	/* uJ */
		return isnan(value) ? 0 : value;
	case WEIGHT_COUNTER:
		if (rows_cell(rows, row, w->channel, &count, &value) != ROW_CELL_COUNT)
			return 0;
		return (double)count;
	}
	return 0;
}
