#include "channel.h"

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
