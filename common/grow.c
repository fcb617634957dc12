/* grow.c - growing arrays: doubling, overflow checked, unchanged on failure. */
#include "grow.h"

#include <stdint.h>
#include <stdlib.h>

int grow_array(void **items, size_t *cap, size_t need, size_t elem)
{
	size_t n = *cap > 8 ? *cap : 8;
	void *grown;

	if (need <= *cap)
		return 0;
	while (n < need) {
		if (n > SIZE_MAX / 2)
			return -1;
		n *= 2;
	}
	if (elem && n > SIZE_MAX / elem)
		return -1;
	grown = realloc(*items, n * elem);
	if (!grown)
		return -1;
	*items = grown;
	*cap = n;
	return 0;
}
