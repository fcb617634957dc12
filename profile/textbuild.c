/* textbuild.c - a profile from its text view (textbuild.h): each line is
 * split into fields, checked and turned into the record the writer takes. */
#include "textbuild.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "../common/error.h"
#include "../common/grow.h"
#include "textform.h"

/* ---- build: parsing the text ------------------------------------------ */

#define MAX_FIELDS 32

struct field {
	char *key;
	char *value;		/* unescaped in place */
	bool used;
};

struct line {
	unsigned long number;
	char *word;		/* record type */
	struct field fields[MAX_FIELDS];
	unsigned nfields;
};

static int unescape(char *s, struct line *l, struct error *err)
{
	const char *bad;

	if (textform_unescape(s, &bad) < 0)
		return error_set(err, "line %lu: bad %%-escape in \"%.20s\" (write %%XX with two hex digits, not %%00)",
				 l->number, bad);
	return 0;
}

static int split_line(char *text, struct line *l, struct error *err)
{
	char *save = NULL, *tok;

	l->nfields = 0;
	l->word = strtok_r(text, " \t\r", &save);
	while ((tok = strtok_r(NULL, " \t\r", &save))) {
		char *eq = strchr(tok, '=');
		struct field *f;

		if (!eq)
			return error_set(err, "line %lu: field \"%s\" has no '=' (write key=value)",
					 l->number, tok);
		if (l->nfields == MAX_FIELDS)
			return error_set(err, "line %lu: more than %d fields", l->number, MAX_FIELDS);
		*eq = '\0';
		f = &l->fields[l->nfields++];
		*f = (struct field){ .key = tok, .value = eq + 1 };
		if (unescape(f->value, l, err) < 0)
			return -1;
	}
	return 0;
}

/* The value of key, or NULL when the line lacks it (then defaults hold). */
static const char *field(struct line *l, const char *key)
{
	for (unsigned i = 0; i < l->nfields; i++) {
		if (strcmp(l->fields[i].key, key) == 0) {
			l->fields[i].used = true;
			return l->fields[i].value;
		}
	}
	return NULL;
}

/* Derived fields are ignored on input; anything else unknown is a typo. */
static int check_fields(struct line *l, struct error *err)
{
	/* what dump prints but the writer computes itself */
	static const struct { const char *word, *key; } derived[] = {
		{ "ts", "pid" }, { "ts", "dcpu" }, { "ts", "dcounters" },
		{ "exit", "dcpu" }, { "exit", "dcounters" }, { "exit", "last_pc" },
		{ "ts", "clock_cpu" },
	};

	for (unsigned i = 0; i < l->nfields; i++) {
		bool ignorable = false;

		if (l->fields[i].used)
			continue;
		for (unsigned j = 0; j < sizeof(derived) / sizeof(derived[0]); j++)
			ignorable |= strcmp(l->word, derived[j].word) == 0 &&
				     strcmp(l->fields[i].key, derived[j].key) == 0;
		if (!ignorable)
			return error_set(err, "line %lu: unknown field \"%s\" in a %s line",
					 l->number, l->fields[i].key, l->word);
	}
	return 0;
}

static int get_u64(struct line *l, const char *key, uint64_t *v, struct error *err)
{
	const char *s = field(l, key);
	char *end;

	*v = 0;
	if (!s)
		return 0;
	errno = 0;
	*v = strtoull(s, &end, 0);
	if (errno || end == s || *end || *s == '-')
		return error_set(err, "line %lu: %s=\"%s\" is not an unsigned number", l->number, key, s);
	return 0;
}

static int get_u32(struct line *l, const char *key, uint32_t *v, struct error *err)
{
	uint64_t wide;

	if (get_u64(l, key, &wide, err) < 0)
		return -1;
	if (wide > UINT32_MAX)
		return error_set(err, "line %lu: %s=%" PRIu64 " is out of range", l->number, key, wide);
	*v = (uint32_t)wide;
	return 0;
}

static int parse_double(const char *s, double *v)
{
	char *end;

	*v = strtod(s, &end);
	return end == s || *end ? -1 : 0;
}

