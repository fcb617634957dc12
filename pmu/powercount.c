/* powercount.c - power readings counted as energy, update by update
 * (powercount.h).
 *
 * An update is a reading that differs from the one before; it counts its
 * power for the time since the last update, which is the meter's period
 * give or take the time between two polls.  So the counted time is the
 * time itself, whatever the polls' jitter, and the run's count adds up.
 * (A first try counted each update as its power times the meter's period
 * as estimated: where the estimate came out long, an update seen one poll
 * after the one before counted a whole period, and a loaded run came out
 * 1.7% over.)  A reading that stays the same longer than one and a half
 * periods (the median of the last spacings of updates) was updated again
 * unseen: its whole periods are counted then.  Until three spacings are
 * seen, and for a reading that never changes, each reading counts from
 * its poll to the next. */
#include "powercount.h"

#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define SPACINGS 15	/* spacings the period is the median of */
/* Spacings before the period is trusted (until then a reading that stays
 * the same counts from poll to poll). */
#define MIN_SPACINGS 3

struct power_count {
	pthread_mutex_t lock;
	long long gap_ns;
	double count;		/* J until counted_ns */
	double watts;		/* the last reading; NaN: none */
	long long counted_ns;	/* the counted time ends there */
	long long change_ns;	/* the last change of the reading; 0: none yet */
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

/* Count the reading from the end of the counted time to t_ns. */
static void count_until(struct power_count *c, long long t_ns)
{
	c->count += c->watts * (double)(t_ns - c->counted_ns) * 1e-9;
	c->counted_ns = t_ns;
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
		c->counted_ns = t_ns;
		c->change_ns = 0;
	} else if (watts != c->watts) {	/* an update: the power since the last one */
		if (c->change_ns)
			add_spacing(c, t_ns - c->change_ns);
		c->change_ns = t_ns;
		c->watts = watts;
		count_until(c, t_ns);
	} else if (c->nspacing < MIN_SPACINGS) {
		count_until(c, t_ns);	/* no period known: from poll to poll */
	} else if (t_ns - c->counted_ns >= c->period_ns * 3 / 2) {
		/* the same power, updated again unseen: its whole periods */
		count_until(c, c->counted_ns + (t_ns - c->counted_ns) / c->period_ns * c->period_ns);
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
