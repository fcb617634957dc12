/* codec.h - byte-level encodings shared by the profile formats.
 *
 * LEB128 varints (7 bits per byte, low bits first), zigzag for signed
 * deltas, little-endian fixed-width fields, a growable output buffer the
 * writers encode into, and a bounds-checked cursor the readers decode from.
 * Everything here is inline: it sits on the per-thread-sample hot path.
 */
#ifndef SAMPLER_PROFILE_CODEC_H
#define SAMPLER_PROFILE_CODEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define VARINT_MAX 10		/* bytes of the longest 64-bit varint */

static inline uint64_t zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline int64_t unzigzag(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

/* ---- encoding into a buffer the caller has reserved room in ---------- */

struct obuf {
	uint8_t *data;
	size_t len;
	size_t cap;
};

/* Make room for n more bytes; -1 when out of memory. */
int obuf_reserve(struct obuf *b, size_t n);
void obuf_free(struct obuf *b);

static inline uint8_t *put_varint(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)v | 0x80;
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

/* A varint of the 65-bit number (v << 1 | bit): a flag bit riding with a
 * full 64-bit value (at most 10 bytes). */
static inline uint8_t *put_varint_flag(uint8_t *p, uint64_t v, unsigned bit)
{
	uint64_t lo = v << 1 | (bit & 1);
	unsigned hi = (unsigned)(v >> 63);

	while (hi || lo >= 0x80) {
		*p++ = (uint8_t)lo | 0x80;
		lo = lo >> 7 | (uint64_t)hi << 57;
		hi = 0;
	}
	*p++ = (uint8_t)lo;
	return p;
}

static inline uint8_t *put_le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		*p++ = (uint8_t)(v >> (8 * i));
	return p;
}

static inline uint8_t *put_le64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		*p++ = (uint8_t)(v >> (8 * i));
	return p;
}

static inline uint8_t *put_double(uint8_t *p, double d)
{
	uint64_t v;

	memcpy(&v, &d, sizeof(v));
	return put_le64(p, v);
}

/* A string as varint length + bytes (no NUL); n must be <= the length
 * the caller reserved for. */
static inline uint8_t *put_string(uint8_t *p, const char *s, size_t n)
{
	p = put_varint(p, n);
	memcpy(p, s, n);
	return p + n;
}

static inline uint32_t get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static inline uint64_t get_le64(const uint8_t *p)
{
	return (uint64_t)get_le32(p) | (uint64_t)get_le32(p + 4) << 32;
}

static inline double get_double(const uint8_t *p)
{
	uint64_t v = get_le64(p);
	double d;

	memcpy(&d, &v, sizeof(d));
	return d;
}

/* ---- decoding with bounds checks -------------------------------------- */

/* A window on decoded bytes; base is the file offset of start, so that
 * errors can name the exact byte.  Every get returns -1 (leaving p at the
 * failing field) instead of reading past end. */
struct cursor {
	const uint8_t *start;
	const uint8_t *p;
	const uint8_t *end;
	uint64_t base;
};

static inline uint64_t cursor_offset(const struct cursor *c)
{
	return c->base + (uint64_t)(c->p - c->start);
}

static inline size_t cursor_left(const struct cursor *c)
{
	return (size_t)(c->end - c->p);
}

static inline int cur_varint(struct cursor *c, uint64_t *out)
{
	const uint8_t *p = c->p;
	uint64_t v = 0;

	for (unsigned shift = 0; p < c->end && shift < 64; shift += 7) {
		uint8_t b = *p++;

		if (shift == 63 && b > 1)
			return -1;	/* more than 64 bits */
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			c->p = p;
			*out = v;
			return 0;
		}
	}
	return -1;
}

/* The reverse of put_varint_flag. */
static inline int cur_varint_flag(struct cursor *c, uint64_t *out, unsigned *bit)
{
	const uint8_t *p = c->p;
	uint64_t lo = 0;
	unsigned hi = 0;

	for (unsigned shift = 0; p < c->end && shift < 70; shift += 7) {
		uint8_t b = *p++;

		if (shift == 63) {
			if (b > 3)
				return -1;	/* more than 65 bits */
			lo |= (uint64_t)(b & 1) << 63;
			hi = b >> 1;
		} else {
			lo |= (uint64_t)(b & 0x7f) << shift;
		}
		if (!(b & 0x80)) {
			c->p = p;
			*bit = lo & 1;
			*out = lo >> 1 | (uint64_t)hi << 63;
			return 0;
		}
	}
	return -1;
}

static inline int cur_u32(struct cursor *c, uint32_t *out)
{
	uint64_t v;

	if (cur_varint(c, &v) < 0 || v > UINT32_MAX)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

static inline int cur_u8(struct cursor *c, uint8_t *out)
{
	if (c->p >= c->end)
		return -1;
	*out = *c->p++;
	return 0;
}

static inline int cur_double(struct cursor *c, double *out)
{
	if (cursor_left(c) < 8)
		return -1;
	*out = get_double(c->p);
	c->p += 8;
	return 0;
}

/* A string into dst[size] (NUL-terminated); -1 when its length exceeds
 * size - 1 or what is left, or when it holds a NUL. */
static inline int cur_string(struct cursor *c, char *dst, size_t size)
{
	const uint8_t *save = c->p;
	uint64_t n;

	if (cur_varint(c, &n) < 0 || n >= size || n > cursor_left(c) ||
	    memchr(c->p, 0, n)) {
		c->p = save;
		return -1;
	}
	memcpy(dst, c->p, n);
	dst[n] = '\0';
	c->p += n;
	return 0;
}

/* ---- CRC-32 (IEEE 802.3, as zlib and gzip) ----------------------------- */

uint32_t crc32_update(uint32_t crc, const void *data, size_t len);

#endif
