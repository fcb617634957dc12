/* parseopt-check.c - common/parseopt.h on a table of each kind of entry:
 * parseopt-check MODE ARG... parses ARG... with MODE plain (arguments
 * gathered, as sampler-export), stop (the first argument ends the options,
 * as sampler) or keep (unknown options kept, as sampler top) and prints
 * one line: what was set and the arguments left, "done" or "error: MSG".
 * --help prints the table's help.  For t0012.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/parseopt.h"

struct check {
	bool debug, verbose, pass;
	const char *output;
	long number;
	char list[128];			/* -n values and -F's, in order */
};

static void add(struct check *c, const char *what)
{
	size_t n = strlen(c->list);

	snprintf(c->list + n, sizeof(c->list) - n, "%s%s", n ? "," : "", what);
}

static int opt_number(const struct parseopt *o, const char *arg, void *ctx, struct error *err)
{
	struct check *c = ctx;
	char *end;

	c->number = strtol(arg, &end, 10);
	if (end == arg || *end)	/* the name as given */
		return error_set(err, "%s%s%s: bad number '%s'", o->short_name ? "-" : "--",
				 o->short_name ? (char[2]){ o->short_name, 0 } : "",
				 o->long_name ? o->long_name : "", arg);
	add(c, arg);
	return 0;
}

static int opt_hint(const struct parseopt *o, const char *arg, void *ctx, struct error *err)
{
	(void)o;
	(void)err;
	add(ctx, arg ? arg : "(none)");
	return 0;
}

static int opt_exit(const struct parseopt *o, const char *arg, void *ctx, struct error *err)
{
	(void)o;
	(void)arg;
	(void)ctx;
	(void)err;
	return 1;
}

static const struct parseopt opts[] = {
	OPT_TEXT("FILE...", "the files"),
	OPT_BOOL('d', "debug", struct check, debug, true, "debug"),
	OPT_BOOL('v', "verbose", struct check, verbose, true, "say more\nand more"),
	OPT_BOOL(0, "quiet", struct check, verbose, false, "say less"),
	OPT_STRING('o', "output", "FILE", struct check, output, "write FILE"),
	OPT_CALL('n', "number", "N", opt_number, 0, "a number"),
	OPT_CALL(0, "name-one", NULL, opt_exit, 0, NULL),
	OPT_CALL(0, "name-two", NULL, opt_exit, 0, "another name"),
	OPT_CALL('x', "exit", NULL, opt_exit, 0, "done"),
	OPT_HELP('h', "help", "this help"),
	OPT_VERSION('V', "version", "the version"),
	{ .kind = PARSEOPT_CALL, .short_name = 'F', .argh = "V", .fn = opt_hint,
	  .flags = PARSEOPT_OPTARG | PARSEOPT_HIDDEN },
	{ .kind = PARSEOPT_BOOL, .long_name = "pass", .off = offsetof(struct check, pass),
	  .value = true, .flags = PARSEOPT_KEEP | PARSEOPT_HIDDEN },
	OPT_END(),
};

static void print(const struct check *c, const struct parseopt_rest *rest)
{
	printf("debug=%d verbose=%d pass=%d output=%s number=%ld list=%s args=", c->debug,
	       c->verbose, c->pass, c->output ? c->output : "(null)", c->number, c->list);
	for (int i = 0; i < rest->nargs; i++)
		printf("%s%s", i ? "," : "", rest->args[i]);
	printf(" before=%d dashdash=%d end=%s\n", rest->nbefore, rest->dashdash,
	       rest->args[rest->nargs] ? "not-null" : "null");
}

int main(int argc, char **argv)
{
	struct parseopt_cmd cmd = { .prog = "check", .usage = "usage: check\n",
				    .footer = "footer\n", .opts = opts };
	struct check c = { 0 };
	struct parseopt_rest rest;
	struct error err;
	int rc;

	if (argc < 2)
		return 2;
	if (!strcmp(argv[1], "stop"))
		cmd.flags = PARSEOPT_STOP_AT_ARG;
	else if (!strcmp(argv[1], "keep"))
		cmd.flags = PARSEOPT_KEEP_UNKNOWN;
	rc = parseopt_parse(&cmd, argc - 1, argv + 1, &c, &rest, &err);
	if (rc < 0)
		printf("error: %s\n", err.msg);
	else if (rc > 0)
		printf("done\n");
	else
		print(&c, &rest);
	return 0;
}
