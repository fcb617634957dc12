/* jsonstr.c - a JSON string from the bytes of a name (jsonstr.h). */
#include "jsonstr.h"

/* The length of the valid UTF-8 sequence at s (RFC 3629: no overlong
 * forms, no surrogates, at most U+10FFFF), 0 if there is none. */
static int utf8_length(const unsigned char *s)
{
	unsigned char c = s[0];
	int n;
	unsigned char lo = 0x80, hi = 0xbf;

	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4;
	else
		return 0;
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (int i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return n;
}

void json_put_string(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	putc('"', f);
	while (*s) {
		unsigned char c = *s;
		int n;

		if (c == '"' || c == '\\') {
			fprintf(f, "\\%c", c);
			s++;
		} else if (c < 0x20 || c == 0x7f) {
			fprintf(f, "\\u%04x", c);
			s++;
		} else if (c < 0x80) {
			putc(c, f);
			s++;
		} else if ((n = utf8_length(s)) > 0) {
			fwrite(s, 1, (size_t)n, f);
			s += n;
		} else {
			fputs("\\ufffd", f);	/* a byte of no valid sequence */
			s++;
		}
	}
	putc('"', f);
}
