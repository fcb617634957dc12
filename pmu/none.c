/* none - the default plug-in: no PMU data, only TID, PC and CPU time. */
#include "pmu.h"

static int none_init(void **state, const char *args, struct error *err)
{
	if (args && *args)
		return error_set(err, "none: takes no argument, got '%s' (use -p none)", args);
	*state = NULL;
	return 0;
}

static size_t none_channels(void *state, const struct channel_desc **channels)
{
	(void)state;
	*channels = NULL;
	return 0;
}

static void none_release(void *state)
{
	(void)state;
}

const struct pmu_ops pmu_none = {
	.name = "none",
	.syntax = "none",
	.summary = "no PMU data: TID, PC and CPU time only (default)",
	.init = none_init,
	.channels = none_channels,
	.release = none_release,
};