static int get_double(struct line *l, const char *key, double *v, struct error *err)
{
	const char *s = field(l, key);

	*v = 0;
	if (s && parse_double(s, v) < 0)
		return error_set(err, "line %lu: %s=\"%s\" is not a number", l->number, key, s);
	return 0;
}

static int get_str(struct line *l, const char *key, char *dst, size_t size, struct error *err)
{
	const char *s = field(l, key);

	dst[0] = '\0';
	if (!s)
		return 0;
	if (strlen(s) >= size)
		return error_set(err, "line %lu: %s is longer than %zu bytes", l->number, key, size - 1);
	strcpy(dst, s);
	return 0;
}

#define GET_STR(l, key, dst, err) get_str(l, key, dst, sizeof(dst), err)

/* A comma-separated list of exactly n doubles or uint64s. */
static int get_list(struct line *l, const char *key, uint32_t n, double *dv, uint64_t *uv,
		    struct error *err)
{
	const char *s = field(l, key);
	char buf[64];
	uint32_t count = 0;

	while (s && *s) {
		size_t len = strcspn(s, ",");
		char *end;

		if (count == n || len >= sizeof(buf))
			goto bad;
		memcpy(buf, s, len);
		buf[len] = '\0';
		if (dv && parse_double(buf, &dv[count]) < 0)
			goto bad;
		if (uv) {
			errno = 0;
			uv[count] = strtoull(buf, &end, 0);
			if (errno || end == buf || *end || buf[0] == '-')
				goto bad;
		}
		count++;
		s += len;
		if (*s == ',' && *++s == '\0')
			goto bad;
	}
	if (count == n)
		return 0;
bad:
	return error_set(err, "line %lu: %s= must list %u comma-separated numbers, one per channel of that scope",
			 l->number, key, n);
}

/* ---- build: records --------------------------------------------------- */

struct builder {
	const char *path;
	enum profile_format format;
	struct profile_info info;
	struct profile_writer *w;
	struct profile_sample sample;	/* being collected from ts lines */
	uint32_t pending;		/* ts lines still expected */
	size_t threads_cap;		/* of sample.threads */
	uint64_t *counters;
	size_t counters_cap;
	uint64_t *frames;		/* PROFILE_MAX_FRAMES per thread of the sample */
	size_t frames_cap;
	struct profile_clock_sample *clock;	/* the sample's, from its ts lines */
	size_t nclock, clock_cap;
	uint64_t *clock_frames;		/* PROFILE_MAX_FRAMES per clock sample */
	size_t clock_frames_cap;
	double values[PROFILE_MAX_CHANNELS];
	bool finished;
	struct profile_map map;		/* large records, parsed in place */
	struct profile_exec exec;
};

static int parse_host(struct line *l, struct profile_host *h, struct error *err)
{
	if (GET_STR(l, "hostname", h->hostname, err) < 0 ||
	    GET_STR(l, "os_release", h->os_release, err) < 0 ||
	    GET_STR(l, "os_version", h->os_version, err) < 0 ||
	    GET_STR(l, "arch", h->arch, err) < 0 ||
	    GET_STR(l, "cpu_desc", h->cpu_desc, err) < 0 ||
	    GET_STR(l, "cpu_id", h->cpu_id, err) < 0 ||
	    get_u32(l, "nr_cpus_online", &h->nr_cpus_online, err) < 0 ||
	    get_u32(l, "nr_cpus_avail", &h->nr_cpus_avail, err) < 0 ||
	    get_u64(l, "total_mem_kb", &h->total_mem_kb, err) < 0 ||
	    GET_STR(l, "sampler_version", h->sampler_version, err) < 0 ||
	    GET_STR(l, "cmdline", h->cmdline, err) < 0 ||
	    get_u64(l, "realtime_ns", &h->realtime_ns, err) < 0 ||
	    get_u64(l, "monotonic_ns", &h->monotonic_ns, err) < 0 ||
	    get_u64(l, "start_ns", &h->start_ns, err) < 0 ||
	    get_double(l, "target_hz", &h->target_hz, err) < 0 ||
	    GET_STR(l, "rank", h->rank, err) < 0 ||
	    GET_STR(l, "job_id", h->job_id, err) < 0)
		return -1;
	return 0;
}

