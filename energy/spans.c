/* spans.c - the list of a meter's spans (estimator.h), which the meter
 * model (metermodel.c) and the node's shared meter (nodespans.c) both
 * add to: a file of its own so that neither calls the other for it. */
#include "estimator.h"

#include "../common/grow.h"

int add_span(struct est *e, double a0, double a, double b0, double b, double energy)
{
	if (GROW_ARRAY(e->meter.spans, e->meter.spans_cap, e->meter.nspans + 1) < 0)
		return -1;
	e->meter.spans[e->meter.nspans++] = (struct span){ a0, a, b0, b, energy };
	return 0;
}
