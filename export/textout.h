/* textout.h - what the text outputs (CSV, --info) share: a buffered output
 * stream opened from "-" or a path, and a printf that escapes.  The fields themselves are written by
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

/* fprintf for text shown to a person (--info): the formatted text written
 * by the one escaping rule (common/textescape.h), so no name from a
 * profile sends a control byte to the terminal or starts a line; a
 * newline that ends fmt itself is kept. */
void textout_printf(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
