/* textescape.c - the one escaping rule of every text output. */
#include "textescape.h"

#include <string.h>

/* The length of the well-formed UTF-8 sequence at p (Unicode, table 3-7:
 * no overlong form, no surrogate, nothing past U+10FFFF), or 0. */
static size_t utf8_len(const unsigned char *p)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		n = 2;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		n = 3;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		n = 4;
	else
		return 0;
	if (p[0] == 0xe0)
		lo = 0xa0;
	else if (p[0] == 0xed)
		hi = 0x9f;
	else if (p[0] == 0xf0)
		lo = 0x90;
	else if (p[0] == 0xf4)
		hi = 0x8f;
	if (p[1] < lo || p[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (p[i] < 0x80 || p[i] > 0xbf)
			return 0;
	return n;
}

size_t textescape_shown(const char *s, const char *also)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n;

	if (!*p || p[0] < 0x20 || p[0] == 0x7f || (also && strchr(also, *p)))
		return 0;
	n = utf8_len(p);
	if (n == 2 && p[0] == 0xc2 && p[1] < 0xa0)	/* C1 control */
		return 0;
	return n;
}

static const char hex[] = "0123456789ABCDEF";

void textescape_byte(char out[3], unsigned char ch)
{
	out[0] = '%';
	out[1] = hex[ch >> 4];
	out[2] = hex[ch & 15];
}

void textescape_put_byte(FILE *f, unsigned char ch)
{
	char out[3];

	textescape_byte(out, ch);
	fwrite(out, 1, 3, f);
}

void textescape_put(FILE *f, const char *s, const char *also)
{
	while (*s) {
		size_t n = textescape_shown(s, also);

		if (n) {
			fwrite(s, 1, n, f);
			s += n;
			continue;
		}
		textescape_put_byte(f, (unsigned char)*s++);
	}
}

char *textescape_str(char *out, size_t size, const char *s, const char *also)
{
	size_t len = 0;

	while (*s) {
		size_t n = textescape_shown(s, also);

		if (len + (n ? n : 3) >= size)
			break;
		if (n) {
			memcpy(out + len, s, n);
			len += n;
			s += n;
			continue;
		}
		textescape_byte(out + len, (unsigned char)*s++);
		len += 3;
	}
	out[len] = '\0';
	return out;
}
