/* grow-check.c - GROW_ARRAY against what it promises: every element kept
 * across growth, capacity at least doubling (so few reallocations), and a
 * request that would overflow refused with the array left as it was.
 * Prints key=value lines for t0011.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "../../common/grow.h"

int main(void)
{
	uint64_t *items = NULL;
	size_t cap = 0, n, grows = 0, lost = 0, last_cap = 0;
	int refused;

	for (n = 0; n < 1000000; n++) {
		if (GROW_ARRAY(items, cap, n + 1) < 0)
			return 1;
		if (cap != last_cap) {
			grows++;
			last_cap = cap;
		}
		items[n] = n * 2654435761u;
	}
	for (n = 0; n < 1000000; n++)
		lost += items[n] != n * 2654435761u;
	refused = GROW_ARRAY(items, cap, SIZE_MAX / 2) < 0;
	printf("elements=%zu lost=%zu grows=%zu cap_ok=%d overflow_refused=%d kept_cap=%d\n",
	       n, lost, grows, cap >= n, refused, cap == last_cap);
	free(items);
	return 0;
}
