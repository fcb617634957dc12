/* attribution.c - the end rule, the choice of rule and integer periods
 * that keep totals (attribution.h; the trapezoid estimator is in
 * estimate.c, the derivation in docs/ENERGY.md). */
#include "attribution.h"

#include <math.h>
#include <string.h>

int energy_rule_parse(const char *name, enum energy_rule *rule, struct error *err)
{
	if (strcmp(name, "trapezoid") == 0)
		*rule = ENERGY_RULE_TRAPEZOID;
	else if (strcmp(name, "end") == 0)
		*rule = ENERGY_RULE_END;
	else
		return error_set(err, "unknown --energy-rule '%s' (use trapezoid or end)", name);
	return 0;
}

double attribute_energy(const struct profile_sample *s, double energy, double *shares)
{
	uint64_t total_cpu = 0;
	uint32_t i;

	if (isnan(energy) || s->nthreads == 0) {
		for (i = 0; i < s->nthreads; i++)
			shares[i] = 0;
		return 0;
	}
	for (i = 0; i < s->nthreads; i++)
		total_cpu += s->threads[i].cpu_delta_ns;
	for (i = 0; i < s->nthreads; i++) {
		if (total_cpu)
			shares[i] = energy * ((double)s->threads[i].cpu_delta_ns / (double)total_cpu);
		else
			shares[i] = energy / s->nthreads;
	}
	return energy;
}

uint64_t period_carry_take(struct period_carry *c, double amount)
{
	double rounded;
	uint64_t target, period;

	if (!(amount > 0))	/* also drops NaN */
		return 0;
	c->exact += amount;
	rounded = floor(c->exact + 0.5);
	target = rounded >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)rounded;
	if (target <= c->emitted)
		return 0;
	period = target - c->emitted;
	c->emitted = target;
	return period;
}
