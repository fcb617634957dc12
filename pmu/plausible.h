/* plausible.h - whether a meter's reading can stand for what it measures
 * (docs/PLUGINS.md, "What a meter's readings must look like").
 *
 * A reading is refused when its text is no decimal number, when it is one
 * of SCPI's overload codes (9.9E37, 9.91E37, NaN, inf), when it lies out
 * of the meter's range (a power above max_w=, or above any meter's), when
 * it is a lone spike far above the recent readings (a step), and for an
 * integrating meter when its count went back.  A refused reading is a
 * missing one: an integrating meter keeps its baseline, so the next good
 * count carries the energy of the refused update; a count off once and
 * right again costs that update only.  A spike that persists (the power
 * really rose) is kept from its PLAUSIBLE_PERSIST-th reading on.
 *
 * One thread checks; the tally may be taken from another. */
#ifndef SAMPLER_PLAUSIBLE_H
#define SAMPLER_PLAUSIBLE_H

#include <stdbool.h>

#include "../common/channel.h"

/* A spike above the learned bound this many readings in a row is a real
 * change of power: the last one is kept, and the bound follows it. */
#define PLAUSIBLE_PERSIST 3

/* The highest power any meter may report, with no max_w= given (W). */
#define PLAUSIBLE_CEILING_W 1e7

/* The text of one reading, as SCPI instruments print them ("12.5",
 * "+1.250E+01"): 0 and *value; CHANNEL_REFUSED_OVERLOAD for SCPI's
 * overload codes (*value NaN); CHANNEL_REFUSED_NOT_DECIMAL for anything
 * but one decimal number (hex, text, several numbers). */
int reading_parse(const char *text, double *value);

struct plausible;

/* learn: judge power against the recent readings (power and energy;
 * current and voltage are signed and are checked for range only).
 * max_w: the meter's largest power (0: none declared); update_s its
 * update period (0: measured from the counts).  NULL when out of memory. */
struct plausible *plausible_new(bool learn, double max_w, double update_s);
void plausible_free(struct plausible *p);

/* Count a refusal of that kind (the parser's verdicts). */
void plausible_refuse(struct plausible *p, enum channel_refused_kind kind);

/* A power reading: 0 when it can stand, or the kind it was refused as
 * (counted). */
int plausible_power(struct plausible *p, double watts);

/* An integrating meter's count answered at t_ns: the energy since the
 * last good count into *delta (NaN for the first count, a baseline
 * only), and 0; or the kind it was refused as (counted; *delta NaN; the
 * baseline kept).  *rebased_at is the count the counter went on from
 * when it was reset or jumped (the update between missing), else NaN. */
int plausible_count(struct plausible *p, double count, long long t_ns, double *delta,
		    double *rebased_at);

/* The refusals so far, by kind. */
void plausible_tally(const struct plausible *p, struct channel_refused *out);

#endif
