/* channel.h - what one PMU reading is: shared by pmu/ (which produces
 * readings) and profile/ (which stores them), so neither includes the other. */
#ifndef SAMPLER_CHANNEL_H
#define SAMPLER_CHANNEL_H

#include <stdbool.h>

enum channel_kind {
	CHANNEL_ENERGY,		/* value = energy spent since the previous sample */
	CHANNEL_POWER,		/* value = instantaneous power at the sample */
	CHANNEL_CURRENT,	/* value = instantaneous current */
	CHANNEL_VOLTAGE,	/* value = instantaneous voltage */
	CHANNEL_COUNTER,	/* value = events since the thread's previous sample */
};

enum channel_scope {
	CHANNEL_PER_SAMPLE,	/* one double per sample (NaN: reading missing) */
	CHANNEL_PER_THREAD,	/* one uint64 per thread-sample (counters) */
};

/* Most channels in one run: what a profile holds (PROFILE_MAX_CHANNELS);
 * the PMU layer refuses more before the target starts. */
#define CHANNEL_MAX_PER_RUN 64

#define CHANNEL_NAME_MAX 64
#define CHANNEL_SOURCE_MAX 32
#define CHANNEL_UNIT_MAX 16

struct channel_desc {
	char name[CHANNEL_NAME_MAX];	 /* "package-0", "instructions" */
	char source[CHANNEL_SOURCE_MAX]; /* plug-in that made it: "rapl" */
	char unit[CHANNEL_UNIT_MAX];	 /* "uJ", "W", "A", "V", "" for counts */
	double scale;			 /* value * scale = SI unit (J, W, A, V); 1 for counts */
	enum channel_kind kind;
	enum channel_scope scope;
	/* A meter's timing as its plug-in was told it (scpi's update_ms= and
	 * delay_ms=): the energy estimate takes it instead of measuring it. */
	bool has_update, has_delay;
	double update_ms;		/* the meter's interval between updates */
	double delay_ms;		/* how late its readings reflect the power */
};

/* The longest update interval or delay a meter may declare (a minute). */
#define CHANNEL_TIMING_MAX_MS 60000.0

const char *channel_kind_name(enum channel_kind kind);	/* "energy", ... */
/* Whether ms is a timing a meter may declare: 0 to CHANNEL_TIMING_MAX_MS. */
bool channel_timing_ok(double ms);
int channel_kind_parse(const char *name, enum channel_kind *kind); /* 0 or -1 */

#endif
