/* hash.h - the hash functions of the project's tables, one of each kind:
 * bytes and strings (FNV-1a, continuable so that a key of several parts
 * hashes without being copied together), and 64-bit integers (a
 * multiplication by the golden ratio, whose high bits are well mixed;
 * splitmix64's finalizer where the low bits must be too).
 */
#ifndef SAMPLER_COMMON_HASH_H
#define SAMPLER_COMMON_HASH_H

#include <stddef.h>
#include <stdint.h>

#define HASH_SEED 14695981039346656037ull	/* FNV-1a's offset basis */

/* n bytes at p, continuing h (HASH_SEED to start). */
static inline uint64_t hash_bytes(uint64_t h, const void *p, size_t n)
{
	const unsigned char *s = p;

	while (n--)
		h = (h ^ *s++) * 1099511628211ull;	/* FNV-1a's prime */
	return h;
}

/* A NUL-terminated string, without its NUL, continuing h. */
static inline uint64_t hash_string(uint64_t h, const char *s)
{
	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

/* x times 2^64 / phi: take the high bits (>> (64 - bits)), or mask the
 * low ones only for keys whose low bits differ. */
static inline uint64_t hash_u64(uint64_t x)
{
	return x * 0x9e3779b97f4a7c15ull;
}

/* splitmix64's finalizer: every input bit moves every output bit, the
 * low ones included. */
static inline uint64_t hash_mix64(uint64_t x)
{
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

#endif
