/* json.h - JSON text for every JSON writer (speedscope today; the Firefox
 * Profiler and other exporters may use it too). */
#ifndef SAMPLER_COMMON_JSON_H
#define SAMPLER_COMMON_JSON_H

#include <stdio.h>

/* s as a JSON string, quotes included: the text escaping rule
 * (common/textescape.h: controls and bytes that are not UTF-8 as %XX), then
 * '"' and '\\' as JSON escapes them.  Any byte string gives a valid string
 * that strict parsers (Python's json, JSON.parse) accept. */
void json_put_string(FILE *f, const char *s);

#endif
