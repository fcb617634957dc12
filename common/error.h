/* error.h - the one error style: "PROG: error: <what failed>: <why> (<what to do>)".
 *
 * Library code fills a struct error and returns -1; only main() prints it
 * (error_print) and exits.  Messages are one line, naming cause and fix.
 */
#ifndef SAMPLER_ERROR_H
#define SAMPLER_ERROR_H

#include <stdarg.h>
#include <stddef.h>

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

/* Room error_quote needs for at most max bytes of text. */
#define ERROR_QUOTE_SIZE(max) (4 * (max) + 4)

/* Text of unknown origin (a device's answer, an environment variable, a
 * line from a FIFO) fit for a one-line message: printable ASCII as is, \\
 * and \' escaped, any other byte as \xNN, cut after max bytes with "..."
 * after.  Writes into out (size bytes, at least ERROR_QUOTE_SIZE(max) for
 * all of it) and returns out. */
const char *error_quote(char *out, size_t size, const char *text, size_t max);

#endif
