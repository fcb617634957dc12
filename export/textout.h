/* textout.h - what the text outputs (CSV, --info) share: a buffered output
 * stream opened from "-" or a path.  The fields themselves are written by
 * profile/textform.h, the one writer of the text form. */
#ifndef SAMPLER_EXPORT_TEXTOUT_H
#define SAMPLER_EXPORT_TEXTOUT_H

#include <stdbool.h>
#include <stdio.h>

#include "../common/error.h"
#include "../profile/profile.h"

/* stdout for "-", else a new file made by common/outfile (FILE.bz2:
 * compressed; force: no FILE.old); with a large buffer. NULL: err set. */
FILE *textout_open(const char *path, bool force, struct error *err);

/* Flush and close (the file then takes its name); -1 with err set if
 * anything failed (a file whose writing failed is not kept). */
int textout_close(FILE *f, const char *path, struct error *err);

#endif
