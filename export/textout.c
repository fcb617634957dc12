#include "textout.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#define TEXT_BUFFER_SIZE (1 << 20)

FILE *textout_open(const char *path, struct error *err)
{
	FILE *f = strcmp(path, "-") == 0 ? stdout : fopen(path, "w");

	if (!f) {
		error_set(err, "cannot create %s: %s (choose another path with -o)",
			  path, strerror(errno));
		return NULL;
	}
	setvbuf(f, NULL, _IOFBF, TEXT_BUFFER_SIZE);
	return f;
}

int textout_close(FILE *f, const char *path, struct error *err)
{
	int bad = fflush(f) != 0 || ferror(f);
	int saved = errno;

	if (f != stdout && fclose(f) != 0 && !bad) {
		bad = 1;
		saved = errno;
	}
	if (bad)
		return error_set(err, "cannot write %s: %s (check free space)",
				 strcmp(path, "-") == 0 ? "stdout" : path, strerror(saved));
	return 0;
}
