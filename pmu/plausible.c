/* plausible.c - refusing the readings a meter cannot stand for
 * (plausible.h).
 *
 * The learned bound: a power more than 10 times the 90th percentile of
 * the last WINDOW good readings, plus 1 W, is a spike.  A percentile,
 * so that a lone spike cannot move it (three of 31 readings may be
 * anything); not the median, because a meter's power may be mostly near
 * 0 W with bursts (t2120's polled meter read 0-0.1 W half the time and
 * 5-6 W between: a bound of 10 x (median + 5 MAD) refused 2-26 good
 * readings a run and put the count 5-12% over).  While the percentile is
 * 0 W (a meter before the load came on: t2125's read 0 W, then 1.26 W)
 * there is no level to judge by.  The margin is wide because a meter's
 * readings follow the load (t2120's phases go from 5 W to 28 W within
 * 10 ms: after 31 readings of 5 W the bound is 51 W).  An integrating meter's count is judged as the
 * power it implies: the step over the time since the last good count, or
 * over the meter's update period when that is longer (a count changes
 * only at an update: one seen 0.1 ms after the previous count carries a
 * whole period's energy). */
#include "plausible.h"

#include <ctype.h>
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define SCPI_OVERLOAD 9.9e37	/* SCPI's overrange; 9.91e37 is its NaN */
#define WINDOW 31		/* good readings the bound is learned from */
#define MIN_WINDOW 8		/* readings before the bound is used */
#define SPIKE_FACTOR 10.0
#define SPIKE_QUANTILE 90	/* percentile of the window the bound is a multiple of */
#define SPIKE_FLOOR_W 1.0	/* so that a meter at a low level may rise */
#define SPACINGS 15		/* count changes the update period is the median of */
#define MIN_SPACINGS 3
/* A count is judged by the power it implies since a good count at least
 * this long before it (the last good count is judged from when the last
 * ones are closer): one answer that reached the sampler 30 ms late made
 * the next count, 1 ms later, seem to carry 31 ms of energy */
#define COUNT_SPAN_NS 20000000LL
#define RECENT 16		/* good counts kept to find that one among */

struct plausible {
	bool learn;
	double max_w, update_s;
	double window[WINDOW];
	unsigned nwindow, next;
	double pending[PLAUSIBLE_PERSIST - 1];	/* the last spikes in a row */
	unsigned npending;
	/* integrating: the last good count, and the last refused one (the
	 * counter's new value if it was reset or jumped) */
	bool have_base, have_cand;
	double base, cand;
	long long base_ns, cand_ns;
	long long change_ns;	/* the last change of the count; 0: none yet */
	long long spacing[SPACINGS];
	unsigned nspacing, next_spacing;
	struct {
		double count;
		long long ns;
	} recent[RECENT];	/* the last good counts, oldest first from next_recent */
	unsigned nrecent, next_recent;
	atomic_ullong refused[CHANNEL_REFUSED_KINDS];
};

/* ---- parsing ---------------------------------------------------------------- */

static const char *skip_digits(const char *s)
{
	while (isdigit((unsigned char)*s))
		s++;
	return s;
}

/* Does s hold one decimal number ([+-]D[.D][E[+-]D]) and nothing else? */
static bool decimal(const char *s)
{
	const char *start;

	if (*s == '+' || *s == '-')
		s++;
	start = s;
	s = skip_digits(s);
	if (*s == '.')
		s = skip_digits(s + 1);
	if (s == start || (s == start + 1 && *start == '.'))
		return false;
	if (*s == 'e' || *s == 'E') {
		s++;
		if (*s == '+' || *s == '-')
			s++;
		if (!isdigit((unsigned char)*s))
			return false;
		s = skip_digits(s);
	}
	return *s == '\0';
}

/* NaN, inf, infinity, with a sign or not, any case */
static bool overload_word(const char *s)
{
	if (*s == '+' || *s == '-')
		s++;
	return strcasecmp(s, "nan") == 0 || strcasecmp(s, "inf") == 0 ||
	       strcasecmp(s, "infinity") == 0;
}

int reading_parse(const char *text, double *value)
{
	char buf[64];
	size_t len;

	*value = NAN;
	while (*text == ' ' || *text == '\t')
		text++;
	len = strlen(text);
	while (len && (text[len - 1] == ' ' || text[len - 1] == '\t'))
		len--;
	if (len == 0 || len >= sizeof(buf))
		return CHANNEL_REFUSED_NOT_DECIMAL;
	memcpy(buf, text, len);
	buf[len] = '\0';
	if (overload_word(buf))
		return CHANNEL_REFUSED_OVERLOAD;
	if (!decimal(buf))
		return CHANNEL_REFUSED_NOT_DECIMAL;
	*value = strtod(buf, NULL);
	if (!isfinite(*value) || fabs(*value) >= SCPI_OVERLOAD * 0.999) {
		*value = NAN;
		return CHANNEL_REFUSED_OVERLOAD;
	}
	return 0;
}

