/* powercount.c - power readings counted as energy, update by update
 * (powercount.h).
 *
 * An update is a reading that differs from the one before.  It counts its
 * power times the meter's period; when the time since the last update is
 * several periods (a reading that stayed the same, or updates missed),
 * times as many periods.  The period is the median of the last spacings
 * between updates: a spacing is the period give or take the time between
 * two polls, and a median ignores the few that spanned two periods.  Until
 * three spacings are seen (and for a reading that never changes) each
 * reading counts from its poll to the next. */
#include "powercount.h"

#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define SPACINGS 15	/* spacings the period is the median of */
/* Spacings before the period is trusted (until then each reading is held
 * until the next): the first one may span a long constant reading (0 W
 * before the workload started). */
#define MIN_SPACINGS 3

struct power_count {
	pthread_mutex_t lock;
	long long gap_ns;
	double count;		/* J until the last update */
	double watts;		/* the last reading; NaN: none */
	long long update_ns;	/* the last update (the counted time ends there) */
	long long change_ns;	/* the last change of the reading */
	long long answer_ns;	/* the last answer of any value */
	long long spacing[SPACINGS];
	unsigned nspacing, next_spacing;
	long long period_ns;	/* 0: not known yet */
	bool lapsed;		/* time went uncounted since the last good take */
	bool have_base;
	double base;		/* the count at the last good take */
};

struct power_count *power_count_new(long long gap_ns)
{
	struct power_count *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	if (pthread_mutex_init(&c->lock, NULL) != 0) {
		free(c);
		return NULL;
	}
	c->gap_ns = gap_ns;
	c->watts = NAN;
	return c;
}

void power_count_free(struct power_count *c)
{
	if (!c)
		return;
	pthread_mutex_destroy(&c->lock);
	free(c);
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return (x > y) - (x < y);
}

static void add_spacing(struct power_count *c, long long ns)
{
	long long sorted[SPACINGS];

	c->spacing[c->next_spacing] = ns;
	c->next_spacing = (c->next_spacing + 1) % SPACINGS;
	if (c->nspacing < SPACINGS)
		c->nspacing++;
	memcpy(sorted, c->spacing, c->nspacing * sizeof(*sorted));
	qsort(sorted, c->nspacing, sizeof(*sorted), cmp_ll);
	c->period_ns = sorted[c->nspacing / 2];
}

/* Count the reading for the periods since the last update: at a new
 * update (at t_ns) the nearest whole number of them, at least one; for the
 * same reading seen again (no update), those surely over, and the last
 * update moves on by them. */
static void count_periods(struct power_count *c, long long t_ns, bool update)
{
	long long since = t_ns - c->update_ns;
	long long periods = update ? (since + c->period_ns / 2) / c->period_ns
				   : since / c->period_ns;

	if (update && periods < 1)
		periods = 1;
	c->count += c->watts * (double)(periods * c->period_ns) * 1e-9;
	c->update_ns = update ? t_ns : c->update_ns + periods * c->period_ns;
}

void power_count_feed(struct power_count *c, double watts, long long t_ns)
{
	pthread_mutex_lock(&c->lock);
	if (isnan(watts) || (c->answer_ns && t_ns - c->answer_ns > c->gap_ns)) {
		/* the meter was lost: start again from its next reading */
		c->lapsed = c->lapsed || !isnan(c->watts);
		c->watts = NAN;
	}
	if (isnan(watts) || t_ns < c->answer_ns) {
		pthread_mutex_unlock(&c->lock);
		return;
	}
	c->answer_ns = t_ns;
	if (isnan(c->watts)) {		/* the first reading: its period began unseen */
		c->watts = watts;
		c->update_ns = c->change_ns = t_ns;
	} else if (c->nspacing < MIN_SPACINGS) {
		/* the period not known yet: each reading held until the next */
		c->count += c->watts * (double)(t_ns - c->update_ns) * 1e-9;
		c->update_ns = t_ns;
		if (watts != c->watts) {
			add_spacing(c, t_ns - c->change_ns);
			c->change_ns = t_ns;
			c->watts = watts;
		}
	} else if (watts != c->watts) {	/* an update: the power of the period before it */
		add_spacing(c, t_ns - c->update_ns);
		c->watts = watts;
		count_periods(c, t_ns, true);
	} else if (t_ns - c->update_ns >= c->period_ns * 3 / 2) {
		count_periods(c, t_ns, false);	/* the same power, updated again */
	}
	pthread_mutex_unlock(&c->lock);
}

double power_count_take(struct power_count *c)
{
	double energy;

	pthread_mutex_lock(&c->lock);
	if (!c->have_base) {
		energy = 0;	/* counting starts here */
		c->base = c->count;
		c->have_base = true;
		c->lapsed = false;
	} else if (c->lapsed || isnan(c->watts)) {
		energy = NAN;	/* the base stays: the next good take covers both */
		c->lapsed = false;
	} else {
		energy = c->count - c->base;
		c->base = c->count;
	}
	pthread_mutex_unlock(&c->lock);
	return energy;
}
