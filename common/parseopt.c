/* parseopt.c - a command's options from its table (parseopt.h). */
#include <stdbool.h>
#include <string.h>

#include "parseopt.h"

/* --help: where an option's text begins */
#define HELP_COLUMN 24

struct parser {
	const struct parseopt_cmd *cmd;
	int argc;
	char **argv;
	int i;				/* the argument being read */
	int kept;			/* argv[1..kept-1]: the arguments left */
	bool is_long;			/* the option is given by its long name */
	void *ctx;
	struct error *err;
};

static bool keeps_unknown(const struct parser *p)
{
	return p->cmd->flags & PARSEOPT_KEEP_UNKNOWN;
}

static void keep(struct parser *p, int from, int to)
{
	for (int j = from; j <= to; j++)
		p->argv[p->kept++] = p->argv[j];
}

static bool is_option(const struct parseopt *o)
{
	return o->kind != PARSEOPT_TEXT;
}

static const struct parseopt *find_short(const struct parseopt_cmd *cmd, char c)
{
	for (const struct parseopt *o = cmd->opts; o->kind != PARSEOPT_END; o++)
		if (is_option(o) && o->short_name == c)
			return o;
	return NULL;
}

/* "--no" may be --no-realtime or --no-latency-qos: name them. */
static int ambiguous(const struct parser *p, const char *name, size_t len)
{
	char list[256] = "";
	size_t used = 0;

	for (const struct parseopt *o = p->cmd->opts; o->kind != PARSEOPT_END; o++)
		if (is_option(o) && o->long_name && !strncmp(o->long_name, name, len) &&
		    used < sizeof(list))
			used += (size_t)snprintf(list + used, sizeof(list) - used, "%s--%s",
						 used ? ", " : "", o->long_name);
	return error_set(p->err, "option '--%.*s' is ambiguous: %s (see %s --help)", (int)len, name,
			 list, p->cmd->prog);
}

/* *found: the entry of --name (len characters) or of the one long name
 * it begins, NULL: none.  -1 (err set) when several begin so. */
static int find_long(const struct parser *p, const char *name, size_t len,
		     const struct parseopt **found)
{
	int prefixes = 0;

	*found = NULL;
	for (const struct parseopt *o = p->cmd->opts; len && o->kind != PARSEOPT_END; o++) {
		if (!is_option(o) || !o->long_name || strncmp(o->long_name, name, len))
			continue;
		if (o->long_name[len] == '\0') {
			*found = o;
			return 0;
		}
		*found = o;
		prefixes++;
	}
	if (keeps_unknown(p))
		*found = NULL;	/* an abbreviation may be an option handed on */
	else if (prefixes > 1)
		return ambiguous(p, name, len);
	return 0;
}

static void option_name(const struct parseopt *o, bool is_long, char *buf, size_t size)
{
	if (is_long)
		snprintf(buf, size, "--%s", o->long_name);
	else
		snprintf(buf, size, "-%c", o->short_name);
}

/* The argument after the option's own: NULL when none (err set when one
 * was required). */
static const char *next_arg(struct parser *p, const struct parseopt *o, bool is_long)
{
	char name[64];

	if (p->i + 1 < p->argc &&
	    (!(o->flags & PARSEOPT_OPTARG) || p->argv[p->i + 1][0] != '-'))
		return p->argv[++p->i];
	if (o->flags & PARSEOPT_OPTARG)
		return NULL;
	option_name(o, is_long, name, sizeof(name));
	error_set(p->err, "option '%s' needs an argument (see %s --help)", name, p->cmd->prog);
	return NULL;
}

/* *arg: attached (-xV, --x=V), else the next argument if o takes one.
 * -1 (err set) when a required one is missing. */
static int option_arg(struct parser *p, const struct parseopt *o, const char *attached,
		      bool is_long, const char **arg)
{
	*arg = attached;
	if (attached || !o->argh || (o->flags & PARSEOPT_ATTACHED))
		return 0;
	*arg = next_arg(p, o, is_long);
	return *arg || (o->flags & PARSEOPT_OPTARG) ? 0 : -1;
}

/* fn sees the entry with the name given only: its errors can quote it. */
static int call(struct parser *p, const struct parseopt *o, const char *arg)
{
	struct parseopt given = *o;

	if (p->is_long)
		given.short_name = 0;
	else
		given.long_name = NULL;
	return o->fn(&given, arg, p->ctx, p->err);
}

/* Do what o says; keep argv[start..i] too when it says so. */
static int run(struct parser *p, const struct parseopt *o, const char *arg, int start)
{
	char *field = (char *)p->ctx + o->off;
	int rc = 0;

	switch (o->kind) {
	case PARSEOPT_BOOL:
		*(bool *)field = o->value;
		break;
	case PARSEOPT_STRING:
		*(const char **)field = arg;
		break;
	case PARSEOPT_CALL:
		rc = call(p, o, arg);
		break;
	case PARSEOPT_HELP:
		parseopt_usage(p->cmd, stdout);
		return 1;
	case PARSEOPT_VERSION:
		printf("%s %s\n", p->cmd->prog, SAMPLER_VERSION);
		return 1;
	default:
		break;
	}
	if (rc == 0 && (o->flags & PARSEOPT_KEEP))
		keep(p, start, p->i);
	return rc;
}

static int unknown(struct parser *p)
{
	if (keeps_unknown(p)) {
		keep(p, p->i, p->i);
		return 0;
	}
	return error_set(p->err, "unknown option '%s' (see %s --help)", p->argv[p->i],
			 p->cmd->prog);
}