/* ---- the state -------------------------------------------------------------- */

struct plausible *plausible_new(bool learn, double max_w, double update_s)
{
	struct plausible *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->learn = learn;
	p->max_w = max_w;
	p->update_s = update_s;
	for (int k = 0; k < CHANNEL_REFUSED_KINDS; k++)
		atomic_init(&p->refused[k], 0);
	return p;
}

void plausible_free(struct plausible *p)
{
	free(p);
}

void plausible_refuse(struct plausible *p, enum channel_refused_kind kind)
{
	if (kind > CHANNEL_REFUSED_NONE && kind < CHANNEL_REFUSED_KINDS)
		atomic_fetch_add(&p->refused[kind], 1);
}

void plausible_tally(const struct plausible *p, struct channel_refused *out)
{
	for (int k = 0; k < CHANNEL_REFUSED_KINDS; k++)
		out->n[k] = atomic_load(&p->refused[k]);
}

/* ---- the learned bound ------------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, unsigned n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The power above which a reading is a spike (INFINITY until learned). */
static double spike_bound(const struct plausible *p)
{
	double v[WINDOW], high;

	if (!p->learn || p->nwindow < MIN_WINDOW)
		return INFINITY;
	memcpy(v, p->window, p->nwindow * sizeof(*v));
	qsort(v, p->nwindow, sizeof(*v), cmp_double);
	high = v[p->nwindow * SPIKE_QUANTILE / 100];
	if (high <= 0)		/* no level yet (a meter before the load) */
		return INFINITY;
	return SPIKE_FACTOR * high + SPIKE_FLOOR_W;
}

static void remember(struct plausible *p, double watts)
{
	p->window[p->next] = watts;
	p->next = (p->next + 1) % WINDOW;
	if (p->nwindow < WINDOW)
		p->nwindow++;
}

/* The spikes so far and this one are of one level (within a factor 4):
 * the power rose and stays. */
static bool persists(const struct plausible *p, double watts)
{
	double lo = watts, hi = watts;

	if (p->npending + 1 < PLAUSIBLE_PERSIST)
		return false;
	for (unsigned i = 0; i < p->npending; i++) {
		lo = fmin(lo, p->pending[i]);
		hi = fmax(hi, p->pending[i]);
	}
	return hi <= 4 * lo;
}

/* Judge a power against the learned bound, without changing anything:
 * 0 or CHANNEL_REFUSED_STEP.  level: a spike that persists is a new level
 * of power. */
static int judge(const struct plausible *p, double watts, bool level)
{
	if (watts <= spike_bound(p) || (level && persists(p, watts)))
		return 0;
	return CHANNEL_REFUSED_STEP;
}

/* What the verdict teaches: a good reading joins the window (a persisting
 * level replaces it), a spike waits to be confirmed. */
static void learn(struct plausible *p, double watts, int verdict)
{
	if (!p->learn)
		return;
	if (verdict == CHANNEL_REFUSED_STEP) {
		if (p->npending == PLAUSIBLE_PERSIST - 1) {	/* keep the latest */
			memmove(p->pending, p->pending + 1, (PLAUSIBLE_PERSIST - 2) * sizeof(double));
			p->npending--;
		}
		p->pending[p->npending++] = watts;
		return;
	}
	if (verdict)
		return;
	if (watts > spike_bound(p)) {	/* a new level: forget the old one */
		p->nwindow = p->next = 0;
		for (unsigned i = 0; i < p->npending; i++)
			remember(p, p->pending[i]);
	}
	p->npending = 0;
	remember(p, watts);
}

int plausible_power(struct plausible *p, double watts)
{
	int verdict;

	if (fabs(watts) > (p->max_w > 0 ? p->max_w : PLAUSIBLE_CEILING_W))
		verdict = CHANNEL_REFUSED_RANGE;
	else
		verdict = watts > 0 ? judge(p, watts, true) : 0;
	learn(p, watts, verdict);
	plausible_refuse(p, verdict);
	return verdict;
}

/* ---- integrating meters ------------------------------------------------------- */

/* The meter's update period (s): as declared, else the median spacing of
 * the last count changes (0 until known). */