static int parse_channel(struct line *l, struct profile_info *info, struct error *err)
{
	struct channel_desc *c;
	const char *kind, *scope, *reading;

	if (info->nchannels == PROFILE_MAX_CHANNELS)
		return error_set(err, "line %lu: more than %d channels", l->number, PROFILE_MAX_CHANNELS);
	c = &info->channels[info->nchannels++];
	if (GET_STR(l, "name", c->name, err) < 0 || GET_STR(l, "source", c->source, err) < 0 ||
	    GET_STR(l, "unit", c->unit, err) < 0 || get_double(l, "scale", &c->scale, err) < 0)
		return -1;
	kind = field(l, "kind");
	scope = field(l, "scope");
	if (!kind || channel_kind_parse(kind, &c->kind) < 0)
		return error_set(err, "line %lu: kind=%s is not energy, power, current, voltage or counter",
				 l->number, kind ? kind : "(missing)");
	if (scope && strcmp(scope, "thread") == 0)
		c->scope = CHANNEL_PER_THREAD;
	else if (scope && strcmp(scope, "sample") == 0)
		c->scope = CHANNEL_PER_SAMPLE;
	else
		return error_set(err, "line %lu: scope=%s is not sample or thread",
				 l->number, scope ? scope : "(missing)");
	if ((c->has_update = field(l, "update_ms") != NULL) &&
	    get_double(l, "update_ms", &c->update_ms, err) < 0)
		return -1;
	if ((c->has_delay = field(l, "delay_ms") != NULL) &&
	    get_double(l, "delay_ms", &c->delay_ms, err) < 0)
		return -1;
	if ((reading = field(l, "reading")) && strcmp(reading, "latest") != 0)
		return error_set(err, "line %lu: reading=%s is not latest (leave it out for a reading asked for after the previous sample)",
				 l->number, reading);
	c->reads_latest = reading != NULL;
	if ((c->has_update && !channel_timing_ok(c->update_ms)) ||
	    (c->has_delay && !channel_timing_ok(c->delay_ms)))
		return error_set(err, "line %lu: update_ms= and delay_ms= are milliseconds from 0 to %g",
				 l->number, CHANNEL_TIMING_MAX_MS);
	profile_info_index_channels(info);
	return 0;
}

static int parse_prot(struct line *l, uint32_t *prot, struct error *err)
{
	const char *s = field(l, "prot");

	*prot = 0;
	if (!s)
		return 0;
	if (strlen(s) != 3 || !strchr("r-", s[0]) || !strchr("w-", s[1]) || !strchr("x-", s[2]))
		return error_set(err, "line %lu: prot=%s is not like r-x", l->number, s);
	*prot = (s[0] == 'r' ? PROT_READ : 0) | (s[1] == 'w' ? PROT_WRITE : 0) |
		(s[2] == 'x' ? PROT_EXEC : 0);
	return 0;
}

static int parse_dev(struct line *l, struct profile_map *m, struct error *err)
{
	const char *s = field(l, "dev");
	unsigned major, minor;
	int n = 0;

	if (!s)
		return 0;
	if (sscanf(s, "%x:%x%n", &major, &minor, &n) != 2 || s[n])
		return error_set(err, "line %lu: dev=%s is not MAJOR:MINOR in hex", l->number, s);
	m->dev_major = major;
	m->dev_minor = minor;
	return 0;
}

/* build_id=HEX: 1 to PROFILE_BUILD_ID_MAX bytes, or none. */
static int parse_build_id(struct line *l, struct profile_map *m, struct error *err)
{
	const char *s = field(l, "build_id");
	size_t len = s ? strlen(s) : 0;

	if (!s)
		return 0;
	if (len < 2 || len % 2 || len / 2 > PROFILE_BUILD_ID_MAX ||
	    strspn(s, "0123456789abcdefABCDEF") != len)
		return error_set(err, "line %lu: build_id=%s is not 1 to %d bytes in hex",
				 l->number, s, PROFILE_BUILD_ID_MAX);
	for (size_t i = 0; i < len / 2; i++)
		sscanf(s + 2 * i, "%2hhx", &m->build_id[i]);
	m->build_id_len = (uint8_t)(len / 2);
	return 0;
}

