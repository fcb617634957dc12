/* args.c - splitting "a,b,key=value" plug-in arguments. */
#include "args.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Unescape "\," in place, cut the text at unescaped commas, and count the
 * items.  Returns the number of items, or -1 when one is empty. */
static int split_in_place(char *text, char **items)
{
	char *in = text, *out = text, *start = text;
	int n = 0;

	for (;; in++) {
		if (*in == '\\' && in[1] == ',') {
			*out++ = *++in;
			continue;
		}
		if (*in != ',' && *in != '\0') {
			*out++ = *in;
			continue;
		}
		if (out == start)
			return -1;
		if (items)
			items[n] = start;
		n++;
		if (*in == '\0') {
			*out = '\0';
			return n;
		}
		*out++ = '\0';
		start = out;
	}
}

int pmu_args_split(struct pmu_args *args, const char *plugin, const char *text,
		   struct error *err)
{
	size_t commas = 0;

	args->buf = NULL;
	args->items = NULL;
	args->n = 0;
	if (!text || !*text)
		return 0;
	for (const char *p = text; *p; p++)
		commas += *p == ',';
	args->buf = strdup(text);
	args->items = calloc(commas + 1, sizeof(*args->items));
	if (!args->buf || !args->items) {
		pmu_args_free(args);
		return error_set(err, "%s: out of memory parsing '%s'", plugin, text);
	}
	int n = split_in_place(args->buf, args->items);
	if (n < 0) {
		pmu_args_free(args);
		return error_set(err, "%s: empty item in argument '%s' (separate items with single commas; write \\, for a literal comma)",
				 plugin, text);
	}
	args->n = n;
	return 0;
}

void pmu_args_free(struct pmu_args *args)
{
	free(args->buf);
	free(args->items);
	args->buf = NULL;
	args->items = NULL;
	args->n = 0;
}

const char *pmu_arg_option(const char *item, const char *key)
{
	size_t len = strlen(key);

	if (strncmp(item, key, len) == 0 && item[len] == '=')
		return item + len + 1;
	return NULL;
}

int pmu_arg_ulong(const char *plugin, const char *key, const char *value,
		  unsigned long min, unsigned long max, unsigned long *out,
		  struct error *err)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(value, &end, 10);
	if (!*value || *end || errno || value[0] == '-' || v < min || v > max)
		return error_set(err, "%s: bad value '%s' for %s (use a whole number from %lu to %lu)",
				 plugin, value, key, min, max);
	*out = v;
	return 0;
}

int pmu_arg_ms(const char *plugin, const char *key, const char *value, double max,
	       double *out, struct error *err)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(value, &end);
	if (!*value || *end || errno || !(v >= 0 && v <= max) || strpbrk(value, "xXnNiI"))
		return error_set(err, "%s: bad value '%s' for %s (use milliseconds from 0 to %g, e.g. %s=20 or %s=0.5)",
				 plugin, value, key, max, key, key);
	*out = v;
	return 0;
}
