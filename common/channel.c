#include "channel.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static const char *const kind_names[] = {
	[CHANNEL_ENERGY] = "energy",
	[CHANNEL_POWER] = "power",
	[CHANNEL_CURRENT] = "current",
	[CHANNEL_VOLTAGE] = "voltage",
	[CHANNEL_COUNTER] = "counter",
};

const char *channel_kind_name(enum channel_kind kind)
{
	if ((unsigned)kind >= sizeof(kind_names) / sizeof(kind_names[0]))
		return "unknown";
	return kind_names[kind];
}

bool channel_timing_ok(double ms)
{
	return ms >= 0 && ms <= CHANNEL_TIMING_MAX_MS;
}

int channel_kind_parse(const char *name, enum channel_kind *kind)
{
	for (unsigned i = 0; i < sizeof(kind_names) / sizeof(kind_names[0]); i++) {
		if (strcmp(name, kind_names[i]) == 0) {
			*kind = i;
			return 0;
		}
	}
	return -1;
}

static const char *const refused_names[] = {
	[CHANNEL_REFUSED_NONE] = "none",
	[CHANNEL_REFUSED_NOT_DECIMAL] = "not decimal",
	[CHANNEL_REFUSED_OVERLOAD] = "overload",
	[CHANNEL_REFUSED_RANGE] = "out of range",
	[CHANNEL_REFUSED_STEP] = "step",
	[CHANNEL_REFUSED_BACKWARDS] = "backwards",
};

const char *channel_refused_name(enum channel_refused_kind kind)
{
	if ((unsigned)kind >= CHANNEL_REFUSED_KINDS)
		return "unknown";
	return refused_names[kind];
}

uint64_t channel_refused_total(const struct channel_refused *r)
{
	uint64_t total = 0;

	for (int k = CHANNEL_REFUSED_NONE + 1; k < CHANNEL_REFUSED_KINDS; k++)
		total += r->n[k];
	return total;
}

void channel_refused_text(const struct channel_refused *r, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (int k = CHANNEL_REFUSED_NONE + 1; k < CHANNEL_REFUSED_KINDS && len < size; k++) {
		int n;

		if (!r->n[k])
			continue;
		n = snprintf(buf + len, size - len, "%s%" PRIu64 " %s", len ? ", " : "",
			     r->n[k], refused_names[k]);
		if (n < 0)
			return;
		len += (size_t)n;
	}
}

void channel_refused_warning(const struct channel_desc *c, const struct channel_refused *r,
			     char *buf, size_t size)
{
	char kinds[160];
	uint64_t total = channel_refused_total(r);

	buf[0] = '\0';
	if (!total)
		return;
	channel_refused_text(r, kinds, sizeof(kinds));
	snprintf(buf, size, "%s: channel '%s': %" PRIu64 " readings refused (%s): values the meter cannot stand for, left out of the energy; each one's update is filled as a missing one (docs/PLUGINS.md says what a reading must look like; declare the meter's range from its manual with max_w=)",
		 c->source, c->name, total, kinds);
}