static int build_map(struct builder *b, struct line *l, struct error *err)
{
	struct profile_map *m = &b->map;

	memset(m, 0, sizeof(*m));
	if (get_u32(l, "pid", &m->pid, err) < 0 || get_u64(l, "time", &m->time_ns, err) < 0 ||
	    get_u64(l, "start", &m->start, err) < 0 || get_u64(l, "len", &m->len, err) < 0 ||
	    get_u64(l, "pgoff", &m->pgoff, err) < 0 || parse_dev(l, m, err) < 0 ||
	    get_u64(l, "inode", &m->inode, err) < 0 || parse_prot(l, &m->prot, err) < 0 ||
	    GET_STR(l, "path", m->path, err) < 0 || parse_build_id(l, m, err) < 0 ||
	    get_u64(l, "file_size", &m->file_size, err) < 0 ||
	    get_u64(l, "file_mtime", &m->file_mtime_ns, err) < 0 || check_fields(l, err) < 0)
		return -1;
	return profile_write_map(b->w, m, err);
}

static int build_exec(struct builder *b, struct line *l, struct error *err)
{
	struct profile_exec *e = &b->exec;

	memset(e, 0, sizeof(*e));
	if (get_u32(l, "pid", &e->pid, err) < 0 || get_u64(l, "time", &e->time_ns, err) < 0 ||
	    GET_STR(l, "comm", e->comm, err) < 0 || GET_STR(l, "argv", e->argv, err) < 0 ||
	    check_fields(l, err) < 0)
		return -1;
	return profile_write_exec(b->w, e, err);
}

static int build_process(struct builder *b, struct line *l, struct error *err)
{
	struct profile_process p;

	if (get_u32(l, "pid", &p.pid, err) < 0 || get_u32(l, "ppid", &p.ppid, err) < 0 ||
	    get_u64(l, "time", &p.time_ns, err) < 0 || get_u64(l, "start", &p.start_ns, err) < 0 ||
	    check_fields(l, err) < 0)
		return -1;
	return profile_write_process(b->w, &p, err);
}

static int build_thread(struct builder *b, struct line *l, struct error *err)
{
	struct profile_thread t;

	if (get_u32(l, "tid", &t.tid, err) < 0 || get_u32(l, "pid", &t.pid, err) < 0 ||
	    get_u64(l, "time", &t.time_ns, err) < 0 || check_fields(l, err) < 0)
		return -1;
	return profile_write_thread(b->w, &t, err);
}

static int build_name(struct builder *b, struct line *l, struct error *err)
{
	struct profile_name n;

	memset(&n, 0, sizeof(n));
	if (get_u32(l, "tid", &n.tid, err) < 0 || get_u32(l, "pid", &n.pid, err) < 0 ||
	    get_u64(l, "time", &n.time_ns, err) < 0 || GET_STR(l, "comm", n.name, err) < 0 ||
	    check_fields(l, err) < 0)
		return -1;
	return profile_write_name(b->w, &n, err);
}

static int build_window(struct builder *b, struct line *l, struct error *err)
{
	struct profile_window win;
	uint32_t enabled = 0;

	if (get_u64(l, "time", &win.time_ns, err) < 0 || get_u32(l, "enabled", &enabled, err) < 0 ||
	    check_fields(l, err) < 0)
		return -1;
	if (enabled > 1)
		return error_set(err, "line %lu: enabled=%u is not 0 or 1", l->number, enabled);
	win.enabled = enabled;
	return profile_write_window(b->w, &win, err);
}

static int build_exit(struct builder *b, struct line *l, struct error *err)
{
	struct profile_exit e;
	uint32_t whole = 0;

	memset(&e, 0, sizeof(e));
	e.final = field(l, "cpu") != NULL;	/* final values: cpu= and counters= */
	if (get_u32(l, "tid", &e.tid, err) < 0 || get_u32(l, "pid", &e.pid, err) < 0 ||
	    get_u64(l, "time", &e.time_ns, err) < 0 || get_u32(l, "whole", &whole, err) < 0 ||
	    (e.final && (get_u64(l, "cpu", &e.cpu_ns, err) < 0 ||
			 get_list(l, "counters", b->info.nthread_channels, NULL, e.counters, err) < 0)) ||
	    check_fields(l, err) < 0)
		return -1;
	e.whole_process = whole != 0;
	return profile_write_exit(b->w, &e, err);
}

