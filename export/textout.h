/* textout.h - what the text outputs (CSV, --info) share: a buffered output
 * stream opened from "-" or a path, and the contract's %-escaping. */
#ifndef SAMPLER_EXPORT_TEXTOUT_H
#define SAMPLER_EXPORT_TEXTOUT_H

#include <stdio.h>

#include "../common/error.h"
#include "../profile/profile.h"

/* stdout for "-", else a new file; with a large buffer. NULL: err set. */
FILE *textout_open(const char *path, struct error *err);

/* Flush and close (not stdout); -1 with err set if anything failed. */
int textout_close(FILE *f, const char *path, struct error *err);

/* Write s with space, %, newline, = and comma %-escaped. */
void textout_escaped(FILE *f, const char *s);

/* The host fields as the text `host` line has them: "hostname=.. ...". */
void textout_host_fields(FILE *f, const struct profile_host *h);

/* The stats fields as the text `stats` line has them: "wall=.. ...". */
void textout_stats_fields(FILE *f, const struct profile_stats *s);

#endif
