/* idmap-check - the common id table (common/idmap.h) against a reference.
 *
 *   idmap-check SEED OPERATIONS
 *
 * Draws ids from a pool of sequential tids, random 32-bit ids and ids that
 * all hash to one home slot at every table size up to 2^16 (made from the
 * inverse of the hash multiplier), then inserts, finds, removes and
 * reinserts them at random, checking every answer, the count and a full
 * iteration against a flat array.  Prints what it did and "mismatches=N".
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/idmap.h"

#define POOL 6000
#define COLLIDING 600
#define HASH_MULTIPLIER 2654435761u	/* common/idmap.c's */

struct value {
	uint32_t id;
	uint32_t generation;
	uint64_t check;			/* derived from both: a moved value stays whole */
};

struct reference {
	uint32_t ids[POOL];
	bool present[POOL];
	uint32_t generation[POOL];
	size_t count;
};

static unsigned long mismatches;

static uint64_t rng_state;

static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static void mismatch(const char *what, uint32_t id)
{
	if (mismatches++ < 20)
		printf("mismatch: %s (id %u)\n", what, id);
}

/* The inverse of an odd number modulo 2^32 (Newton's iteration). */
static uint32_t inverse(uint32_t a)
{
	uint32_t x = a;

	for (int i = 0; i < 5; i++)
		x *= 2 - a * x;
	return x;
}

static void make_pool(struct reference *ref)
{
	uint32_t inv = inverse(HASH_MULTIPLIER);
	size_t n = 0;

	/* same top 16 bits of the hash: one home slot up to 65536 slots */
	for (uint32_t j = 0; j < COLLIDING; j++)
		ref->ids[n++] = ((0xbeefu << 16) | j) * inv;
	for (uint32_t tid = 1000; n < POOL / 2; tid++)
		ref->ids[n++] = tid;
	while (n < POOL) {
		uint32_t id = (uint32_t)rng();
		bool dup = false;

		for (size_t i = 0; i < n && !dup; i++)
			dup = ref->ids[i] == id;
		if (!dup)
			ref->ids[n++] = id;
	}
}

static uint64_t check_of(uint32_t id, uint32_t generation)
{
	return ((uint64_t)id << 32 | generation) * 0x9e3779b97f4a7c15ull;
}

static void insert(struct idmap *m, struct reference *ref, size_t k)
{
	bool created;
	struct value *v = idmap_get(m, ref->ids[k], &created);

	if (!v) {
		mismatch("out of memory", ref->ids[k]);
		return;
	}
	if (created == ref->present[k])
		mismatch(created ? "created an id that was there" : "found an id that was not there",
			 ref->ids[k]);
	if (!created)
		return;
	if (v->id || v->generation || v->check)
		mismatch("new value not zero-filled", ref->ids[k]);
	ref->present[k] = true;
	ref->count++;
	*v = (struct value){ ref->ids[k], ++ref->generation[k], 0 };
	v->check = check_of(v->id, v->generation);
}

static void find(const struct idmap *m, const struct reference *ref, size_t k)
{
	const struct value *v = idmap_find(m, ref->ids[k]);

	if (!v != !ref->present[k])
		mismatch(v ? "found a removed id" : "lost an id", ref->ids[k]);
	else if (v && (v->id != ref->ids[k] || v->generation != ref->generation[k] ||
		       v->check != check_of(v->id, v->generation)))
		mismatch("value changed", ref->ids[k]);
}

static void remove_id(struct idmap *m, struct reference *ref, size_t k)
{
	if (idmap_remove(m, ref->ids[k]) != ref->present[k])
		mismatch("remove disagrees on presence", ref->ids[k]);
	if (ref->present[k])
		ref->count--;
	ref->present[k] = false;
	if (idmap_find(m, ref->ids[k]))
		mismatch("found right after its removal", ref->ids[k]);
}

/* Every id once, each present in the reference, and the count right. */
static void check_all(const struct idmap *m, const struct reference *ref)
{
	static bool seen[POOL];
	size_t pos = 0, n = 0;
	const struct value *v;
	uint32_t id;

	memset(seen, 0, sizeof(seen));
	while ((v = idmap_next(m, &pos, &id))) {
		size_t k;

		n++;
		for (k = 0; k < POOL && ref->ids[k] != id; k++)
			;
		if (k == POOL || !ref->present[k] || seen[k] || v->id != id)
			mismatch("iteration gave a wrong or repeated id", id);
		else
			seen[k] = true;
	}
	if (n != ref->count || idmap_count(m) != ref->count)
		mismatch("count", (uint32_t)n);
	for (size_t k = 0; k < POOL; k++)
		find(m, ref, k);
}

int main(int argc, char **argv)
{
	static struct reference ref;
	unsigned long ops, counts[3] = { 0 };
	size_t peak = 0;
	struct idmap m;

	if (argc != 3) {
		fprintf(stderr, "usage: idmap-check SEED OPERATIONS\n");
		return 2;
	}
	rng_state = strtoull(argv[1], NULL, 0) | 1;
	ops = strtoul(argv[2], NULL, 0);
	make_pool(&ref);
	idmap_init(&m, sizeof(struct value));

	/* every colliding id in, every other one out, all back in */
	for (size_t k = 0; k < COLLIDING; k++)
		insert(&m, &ref, k);
	check_all(&m, &ref);
	for (size_t k = 0; k < COLLIDING; k += 2)
		remove_id(&m, &ref, k);
	check_all(&m, &ref);
	for (size_t k = 0; k < COLLIDING; k++)
		insert(&m, &ref, k);
	check_all(&m, &ref);

	/* random churn, biased to keep the table around half the pool */
	for (unsigned long i = 1; i <= ops; i++) {
		size_t k = (size_t)(rng() % POOL);
		unsigned op = (unsigned)(rng() % 3);

		counts[op]++;
		if (op == 0)
			insert(&m, &ref, k);
		else if (op == 1)
			find(&m, &ref, k);
		else
			remove_id(&m, &ref, k);
		if (ref.count > peak)
			peak = ref.count;
		if (i % 20000 == 0)
			check_all(&m, &ref);
	}
	check_all(&m, &ref);

	/* everything out, in pool order: the table ends empty */
	for (size_t k = 0; k < POOL; k++)
		remove_id(&m, &ref, k);
	check_all(&m, &ref);
	printf("pool=%d colliding=%d inserts=%lu finds=%lu removes=%lu peak=%zu final=%zu\n",
	       POOL, COLLIDING, counts[0], counts[1], counts[2], peak, idmap_count(&m));
	printf("mismatches=%lu\n", mismatches);
	idmap_free(&m);
	return mismatches ? 1 : 0;
}
