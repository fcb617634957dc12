/* jsonstr.h - a JSON string from the bytes of a name (a comm, a symbol, a
 * path) for the JSON outputs (speedscope, firefox): quotes, backslashes
 * and control bytes escaped, and every byte that is not part of valid
 * UTF-8 written as U+FFFD, so any name gives a file JSON parsers accept.
 */
#ifndef SAMPLER_EXPORT_JSONSTR_H
#define SAMPLER_EXPORT_JSONSTR_H

#include <stdio.h>

void json_put_string(FILE *f, const char *s);

#endif
