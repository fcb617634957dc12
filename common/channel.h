/* channel.h - what one PMU reading is: shared by pmu/ (which produces
 * readings) and profile/ (which stores them), so neither includes the other. */
#ifndef SAMPLER_CHANNEL_H
#define SAMPLER_CHANNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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
	/* A reading is the meter's latest answer when the sample read it
	 * (scpi's meter thread); without it an scpi power reading answers
	 * the query sent after the previous sample (older profiles). */
	bool reads_latest;
};

/* The longest update interval or delay a meter may declare (a minute). */
#define CHANNEL_TIMING_MAX_MS 60000.0

/* Why a meter's reading was refused (pmu/plausible.h): it is then a
 * missing reading.  NONE is no refusal. */
enum channel_refused_kind {
	CHANNEL_REFUSED_NONE,
	CHANNEL_REFUSED_NOT_DECIMAL,	/* no decimal number: text, hex */
	CHANNEL_REFUSED_OVERLOAD,	/* SCPI's 9.9E37, 9.91E37, NaN, inf */
	CHANNEL_REFUSED_RANGE,		/* beyond the meter's range (max_w=) */
	CHANNEL_REFUSED_STEP,		/* a lone spike far above the recent readings */
	CHANNEL_REFUSED_BACKWARDS,	/* an energy count below the one before */
	CHANNEL_REFUSED_KINDS
};

/* A channel's refused readings, by kind (n[CHANNEL_REFUSED_NONE] unused). */
struct channel_refused {
	uint64_t n[CHANNEL_REFUSED_KINDS];
};

const char *channel_refused_name(enum channel_refused_kind kind);	/* "overload", ... */
uint64_t channel_refused_total(const struct channel_refused *r);
/* "2 overload, 1 step" into buf (empty when none). */
void channel_refused_text(const struct channel_refused *r, char *buf, size_t size);
/* The one line that says what a channel's refusals were (for the end of
 * a run; empty when none). */
void channel_refused_warning(const struct channel_desc *c, const struct channel_refused *r,
			     char *buf, size_t size);

const char *channel_kind_name(enum channel_kind kind);	/* "energy", ... */
/* Whether ms is a timing a meter may declare: 0 to CHANNEL_TIMING_MAX_MS. */
bool channel_timing_ok(double ms);
int channel_kind_parse(const char *name, enum channel_kind *kind); /* 0 or -1 */

#endif
