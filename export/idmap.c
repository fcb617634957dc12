#include "idmap.h"

#include <stdlib.h>
#include <string.h>

void idmap_init(struct idmap *m, size_t value_size)
{
	memset(m, 0, sizeof(*m));
	m->value_size = value_size;
}

void idmap_free(struct idmap *m)
{
	free(m->keys);
	free(m->used_slot);
	free(m->values);
	idmap_init(m, m->value_size);
}

static size_t slot_of(const struct idmap *m, uint32_t id)
{
	return (id * 2654435761u) & (m->cap - 1);
}

void *idmap_find(const struct idmap *m, uint32_t id)
{
	if (!m->cap)
		return NULL;
	for (size_t i = slot_of(m, id);; i = (i + 1) & (m->cap - 1)) {
		if (!m->used_slot[i])
			return NULL;
		if (m->keys[i] == id)
			return m->values + i * m->value_size;
	}
}

static int grow(struct idmap *m)
{
	struct idmap bigger;
	size_t pos = 0;
	uint32_t id;
	void *v;

	idmap_init(&bigger, m->value_size);
	bigger.cap = m->cap ? m->cap * 2 : 64;
	bigger.keys = calloc(bigger.cap, sizeof(*bigger.keys));
	bigger.used_slot = calloc(bigger.cap, 1);
	bigger.values = calloc(bigger.cap, m->value_size);
	if (!bigger.keys || !bigger.used_slot || !bigger.values) {
		idmap_free(&bigger);
		return -1;
	}
	while ((v = idmap_next(m, &pos, &id))) {
		int created;

		memcpy(idmap_get(&bigger, id, &created), v, m->value_size);
	}
	idmap_free(m);
	*m = bigger;
	return 0;
}

void *idmap_get(struct idmap *m, uint32_t id, int *created)
{
	void *v = idmap_find(m, id);
	size_t i;

	*created = 0;
	if (v)
		return v;
	if ((m->used + 1) * 2 > m->cap && grow(m) < 0)
		return NULL;
	for (i = slot_of(m, id); m->used_slot[i]; i = (i + 1) & (m->cap - 1))
		;
	m->used_slot[i] = 1;
	m->keys[i] = id;
	m->used++;
	*created = 1;
	v = m->values + i * m->value_size;
	memset(v, 0, m->value_size);
	return v;
}

void *idmap_next(const struct idmap *m, size_t *pos, uint32_t *id)
{
	for (; *pos < m->cap; (*pos)++) {
		if (m->used_slot[*pos]) {
			size_t i = (*pos)++;

			if (id)
				*id = m->keys[i];
			return m->values + i * m->value_size;
		}
	}
	return NULL;
}
