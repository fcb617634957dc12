/* intern.c - distinct keys, numbered in the order they come (intern.h). */
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "hash.h"
#include "intern.h"

static uint64_t key_hash(const void *p, size_t n)
{
	return hash_bytes(HASH_SEED, p, n);
}

void intern_free(struct intern *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->keys[i]);
	free(t->keys);
	free(t->lens);
	free(t->slots);
	memset(t, 0, sizeof(*t));
}

static int grow_slots(struct intern *t)
{
	size_t cap = t->nslots ? t->nslots * 2 : 1024;
	uint32_t *slots;

	if (cap > (size_t)UINT32_MAX || !(slots = calloc(cap, sizeof(*slots))))
		return -1;
	for (size_t i = 0; i < t->n; i++) {
		size_t j = key_hash(t->keys[i], t->lens[i]) & (cap - 1);

		while (slots[j])
			j = (j + 1) & (cap - 1);
		slots[j] = (uint32_t)i + 1;
	}
	free(t->slots);
	t->slots = slots;
	t->nslots = cap;
	return 0;
}

int64_t intern_index(struct intern *t, const void *key, size_t len, bool *created)
{
	unsigned char *copy;
	size_t i;

	if (created)
		*created = false;
	if ((t->n + 1) * 2 > t->nslots && grow_slots(t) < 0)
		return -1;
	for (i = key_hash(key, len) & (t->nslots - 1); t->slots[i]; i = (i + 1) & (t->nslots - 1)) {
		size_t k = t->slots[i] - 1;

		if (t->lens[k] == len && (!len || memcmp(t->keys[k], key, len) == 0))
			return (int64_t)k;
	}
	if (GROW_ARRAY(t->keys, t->cap, t->n + 1) < 0 ||
	    GROW_ARRAY(t->lens, t->lens_cap, t->n + 1) < 0 || !(copy = malloc(len + 1)))
		return -1;
	if (len)
		memcpy(copy, key, len);
	copy[len] = '\0';
	t->keys[t->n] = copy;
	t->lens[t->n] = len;
	t->slots[i] = (uint32_t)++t->n;
	if (created)
		*created = true;
	return (int64_t)t->n - 1;
}