static int parse_long(struct parser *p)
{
	const char *name = p->argv[p->i] + 2, *eq = strchr(name, '='), *arg;
	size_t len = eq ? (size_t)(eq - name) : strlen(name);
	const struct parseopt *o;
	int start = p->i;

	p->is_long = true;
	if (find_long(p, name, len, &o) < 0)
		return -1;
	if (!o)
		return unknown(p);
	if (eq && !o->argh)
		return error_set(p->err, "option '--%s' takes no argument (drop '%s'; see %s --help)",
				 o->long_name, eq, p->cmd->prog);
	if (option_arg(p, o, eq ? eq + 1 : NULL, true, &arg) < 0)
		return -1;
	return run(p, o, arg, start);
}

/* A command that hands unknown options on takes only -x and -xVALUE: a
 * cluster (-dg) may hold letters of the other command. */
static int parse_short_alone(struct parser *p)
{
	const char *a = p->argv[p->i];
	const struct parseopt *o = find_short(p->cmd, a[1]);
	const char *arg;

	p->is_long = false;
	if (!o || (!o->argh && a[2]))
		return unknown(p);
	if (option_arg(p, o, a[2] ? a + 2 : NULL, false, &arg) < 0)
		return -1;
	return run(p, o, arg, p->i);
}

/* -d, -dg, -oFILE, -o FILE, -dgo FILE: an option that takes an argument
 * ends the cluster. */
static int parse_short(struct parser *p)
{
	const char *a = p->argv[p->i];
	int start = p->i;

	if (keeps_unknown(p))
		return parse_short_alone(p);
	p->is_long = false;
	for (const char *c = a + 1; *c; c++) {
		const struct parseopt *o = find_short(p->cmd, *c);
		const char *arg;
		int rc;

		if (!o)
			return unknown(p);
		if (option_arg(p, o, o->argh && c[1] ? c + 1 : NULL, false, &arg) < 0)
			return -1;
		rc = run(p, o, arg, start);
		if (rc || o->argh)
			return rc;
	}
	return 0;
}

static void finish(struct parser *p, bool dashdash, struct parseopt_rest *rest)
{
	rest->dashdash = dashdash;
	if (p->cmd->flags & PARSEOPT_STOP_AT_ARG) {
		rest->args = p->argv + p->i;
		rest->nargs = p->argc - p->i;
		rest->nbefore = dashdash ? 0 : rest->nargs;
		return;
	}
	rest->nbefore = p->kept - 1;
	keep(p, p->i, p->argc - 1);
	p->argv[p->kept] = NULL;
	rest->args = p->argv + 1;
	rest->nargs = p->kept - 1;
}

int parseopt_parse(const struct parseopt_cmd *cmd, int argc, char **argv, void *ctx,
		   struct parseopt_rest *rest, struct error *err)
{
	struct parser p = { .cmd = cmd, .argc = argc, .argv = argv, .i = 1, .kept = 1,
			     .ctx = ctx, .err = err };
	bool dashdash = false;

	for (; p.i < argc; p.i++) {
		const char *a = argv[p.i];
		int rc;

		if (!strcmp(a, "--")) {
			dashdash = true;
			p.i++;
			break;
		}
		if (a[0] != '-' || a[1] == '\0') {	/* "-": stdin, an argument */
			if (cmd->flags & PARSEOPT_STOP_AT_ARG)
				break;
			keep(&p, p.i, p.i);
			continue;
		}
		rc = a[1] == '-' ? parse_long(&p) : parse_short(&p);
		if (rc)
			return rc;
	}
	finish(&p, dashdash, rest);
	return 0;
}

/* "  -o, --output FILE", "      --force", "  -g", "  PROFILE" */
static int entry_left(const struct parseopt *o, char *buf, size_t size)
{
	if (o->kind == PARSEOPT_TEXT)
		return snprintf(buf, size, "  %s", o->argh);
	return snprintf(buf, size, "  %c%c%s%s%s%s%s%s", o->short_name ? '-' : ' ',
			o->short_name ? o->short_name : ' ',
			o->short_name && o->long_name ? ", " : o->long_name ? "  " : "", o->long_name ? "--" : "",
			o->long_name ? o->long_name : "",
			!o->argh ? "" : o->flags & PARSEOPT_ATTACHED ? "[=" : " ",
			o->argh ? o->argh : "", o->argh && o->flags & PARSEOPT_ATTACHED ? "]" : "");
}

static void usage_entry(const struct parseopt *o, FILE *out)
{
	char left[128];
	int n = entry_left(o, left, sizeof(left));

	fputs(left, out);
	if (o->help)
		fprintf(out, "%*s", n < HELP_COLUMN ? HELP_COLUMN - n : 2, "");
	for (const char *h = o->help; h && *h; h++) {
		putc(*h, out);
		if (*h == '\n')
			fprintf(out, "%*s", HELP_COLUMN, "");
	}
	putc('\n', out);
}

void parseopt_usage(const struct parseopt_cmd *cmd, FILE *out)
{
	fputs(cmd->usage, out);
	for (const struct parseopt *o = cmd->opts; o->kind != PARSEOPT_END; o++)
		if (!(o->flags & PARSEOPT_HIDDEN))
			usage_entry(o, out);
	if (cmd->footer)
		fputs(cmd->footer, out);
}