static int build_sample(struct builder *b, struct line *l, struct error *err)
{
	struct profile_sample *s = &b->sample;
	uint32_t nc = b->info.nthread_channels;

	if (get_u64(l, "time", &s->time_ns, err) < 0 ||
	    get_u32(l, "nthreads", &s->nthreads, err) < 0 ||
	    get_list(l, "values", b->info.nsample_channels, b->values, NULL, err) < 0 ||
	    check_fields(l, err) < 0)
		return -1;
	if (s->nthreads > PROFILE_MAX_THREADS)
		return error_set(err, "line %lu: nthreads=%u exceeds %d", l->number, s->nthreads,
				 PROFILE_MAX_THREADS);
	if (GROW_ARRAY(s->threads, b->threads_cap, s->nthreads) < 0 ||
	    GROW_ARRAY(b->counters, b->counters_cap, (size_t)s->nthreads * (nc + 1)) < 0 ||
	    (b->info.stacks &&
	     GROW_ARRAY(b->frames, b->frames_cap, (size_t)s->nthreads * PROFILE_MAX_FRAMES) < 0))
		return error_set(err, "line %lu: out of memory", l->number);
	s->values = b->values;
	b->pending = s->nthreads;
	b->nclock = 0;
	return s->nthreads ? 0 : profile_write_sample(b->w, s, err);
}

/* stack=ADDR,... (callers, innermost first) and stack_end=NAME. */
static int get_stack(struct line *l, struct profile_thread_sample *t, uint64_t *frames,
		     struct error *err)
{
	const char *s = field(l, "stack"), *end = field(l, "stack_end");
	uint32_t n = 0;

	t->frames = frames;
	while (s && *s) {
		char *next;

		if (n == PROFILE_MAX_FRAMES)
			return error_set(err, "line %lu: stack= lists more than %d frames",
					 l->number, PROFILE_MAX_FRAMES);
		errno = 0;
		frames[n++] = strtoull(s, &next, 0);
		if (errno || next == s || *s == '-' || (*next && *next != ',') ||
		    (*next == ',' && !next[1]))
			return error_set(err, "line %lu: stack= must list addresses separated by commas",
					 l->number);
		s = *next ? next + 1 : next;
	}
	t->nframes = n;
	for (unsigned e = 0; end && e < PROFILE_STACK_NENDS; e++)
		if (strcmp(end, profile_stack_end_name(e)) == 0) {
			t->stack_end = (uint8_t)e;
			return 0;
		}
	if (end)
		return error_set(err, "line %lu: stack_end=%s is not complete, no-cfi, copy-short, unknown-map, max-depth, bad-frame, unreadable or dropped",
				 l->number, end);
	return 0;
}

/* run=FROM,TO: where in its interval the thread ran (ns). */
static int get_run(struct line *l, struct profile_thread_sample *t, struct error *err)
{
	const char *s = field(l, "run");
	char *next;

	if (!s)
		return 0;
	errno = 0;
	t->run_from_ns = strtoull(s, &next, 0);
	if (!errno && next != s && *s != '-' && *next == ',' && next[1] && next[1] != '-') {
		s = next + 1;
		t->run_to_ns = strtoull(s, &next, 0);
		if (!errno && !*next && t->run_to_ns > t->run_from_ns)
			return 0;
	}
	return error_set(err, "line %lu: run= must be FROM,TO, two times in ns with FROM < TO",
			 l->number);
}

/* One list element of a clock field: the text up to the next comma. */
static const char *next_item(const char **s, char *buf, size_t len)
{
	size_t n = strcspn(*s, ",");

	if (n >= len)
		n = len - 1;
	memcpy(buf, *s, n);
	buf[n] = '\0';
	*s += strcspn(*s, ",");
	if (**s == ',')
		(*s)++;
	return buf;
}

