/* sensors - hwmon power, energy, current and voltage inputs through
 * libsensors (which reads /sys itself and applies /etc/sensors3.conf).
 *
 * Without an argument every such input is recorded; `sampler -p help` lists
 * them.  Channel names are "CHIP/FEATURE" (acpi_power-virtual-0/power1).
 * Energy inputs are cumulative joules; they are turned into the energy
 * since the previous read like every other energy channel.
 *
 * libsensors keeps process-wide state, so at most one instance runs.
 */
#include "pmu.h"
#include "args.h"

#include <math.h>
#include <sensors/error.h>
#include <sensors/sensors.h>
#include <stdlib.h>
#include <string.h>

struct sensors_input {
	const sensors_chip_name *chip;
	int subfeature;		/* number for sensors_get_value() */
	int cumulative;		/* energy: report the difference */
	double last;
};

struct sensors {
	size_t n;
	struct sensors_input *inputs;
	struct channel_desc *channels;
};

/* What we record of each kind of feature; the first readable subfeature
 * wins (many power meters offer only power1_average). */
static const struct input_kind {
	sensors_feature_type feature;
	sensors_subfeature_type sub[2];
	enum channel_kind kind;
	const char *unit;
} input_kinds[] = {
	{ SENSORS_FEATURE_POWER, { SENSORS_SUBFEATURE_POWER_INPUT, SENSORS_SUBFEATURE_POWER_AVERAGE }, CHANNEL_POWER, "W" },
	{ SENSORS_FEATURE_ENERGY, { SENSORS_SUBFEATURE_ENERGY_INPUT, SENSORS_SUBFEATURE_ENERGY_INPUT }, CHANNEL_ENERGY, "J" },
	{ SENSORS_FEATURE_CURR, { SENSORS_SUBFEATURE_CURR_INPUT, SENSORS_SUBFEATURE_CURR_INPUT }, CHANNEL_CURRENT, "A" },
	{ SENSORS_FEATURE_IN, { SENSORS_SUBFEATURE_IN_INPUT, SENSORS_SUBFEATURE_IN_INPUT }, CHANNEL_VOLTAGE, "V" },
};

/* One usable input found by scanning. */
struct found_input {
	const sensors_chip_name *chip;
	const sensors_subfeature *sub;
	const struct input_kind *kind;
	char name[CHANNEL_NAME_MAX];
	char chip_name[CHANNEL_NAME_MAX];
};

static const struct input_kind *kind_of(const sensors_feature *feature)
{
	for (size_t k = 0; k < sizeof(input_kinds) / sizeof(input_kinds[0]); k++)
		if (input_kinds[k].feature == feature->type)
			return &input_kinds[k];
	return NULL;
}

static const sensors_subfeature *input_of(const sensors_chip_name *chip,
					  const sensors_feature *feature,
					  const struct input_kind *kind)
{
	for (int i = 0; i < 2; i++) {
		const sensors_subfeature *sub = sensors_get_subfeature(chip, feature, kind->sub[i]);

		if (sub && (sub->flags & SENSORS_MODE_R))
			return sub;
	}
	return NULL;
}

/* Visit every usable input; stop early when visit returns non-zero. */
static int for_each_input(int (*visit)(const struct found_input *in, void *ctx), void *ctx)
{
	const sensors_chip_name *chip;
	int chip_nr = 0;

	while ((chip = sensors_get_detected_chips(NULL, &chip_nr))) {
		const sensors_feature *feature;
		int feature_nr = 0;
		char chip_name[CHANNEL_NAME_MAX];

		if (sensors_snprintf_chip_name(chip_name, sizeof(chip_name), chip) < 0)
			continue;
		while ((feature = sensors_get_features(chip, &feature_nr))) {
			struct found_input in = { .chip = chip };
			int ret;

			in.kind = kind_of(feature);
			if (!in.kind || !(in.sub = input_of(chip, feature, in.kind)))
				continue;
			strcpy(in.chip_name, chip_name);
			ret = snprintf(in.name, sizeof(in.name), "%s/%s", chip_name, feature->name);
			if (ret < 0 || (size_t)ret >= sizeof(in.name))
				continue;
			ret = visit(&in, ctx);
			if (ret)
				return ret;
		}
	}
	return 0;
}

struct describe_ctx {
	char *out;
	size_t size, len;
	size_t count;
};

static int describe_one(const struct found_input *in, void *ctx)
{
	struct describe_ctx *d = ctx;

	if (d->len < d->size)
		d->len += snprintf(d->out + d->len, d->size - d->len, "%s%s (%s)",
				   d->count ? ", " : "", in->name, in->kind->unit);
	d->count++;
	return 0;
}

static size_t describe_inputs(char *out, size_t size)
{
	struct describe_ctx d = { out, size, 0, 0 };

	out[0] = '\0';
	for_each_input(describe_one, &d);
	return d.count;
}

struct select_ctx {
	struct sensors *sensors;
	const struct pmu_args *want;
	unsigned *matched;	/* per wanted item */
	int counting;		/* first pass: only count */
};

static int item_matches(const char *item, const struct found_input *in)
{
	return strcmp(item, in->name) == 0 || strcmp(item, in->chip_name) == 0;
}

