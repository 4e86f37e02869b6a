/* String-keyed hash map (open addressing), insertion order kept. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

struct lp_map {
	char **keys;		/* insertion order */
	long *vals;
	size_t n, cap;
	size_t *slot;		/* index + 1 into keys; 0 empty */
	size_t nslot;
};

/* Eight bytes at a time (a kernel's mangled name is hundreds of bytes,
 * looked up once a launch): multiply and shift, the high bits folded into
 * the low ones that pick the slot. */
static size_t
hash(const char *s)
{
	size_t n = strlen(s), i;
	uint64_t h = 14695981039346656037u ^ n, w;

	for (; n >= 8; n -= 8, s += 8) {
		memcpy(&w, s, 8);
		h = (h ^ w) * 0x9e3779b97f4a7c15u;
		h ^= h >> 29;
	}
	for (w = 0, i = 0; i < n; i++)	/* the last 0 to 7 bytes */
		w |= (uint64_t)(unsigned char)s[i] << (8 * i);
	h = (h ^ w) * 0x9e3779b97f4a7c15u;
	return (size_t)(h ^ (h >> 32));
}

struct lp_map *
lp_map_new(void)
{
	struct lp_map *m = lp_xcalloc(1, sizeof *m);

	m->nslot = 64;
	m->slot = lp_xcalloc(m->nslot, sizeof *m->slot);
	return m;
}

void
lp_map_free(struct lp_map *m)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; i < m->n; i++)
		free(m->keys[i]);
	free(m->keys);
	free(m->vals);
	free(m->slot);
	free(m);
}

static size_t *
find(const struct lp_map *m, const char *key)
{
	size_t i = hash(key) & (m->nslot - 1);

	while (m->slot[i] && strcmp(m->keys[m->slot[i] - 1], key))
		i = (i + 1) & (m->nslot - 1);
	return &m->slot[i];
}

long
lp_map_get(const struct lp_map *m, const char *key, long dflt)
{
	size_t *s = find(m, key);

	return *s ? m->vals[*s - 1] : dflt;
}

static void
rehash(struct lp_map *m)
{
	size_t i;

	free(m->slot);
	m->nslot *= 2;
	m->slot = lp_xcalloc(m->nslot, sizeof *m->slot);
	for (i = 0; i < m->n; i++)
		*find(m, m->keys[i]) = i + 1;
}

void
lp_map_put(struct lp_map *m, const char *key, long val)
{
	size_t *s = find(m, key);

	if (*s) {
		m->vals[*s - 1] = val;
		return;
	}
	if (m->n == m->cap) {
		m->cap = m->cap ? 2 * m->cap : 16;
		m->keys = lp_xreallocarray(m->keys, m->cap, sizeof *m->keys);
		m->vals = lp_xreallocarray(m->vals, m->cap, sizeof *m->vals);
	}
	m->keys[m->n] = lp_xstrdup(key);
	m->vals[m->n] = val;
	m->n++;
	*s = m->n;
	if (2 * m->n > m->nslot)
		rehash(m);
}

size_t
lp_map_len(const struct lp_map *m)
{
	return m->n;
}

const char *
lp_map_key(const struct lp_map *m, size_t i)
{
	return i < m->n ? m->keys[i] : NULL;
}
