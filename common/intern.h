/* intern.h - distinct keys (byte strings), numbered in the order they
 * first come: the JSON outputs' frame names (export/framenames.h), the
 * pprof output's strings, functions, locations, mappings and samples.  A caller keeps
 * what it counts per key in an array of its own, indexed by the number.
 *
 * Open addressing on an FNV-1a hash of the key; each key is copied once.
 * Memory grows with the distinct keys, not with how often they come.
 */
#ifndef SAMPLER_COMMON_INTERN_H
#define SAMPLER_COMMON_INTERN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct intern {
	unsigned char **keys;		/* [number]: the key, NUL-terminated */
	size_t *lens;
	size_t n, cap, lens_cap;
	uint32_t *slots;		/* number + 1, 0: empty */
	size_t nslots;
};

void intern_free(struct intern *t);

/* The number of key (len bytes), given it when new (then *created is set,
 * if given); -1 when out of memory. */
int64_t intern_index(struct intern *t, const void *key, size_t len, bool *created);

/* A string key, without its NUL. */
static inline int64_t intern_string(struct intern *t, const char *s, bool *created)
{
	size_t n = 0;

	while (s[n])
		n++;
	return intern_index(t, s, n, created);
}

static inline size_t intern_count(const struct intern *t)
{
	return t->n;
}

/* Key number i (followed by a NUL byte), its length in *len if given. */
static inline const void *intern_key(const struct intern *t, size_t i, size_t *len)
{
	if (len)
		*len = t->lens[i];
	return t->keys[i];
}

#endif