static double update_period(const struct plausible *p)
{
	double v[SPACINGS];

	if (p->update_s > 0)
		return p->update_s;
	if (p->nspacing < MIN_SPACINGS)
		return 0;
	for (unsigned i = 0; i < p->nspacing; i++)
		v[i] = (double)p->spacing[i] * 1e-9;
	return median(v, p->nspacing);
}

static void add_spacing(struct plausible *p, long long ns)
{
	p->spacing[p->next_spacing] = ns;
	p->next_spacing = (p->next_spacing + 1) % SPACINGS;
	if (p->nspacing < SPACINGS)
		p->nspacing++;
}

/* A step of joules over ns since the count it is taken from: 0, or why it
 * cannot be.  The power it implies into *watts.  level: as judge(). */
static int judge_step(const struct plausible *p, double joules, long long ns, double *watts,
		      bool level)
{
	double dt = (double)(ns > 0 ? ns : 0) * 1e-9, period = update_period(p);
	double max_w = p->max_w > 0 ? p->max_w : PLAUSIBLE_CEILING_W;

	*watts = joules > 0 ? joules / fmax(fmax(dt, period), 1e-6) : 0;
	if (joules > max_w * (dt + period) * 1.001 + 1e-9)
		return CHANNEL_REFUSED_RANGE;
	return joules > 0 ? judge(p, *watts, level) : 0;
}

static void remember_count(struct plausible *p, double count, long long t_ns)
{
	p->recent[p->next_recent].count = count;
	p->recent[p->next_recent].ns = t_ns;
	p->next_recent = (p->next_recent + 1) % RECENT;
	if (p->nrecent < RECENT)
		p->nrecent++;
}

/* The good count a new one at t_ns is judged from: the latest at least
 * COUNT_SPAN_NS before it, else the oldest kept. */
static unsigned judged_from(const struct plausible *p, long long t_ns)
{
	unsigned oldest = (p->next_recent + RECENT - p->nrecent) % RECENT;

	for (unsigned k = 1; k <= p->nrecent; k++) {
		unsigned i = (p->next_recent + RECENT - k) % RECENT;

		if (t_ns - p->recent[i].ns >= COUNT_SPAN_NS)
			return i;
	}
	return oldest;
}

/* The count becomes the baseline, the energy since the old one *delta. */
static void accept_count(struct plausible *p, double count, long long t_ns, double from,
			 double *delta)
{
	*delta = count - from;
	remember_count(p, count, t_ns);
	if (count != p->base) {
		if (p->change_ns && t_ns > p->change_ns)
			add_spacing(p, t_ns - p->change_ns);
		p->change_ns = t_ns;
	}
	p->base = count;
	p->base_ns = t_ns;
	p->have_cand = false;
}

int plausible_count(struct plausible *p, double count, long long t_ns, double *delta,
		    double *rebased_at)
{
	int verdict = CHANNEL_REFUSED_BACKWARDS;
	double watts, cand_watts;

	*delta = NAN;
	*rebased_at = NAN;
	if (!p->have_base) {	/* the first count: a baseline only */
		p->have_base = true;
		p->base = count;
		p->base_ns = t_ns;
		remember_count(p, count, t_ns);
		return 0;
	}
	if (count >= p->base) {
		unsigned from = judged_from(p, t_ns);

		verdict = judge_step(p, count - p->recent[from].count, t_ns - p->recent[from].ns,
				     &watts, true);
		if (verdict || count > p->base)	/* (no update: no power to learn) */
			learn(p, watts, verdict);
		if (!verdict) {
			accept_count(p, count, t_ns, p->base, delta);
			return 0;
		}
	}
	if (p->have_cand && count >= p->cand &&
	    !judge_step(p, count - p->cand, t_ns - p->cand_ns, &cand_watts, false)) {
		learn(p, cand_watts, 0);
		if (verdict == CHANNEL_REFUSED_STEP) {
			/* the count before was no spike after all (a rise of
			 * power, or a late answer): all of it counts */
			p->npending = 0;
			accept_count(p, count, t_ns, p->base, delta);
			return 0;
		}
		/* beyond any power, or back: the counter was reset or
		 * jumped to the refused count, and counting goes on from it */
		*rebased_at = p->cand;
		p->nrecent = 0;
		remember_count(p, p->cand, p->cand_ns);
		accept_count(p, count, t_ns, p->cand, delta);
		return 0;
	}
	p->have_cand = true;
	p->cand = count;
	p->cand_ns = t_ns;
	plausible_refuse(p, verdict);
	return verdict;
}