static int select_one(const struct found_input *in, void *ctx)
{
	struct select_ctx *s = ctx;
	int take = s->want->n == 0;

	for (unsigned i = 0; i < s->want->n; i++) {
		if (item_matches(s->want->items[i], in)) {
			s->matched[i]++;
			take = 1;
		}
	}
	if (!take)
		return 0;
	if (!s->counting) {
		struct sensors_input *input = &s->sensors->inputs[s->sensors->n];
		struct channel_desc *ch = &s->sensors->channels[s->sensors->n];

		input->chip = in->chip;
		input->subfeature = in->sub->number;
		input->cumulative = in->kind->kind == CHANNEL_ENERGY;
		strcpy(ch->name, in->name);
		strcpy(ch->source, "sensors");
		strcpy(ch->unit, in->kind->unit);
		ch->scale = 1;
		ch->kind = in->kind->kind;
		ch->scope = CHANNEL_PER_SAMPLE;
	}
	s->sensors->n++;
	return 0;
}

static int no_such_input(const char *item, struct error *err)
{
	char known[400];

	if (describe_inputs(known, sizeof(known)) == 0)
		return error_set(err, "sensors: no hwmon power, energy, current or voltage input on this machine%s%s%s (libsensors finds none under /sys/class/hwmon; load your board's hwmon driver, see sensors-detect)",
				 item ? ", so no '" : "", item ? item : "", item ? "'" : "");
	return error_set(err, "sensors: no input '%s' (inputs here: %s; use -p sensors:CHIP/FEATURE,... or -p sensors:CHIP)",
			 item, known);
}

/* Two passes over the inputs: count (and check every wanted item exists),
 * then fill the channels. */
static int select_inputs(struct sensors *sensors, const struct pmu_args *want, struct error *err)
{
	struct select_ctx s = { sensors, want, NULL, 1 };
	int ret = 0;

	s.matched = calloc(want->n + 1, sizeof(*s.matched));
	if (!s.matched)
		return error_set(err, "sensors: out of memory");
	for_each_input(select_one, &s);
	for (unsigned i = 0; i < want->n && ret == 0; i++)
		if (!s.matched[i])
			ret = no_such_input(want->items[i], err);
	if (ret == 0 && sensors->n == 0)
		ret = no_such_input(NULL, err);
	if (ret == 0) {
		sensors->inputs = calloc(sensors->n, sizeof(*sensors->inputs));
		sensors->channels = calloc(sensors->n, sizeof(*sensors->channels));
		if (!sensors->inputs || !sensors->channels)
			ret = error_set(err, "sensors: out of memory");
	}
	if (ret == 0) {
		sensors->n = 0;
		s.counting = 0;
		for_each_input(select_one, &s);
	}
	free(s.matched);
	return ret;
}

static int library_init(struct error *err)
{
	int ret = sensors_init(NULL);

	if (ret)
		return error_set(err, "sensors: cannot initialise libsensors: %s (check /etc/sensors3.conf and that /sys is mounted)",
				 sensors_strerror(ret));
	return 0;
}

static void sensors_release(void *state)
{
	struct sensors *sensors = state;

	if (!sensors)
		return;
	free(sensors->inputs);
	free(sensors->channels);
	free(sensors);
	sensors_cleanup();
}

/* Take the first reading of cumulative inputs, so that the first sample
 * holds what was spent since init. */
static void read_baselines(struct sensors *sensors)
{
	for (size_t i = 0; i < sensors->n; i++) {
		struct sensors_input *in = &sensors->inputs[i];

		if (in->cumulative && sensors_get_value(in->chip, in->subfeature, &in->last))
			in->last = NAN;
	}
}

static int sensors_plugin_init(void **state, const char *args, struct error *err)
{
	struct pmu_args want;
	struct sensors *sensors;

	if (pmu_args_split(&want, "sensors", args, err) < 0)
		return -1;
	if (library_init(err) < 0) {
		pmu_args_free(&want);
		return -1;
	}
	sensors = calloc(1, sizeof(*sensors));
	if (!sensors || select_inputs(sensors, &want, err) < 0) {
		if (!sensors)
			error_set(err, "sensors: out of memory");
		pmu_args_free(&want);
		if (sensors)
			sensors_release(sensors);
		else
			sensors_cleanup();
		return -1;
	}
	pmu_args_free(&want);
	read_baselines(sensors);
	*state = sensors;
	return 0;
}

static size_t sensors_channels(void *state, const struct channel_desc **channels)
{
	struct sensors *sensors = state;

	*channels = sensors->channels;
	return sensors->n;
}

/* A value libsensors cannot read is a missing reading (NaN). */
static int sensors_read(void *state, double *values, struct error *err)
{
	struct sensors *sensors = state;

	(void)err;
	for (size_t i = 0; i < sensors->n; i++) {
		struct sensors_input *in = &sensors->inputs[i];
		double v;

		if (sensors_get_value(in->chip, in->subfeature, &v)) {
			values[i] = NAN;
			continue;
		}
		if (!in->cumulative) {
			values[i] = v;
			continue;
		}
		/* a counter that went back was reset: count from zero */
		values[i] = isnan(in->last) ? NAN : v >= in->last ? v - in->last : v;
		in->last = v;
	}
	return 0;
}

static void sensors_list(FILE *out)
{
	char known[1000];

	if (library_init(NULL) < 0)
		return;
	describe_inputs(known, sizeof(known));
	fprintf(out, "inputs: %s", known);
	sensors_cleanup();
}

const struct pmu_ops pmu_sensors = {
	.name = "sensors",
	.syntax = "sensors[:CHIP/FEATURE|CHIP,...]",
	.summary = "hwmon power/energy/current/voltage inputs via libsensors (default: all; -p help lists them)",
	.list = sensors_list,
	.single_instance = 1,
	.init = sensors_plugin_init,
	.channels = sensors_channels,
	.read = sensors_read,
	.release = sensors_release,
};
