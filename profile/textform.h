/* textform.h - the one writer (and unescaper) of the text form of profiles.
 *
 * Every text that shows profile fields goes through here: sampler-profile
 * dump and build, the exporter's CSV header lines and its --info summary.
 * Python reads the same text (scripts/samplerlib/textview.py) by the same
 * rule (docs/FORMAT.md, "Text view"):
 *
 *   the one rule of every text output (common/textescape.h): a control
 *   byte (C0, DEL, C1) or a byte that is not part of well-formed UTF-8 is
 *   written as %XX (two upper-case hex digits); and so are the separators
 *   space, '%', '=', ',' and '"' (CSV's quote).  Every other byte (UTF-8
 *   text) is as it is.
 *
 * So a value never holds a separator (space, '=', ',', newline) and any
 * byte string round-trips.
 */
#ifndef SAMPLER_PROFILE_TEXTFORM_H
#define SAMPLER_PROFILE_TEXTFORM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "profile.h"

/* Write s escaped. */
void textform_escaped(FILE *f, const char *s);

/* Turn every %XX of s back into its byte, in place.  0, or -1 when s holds
 * a '%' without two hex digits, or %00 (a C string cannot hold NUL); then
 * *bad points at that '%'. */
int textform_unescape(char *s, const char **bad);

/* The shortest decimal text that reads back as exactly d ("nan", "inf"). */
void textform_double(FILE *f, double d);

/* " key=VALUE" with the value escaped, or as a number / list. */
void textform_str(FILE *f, const char *key, const char *value);
void textform_doubles(FILE *f, const char *key, const double *v, uint32_t n);
void textform_u64s(FILE *f, const char *key, const uint64_t *v, uint32_t n);

/* The fields of the shared lines, each field preceded by one space:
 *   host     " hostname=.. os_release=.. ... target_hz=.."
 *   channel  " name=.. source=.. unit=.. scale=.. kind=.. scope=.."
 *   stats    " wall=.. latency=.. ... exit=.. totals=.. hold=.."
 * (sampler-profile prints "host" + fields, CSV "# host" + fields.) */
void textform_host_fields(FILE *f, const struct profile_host *h);
void textform_channel_fields(FILE *f, const struct channel_desc *c);
void textform_stats_fields(FILE *f, const struct profile_stats *s);

#endif