/* A clock sample's stack: its callers joined by ':', and its end. */
static int get_clock_stack(struct line *l, const char *text, const char *end,
			   struct profile_clock_sample *c, uint64_t *frames, struct error *err)
{
	c->frames = frames;
	c->nframes = 0;
	while (*text) {
		char *next;

		if (c->nframes == PROFILE_MAX_FRAMES)
			return error_set(err, "line %lu: a clock stack lists more than %d frames",
					 l->number, PROFILE_MAX_FRAMES);
		errno = 0;
		frames[c->nframes++] = strtoull(text, &next, 0);
		if (errno || next == text || *text == '-' || (*next && *next != ':'))
			return error_set(err, "line %lu: clock_stacks= must list addresses joined by ':', stacks separated by commas",
					 l->number);
		text = *next ? next + 1 : next;
	}
	for (unsigned e = 0; e < PROFILE_STACK_NENDS; e++)
		if (strcmp(end, profile_stack_end_name(e)) == 0) {
			c->stack_end = (uint8_t)e;
			return 0;
		}
	return error_set(err, "line %lu: clock_ends= lists an unknown stack end \"%s\"", l->number, end);
}

/* nclock=N clock=PC,... [clock_stacks=... clock_ends=...] on a ts line:
 * the thread was clocked, with N clock samples. */
static int get_clock(struct builder *b, struct line *l, struct profile_thread_sample *t,
		     struct error *err)
{
	const char *pcs = field(l, "clock"), *stacks = field(l, "clock_stacks");
	const char *ends = field(l, "clock_ends");
	char item[16 * PROFILE_MAX_FRAMES + 64], end[32];

	if (!field(l, "nclock"))
		return 0;
	if (get_u32(l, "nclock", &t->nclock, err) < 0)
		return -1;
	if (t->nclock > PROFILE_MAX_CLOCK_SAMPLES)
		return error_set(err, "line %lu: nclock=%u exceeds %d", l->number, t->nclock,
				 PROFILE_MAX_CLOCK_SAMPLES);
	t->clocked = true;
	if (GROW_ARRAY(b->clock, b->clock_cap, b->nclock + t->nclock) < 0 ||
	    (b->info.stacks && GROW_ARRAY(b->clock_frames, b->clock_frames_cap,
					  (b->nclock + t->nclock) * PROFILE_MAX_FRAMES) < 0))
		return error_set(err, "line %lu: out of memory", l->number);
	if (t->nclock && (!pcs || (b->info.stacks && (!stacks || !ends))))
		return error_set(err, "line %lu: nclock=%u without clock=%s", l->number, t->nclock,
				 b->info.stacks ? ", clock_stacks= and clock_ends=" : "");
	for (uint32_t k = 0; k < t->nclock; k++) {
		struct profile_clock_sample *c = &b->clock[b->nclock + k];
		char *next;

		memset(c, 0, sizeof(*c));
		errno = 0;
		c->pc = strtoull(next_item(&pcs, item, sizeof(item)), &next, 0);
		if (errno || next == item || *next)
			return error_set(err, "line %lu: clock= must list nclock PCs separated by commas",
					 l->number);
		if (b->info.stacks &&
		    get_clock_stack(l, next_item(&stacks, item, sizeof(item)),
				    next_item(&ends, end, sizeof(end)), c,
				    b->clock_frames + (b->nclock + k) * PROFILE_MAX_FRAMES, err) < 0)
			return -1;
	}
	if (pcs && *pcs)
		return error_set(err, "line %lu: clock= lists more than nclock=%u PCs", l->number, t->nclock);
	t->clock = NULL;	/* (pointed at when the sample is complete) */
	b->nclock += t->nclock;
	return 0;
}

/* The sample once its last ts line is in: the clock samples (and their
 * frames) pointed at, in order, now that neither array moves. */
