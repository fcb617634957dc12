/* powercount.h - a power meter's readings turned into an energy count, as
 * an integrating meter keeps it, for a meter that reports power only and
 * is polled faster than it updates (scpi's poll_hz=).
 *
 * A power meter's reading is the mean power of its last period, so each
 * update stands for the energy of the period before it: the count grows
 * at each update (a change of the reading) by the reading times the time
 * since the update before.  Holding a reading over the time after it
 * instead would blur every change of power by a period, a bias towards
 * the next function (2% on t2120's phases).  One thread feeds readings,
 * another takes the count; every call is safe from either. */
#ifndef SAMPLER_POWERCOUNT_H
#define SAMPLER_POWERCOUNT_H

struct power_count;

/* Readings more than gap_ns apart (the meter did not answer) leave the
 * time between them uncounted.  NULL when out of memory. */
struct power_count *power_count_new(long long gap_ns);
void power_count_free(struct power_count *c);

/* A reading of watts answered at t_ns (CLOCK_MONOTONIC); NaN: no reading
 * (not a number, a lost connection).  Returns the ns no poll saw (the
 * poller was held back more than one and a half of the meter's periods),
 * counted at the recent mean power; 0 mostly. */
long long power_count_feed(struct power_count *c, double watts, long long t_ns);

/* The energy (J) counted since the previous take: 0 when the meter has
 * not updated since, and for the first take (counting starts there); NaN
 * when the time since the previous take was not all counted (the meter
 * did not answer).  The next good take counts from the previous good one, as an
 * energy counter's next reading after a missing one does. */
double power_count_take(struct power_count *c);

#endif
