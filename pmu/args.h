/* args.h - the argument string of a plug-in: "ITEM[,ITEM...]".
 *
 * Items are separated by commas ("\," is a literal comma); an item is either
 * positional ("package-0", "tcp://host:5025") or an option "key=value".
 * Every plug-in parses its argument with these helpers, so that the syntax
 * and the error messages are the same everywhere.
 */
#ifndef SAMPLER_PMU_ARGS_H
#define SAMPLER_PMU_ARGS_H

#include "../common/error.h"

struct pmu_args {
	char *buf;		/* one copy of the text, split in place */
	char **items;		/* n items, each unescaped, never empty */
	unsigned n;
};

/* Split text (NULL or "" gives no items).  An empty item ("a,,b") is an
 * error naming the plug-in.  Free with pmu_args_free() on success. */
int pmu_args_split(struct pmu_args *args, const char *plugin, const char *text,
		   struct error *err);
void pmu_args_free(struct pmu_args *args);

/* If item is "key=VALUE", return VALUE, otherwise NULL. */
const char *pmu_arg_option(const char *item, const char *key);

/* Parse an unsigned decimal option value in [min, max]. */
int pmu_arg_ulong(const char *plugin, const char *key, const char *value,
		  unsigned long min, unsigned long max, unsigned long *out,
		  struct error *err);

/* Parse a time in milliseconds, decimals allowed, in [0, max]. */
int pmu_arg_ms(const char *plugin, const char *key, const char *value, double max,
	       double *out, struct error *err);

#endif