static int write_when_complete(struct builder *b, struct error *err)
{
	struct profile_sample *s = &b->sample;
	size_t k = 0;

	if (b->pending)
		return 0;
	for (uint32_t i = 0; i < s->nthreads; i++) {
		struct profile_thread_sample *t = &s->threads[i];

		t->clock = t->nclock ? b->clock + k : NULL;
		for (uint32_t j = 0; j < t->nclock; j++, k++)
			b->clock[k].frames = b->info.stacks ?
					     b->clock_frames + k * PROFILE_MAX_FRAMES : NULL;
	}
	return profile_write_sample(b->w, s, err);
}

static int build_ts(struct builder *b, struct line *l, struct error *err)
{
	struct profile_sample *s = &b->sample;
	uint32_t nc = b->info.nthread_channels;
	struct profile_thread_sample *t;

	if (!b->pending)
		return error_set(err, "line %lu: ts line outside a sample (a sample line with nthreads=N comes first)",
				 l->number);
	t = &s->threads[s->nthreads - b->pending];
	memset(t, 0, sizeof(*t));
	t->counters = b->counters + (size_t)(s->nthreads - b->pending) * (nc + 1);
	if (get_u32(l, "tid", &t->tid, err) < 0 || get_u64(l, "pc", &t->pc, err) < 0 ||
	    get_u64(l, "cpu", &t->cpu_ns, err) < 0 ||
	    get_list(l, "counters", nc, NULL, t->counters, err) < 0 ||
	    (b->info.stacks &&
	     get_stack(l, t, b->frames + (size_t)(s->nthreads - b->pending) * PROFILE_MAX_FRAMES, err) < 0) ||
	    (b->info.runs && get_run(l, t, err) < 0) ||
	    (b->info.clock && get_clock(b, l, t, err) < 0) ||
	    check_fields(l, err) < 0)
		return -1;
	--b->pending;
	return write_when_complete(b, err);
}

static int build_stats(struct builder *b, struct line *l, struct error *err)
{
	struct profile_stats st;
	const char *status = field(l, "exit");
	const char *totals = field(l, "totals");
	uint32_t n = 0;
	int ret;

	memset(&st, 0, sizeof(st));
	for (const char *p = totals; p && *p; p++)
		n += *p == ',';
	if (totals && *totals)
		n++;
	if (n > PROFILE_MAX_CHANNELS)
		return error_set(err, "line %lu: more than %d totals", l->number, PROFILE_MAX_CHANNELS);
	st.nchannels = n;
	for (unsigned i = 0; i < l->nfields; i++)	/* let get_list find it again */
		if (strcmp(l->fields[i].key, "totals") == 0)
			l->fields[i].used = false;
	if (get_u64(l, "wall", &st.wall_ns, err) < 0 || get_u64(l, "latency", &st.latency_ns, err) < 0 ||
	    get_u64(l, "samples", &st.samples, err) < 0 ||
	    get_u64(l, "thread_samples", &st.thread_samples, err) < 0 ||
	    get_u64(l, "missed", &st.missed_slots, err) < 0 ||
	    get_u64(l, "missing", &st.missing_readings, err) < 0 ||
	    get_u64(l, "signals", &st.signals_delivered, err) < 0 ||
	    get_u32(l, "threads", &st.threads_seen, err) < 0 ||
	    get_u32(l, "processes", &st.processes_seen, err) < 0 ||
	    get_list(l, "totals", n, st.channel_totals, NULL, err) < 0 ||
	    get_u64(l, "hold", &st.hold_ns, err) < 0 ||
	    (field(l, "refused") && get_list(l, "refused", n, NULL, st.channel_refused, err) < 0) ||
	    check_fields(l, err) < 0)
		return -1;
	if (!field(l, "hold"))
		st.hold_ns = st.latency_ns;	/* as the reader takes a profile without it */
	if (status) {
		char *end;

		errno = 0;
		long v = strtol(status, &end, 0);

		if (errno || end == status || *end || v < INT32_MIN || v > INT32_MAX)
			return error_set(err, "line %lu: exit=%s is not an exit status", l->number, status);
		st.exit_status = (int32_t)v;
	}
	b->finished = true;
	ret = profile_writer_finish(b->w, &st, NULL, err);
	b->w = NULL;
	return ret;
}

