/* json.c - JSON text for every JSON writer. */
#include "json.h"

#include "textescape.h"

void json_put_string(FILE *f, const char *s)
{
	putc('"', f);
	while (*s) {
		size_t n = textescape_shown(s, "\"\\");

		if (n) {
			fwrite(s, 1, n, f);
			s += n;
		} else if (*s == '"' || *s == '\\') {
			putc('\\', f);
			putc(*s++, f);
		} else {
			textescape_put_byte(f, (unsigned char)*s++);
		}
	}
	putc('"', f);
}
