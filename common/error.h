/* error.h - the one error style: "PROG: error: <what failed>: <why> (<what to do>)".
 *
 * Library code fills a struct error and returns -1; only main() prints it
 * (error_print) and exits.  Messages are one line, naming cause and fix.
 */
#ifndef SAMPLER_ERROR_H
#define SAMPLER_ERROR_H

#include <stdarg.h>

struct error {
	char msg[512];
};

/* Set err (if not NULL) from a printf format; always returns -1 so that
 * library code can write "return error_set(err, ...);". */
int error_set(struct error *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Prefix an existing message: "what: <old message>". Returns -1. */
int error_prefix(struct error *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Print "prog: error: msg" on stderr. */
void error_print(const char *prog, const struct error *err);

/* Print "prog: warning: ..." on stderr (for things that do not stop the run). */
void warn_print(const char *prog, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
