#include "textout.h"

#include "../common/outfile.h"
#include "../common/textescape.h"
#include "../profile/stream.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define TEXT_BUFFER_SIZE (1 << 20)

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

FILE *textout_open(const char *path, bool force, struct error *err)
{
	struct outfile *out = outfile_open(path, 0666, force ? OUTFILE_FORCE : 0, err);
	FILE *f;

	if (!out)
		return NULL;
	/* FILE.bz2 is compressed, as the recorder and the scripts do it */
	f = sink_fopen(out, strcmp(path, "-") != 0 && ends_with(path, ".bz2"), err);
	if (f)
		setvbuf(f, NULL, _IOFBF, TEXT_BUFFER_SIZE);
	return f;
}

int textout_close(FILE *f, const char *path, struct error *err)
{
	int bad = fflush(f) != 0 || ferror(f);
	int saved = errno;

	if (fclose(f) != 0 && !bad) {
		bad = 1;
		saved = errno;
	}
	if (bad)
		return outfile_path_write_error(path, saved, err);
	return 0;
}

void textout_printf(FILE *f, const char *fmt, ...)
{
	size_t n = strlen(fmt);
	bool newline = n && fmt[n - 1] == '\n';
	char small[512], *text = small;
	va_list ap;
	int len;

	va_start(ap, fmt);
	len = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (len < 0)
		return;
	if ((size_t)len >= sizeof(small)) {
		text = malloc((size_t)len + 1);
		if (!text) {
			fputs("[out of memory]\n", f);
			return;
		}
		va_start(ap, fmt);
		vsnprintf(text, (size_t)len + 1, fmt, ap);
		va_end(ap);
	}
	if (newline)
		text[len - 1] = '\0';
	textescape_put(f, text, NULL);
	if (newline)
		putc('\n', f);
	if (text != small)
		free(text);
}