static int open_writer(struct builder *b, struct error *err)
{
	b->info.format = b->format;
	profile_info_index_channels(&b->info);
	b->w = profile_writer_open(b->path, b->format, &b->info, err);
	return b->w ? 0 : -1;
}

struct record_builder {
	const char *word;
	int (*build)(struct builder *b, struct line *l, struct error *err);
};

static const struct record_builder record_builders[] = {
	{ "process", build_process },
	{ "exec", build_exec },
	{ "thread", build_thread },
	{ "name", build_name },
	{ "exit", build_exit },
	{ "map", build_map },
	{ "sample", build_sample },
	{ "ts", build_ts },
	{ "stats", build_stats },
	{ "window", build_window },
};

/* The format line's stacks=1 makes a profile with call stacks, runs=1
 * one whose thread-samples say where they ran; the rest of it (and the
 * truncated line) describes the input, not the output. */
static int build_format(struct builder *b, struct line *l, struct error *err)
{
	const char *stacks = field(l, "stacks"), *runs = field(l, "runs");

	if (b->w)
		return error_set(err, "line %lu: format line after the first record", l->number);
	b->info.stacks = stacks && strcmp(stacks, "0") != 0;
	b->info.runs = runs && strcmp(runs, "0") != 0;
	b->info.clock = field(l, "clock") != NULL;
	return b->info.clock ? get_u64(l, "clock", &b->info.clock_period_ns, err) : 0;
}

static int build_line(struct builder *b, struct line *l, struct error *err)
{
	if (l->word && strcmp(l->word, "format") == 0)
		return build_format(b, l, err);
	if (!l->word || strcmp(l->word, "truncated") == 0)
		return 0;
	if (b->finished)
		return error_set(err, "line %lu: %s after the stats line (stats ends a profile)",
				 l->number, l->word);
	if (strcmp(l->word, "host") == 0 || strcmp(l->word, "channel") == 0) {
		if (b->w)
			return error_set(err, "line %lu: %s line after the first record (host and channel lines come first)",
					 l->number, l->word);
		if (l->word[0] == 'h')
			return parse_host(l, &b->info.host, err) < 0 ? -1 : check_fields(l, err);
		return parse_channel(l, &b->info, err) < 0 ? -1 : check_fields(l, err);
	}
	if (b->pending && strcmp(l->word, "ts") != 0)
		return error_set(err, "line %lu: %u more ts lines expected before this %s line",
				 l->number, b->pending, l->word);
	for (size_t i = 0; i < sizeof(record_builders) / sizeof(record_builders[0]); i++) {
		if (strcmp(l->word, record_builders[i].word) != 0)
			continue;
		if (!b->w && open_writer(b, err) < 0)
			return -1;
		return record_builders[i].build(b, l, err);
	}
	return error_set(err, "line %lu: unknown line type \"%s\"", l->number, l->word);
}

/* Read the text line by line; the writer opens at the first record. */
static int build_all(struct builder *b, struct error *err)
{
	struct line l = { 0 };
	char *text = NULL;
	size_t size = 0;
	int ret = 0;

	while (ret == 0 && getline(&text, &size, stdin) > 0) {
		l.number++;
		text[strcspn(text, "\n")] = '\0';
		if (split_line(text, &l, err) < 0 || build_line(b, &l, err) < 0)
			ret = -1;
	}
	free(text);
	if (ret == 0 && b->pending)
		ret = error_set(err, "input ends %u ts lines short of the last sample", b->pending);
	if (ret == 0 && !b->w && !b->finished)
		ret = open_writer(b, err);
	return ret;
}

int profile_text_build(const char *path, enum profile_format format, struct error *err)
{
	struct builder *b = calloc(1, sizeof(*b));
	int ret;

	if (!b)
		return error_set(err, "out of memory");
	b->path = path;
	b->format = format;
	ret = build_all(b, err);
	if (b->w)	/* no stats line: the profile reads back as truncated */
		profile_writer_abandon(b->w);
	free(b->sample.threads);
	free(b->counters);
	free(b->frames);
	free(b->clock);
	free(b->clock_frames);
	free(b);
	return ret < 0 ? -1 : 0;
}
