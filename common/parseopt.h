/* parseopt.h - a command's options as one table, after git's
 * parse-options.h: the parser and the --help text both come from it.
 *
 * Each entry names a long option, a short letter or both, whether it takes
 * an argument (argh, the argument's name in --help) and what it does: set
 * a bool or a string of the command's options struct (at an offset), or
 * call a function.  The parser takes -x, -xVALUE, -x VALUE, clusters of
 * short options (-dg, -dgo FILE), --name, --name=VALUE, --name VALUE and a
 * unique prefix of a long name (--freq); "--" ends the options.  A bad
 * option is one error line naming it and "see PROG --help".
 */
#ifndef SAMPLER_COMMON_PARSEOPT_H
#define SAMPLER_COMMON_PARSEOPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "error.h"

struct parseopt;

/* An option's action: o its entry with only the name given (the other
 * one 0 or NULL: an error can quote "-r" or "--refresh" as typed), arg
 * its argument (NULL: none), ctx the struct given to parseopt_parse.  0: go on; 1: done (it printed what was asked,
 * as --version does); -1: err set. */
typedef int (*parseopt_fn)(const struct parseopt *o, const char *arg, void *ctx,
			   struct error *err);

enum parseopt_kind {
	PARSEOPT_END,			/* ends a table */
	PARSEOPT_BOOL,			/* the bool at off becomes value */
	PARSEOPT_STRING,		/* the const char * at off is the argument */
	PARSEOPT_CALL,			/* fn */
	PARSEOPT_HELP,			/* print the help on stdout: done */
	PARSEOPT_VERSION,		/* print "PROG VERSION" on stdout: done */
	PARSEOPT_TEXT,			/* a line of help only (argh, help) */
};

/* Entry flags */
#define PARSEOPT_OPTARG	1u	/* the argument is optional: attached (-xV,
				 * --x=V), else the next one unless it
				 * starts with '-', else NULL */
#define PARSEOPT_HIDDEN	2u	/* not in --help */
#define PARSEOPT_ATTACHED 8u	/* the argument is optional and only ever
				 * attached (--x=V), as getopt's
				 * optional_argument: --x alone takes none */
#define PARSEOPT_KEEP	4u	/* also left with the arguments (for a command
				 * that hands them on: PARSEOPT_KEEP_UNKNOWN) */

struct parseopt {
	enum parseopt_kind kind;
	char short_name;		/* 0: none */
	const char *long_name;		/* without "--"; NULL: none */
	const char *argh;		/* the argument's name; NULL: takes none */
	const char *help;		/* lines, '\n' between them */
	unsigned flags;
	size_t off;			/* BOOL, STRING: where in ctx */
	parseopt_fn fn;			/* CALL */
	int value;			/* BOOL: what to set; CALL: fn's to read */
};

#define OPT_BOOL(s, l, type, field, v, h) \
	{ .kind = PARSEOPT_BOOL, .short_name = (s), .long_name = (l), .help = (h), \
	  .off = offsetof(type, field), .value = (v) }
#define OPT_STRING(s, l, a, type, field, h) \
	{ .kind = PARSEOPT_STRING, .short_name = (s), .long_name = (l), .argh = (a), \
	  .help = (h), .off = offsetof(type, field) }
#define OPT_CALL(s, l, a, f, v, h) \
	{ .kind = PARSEOPT_CALL, .short_name = (s), .long_name = (l), .argh = (a), \
	  .help = (h), .fn = (f), .value = (v) }
#define OPT_HELP(s, l, h) \
	{ .kind = PARSEOPT_HELP, .short_name = (s), .long_name = (l), .help = (h) }
#define OPT_VERSION(s, l, h) \
	{ .kind = PARSEOPT_VERSION, .short_name = (s), .long_name = (l), .help = (h) }
#define OPT_TEXT(a, h) { .kind = PARSEOPT_TEXT, .argh = (a), .help = (h) }
#define OPT_END() { .kind = PARSEOPT_END }

/* A command's flags */
#define PARSEOPT_STOP_AT_ARG	1u	/* the first argument that is no option
					 * ends the options (a command follows) */
#define PARSEOPT_KEEP_UNKNOWN	2u	/* unknown options stay with the
					 * arguments (exact names only) */

struct parseopt_cmd {
	const char *prog;		/* in errors: "see PROG --help" */
	const char *usage;		/* --help: the lines before the options */
	const char *footer;		/* and after them (NULL: none) */
	unsigned flags;
	const struct parseopt *opts;	/* ended by OPT_END() */
};

/* What is left once the options are taken. */
struct parseopt_rest {
	char **args;			/* NULL-terminated, within argv */
	int nargs;
	int nbefore;			/* of these, those before the "--" */
	bool dashdash;			/* a "--" ended the options */
};

/* Parse argv[1..argc-1] into ctx.  Without PARSEOPT_STOP_AT_ARG the
 * arguments left are gathered at the front of argv (as getopt_long
 * permutes it); with it argv is left as it is.  0: parsed; 1: done (help
 * or an option's function said so); -1: err set. */
int parseopt_parse(const struct parseopt_cmd *cmd, int argc, char **argv, void *ctx,
		   struct parseopt_rest *rest, struct error *err);

/* --help: usage, one line or more per option, footer. */
void parseopt_usage(const struct parseopt_cmd *cmd, FILE *out);

#endif
