/* textform.c - the text form of profile fields and its escape rule. */
#include "textform.h"

#include "../common/textescape.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The text form's separators, escaped on top of the common rule ('"': a
 * CSV field that starts with one would be read as quoted). */
#define TEXTFORM_SEPARATORS " %=,\""

void textform_escaped(FILE *f, const char *s)
{
	textescape_put(f, s, TEXTFORM_SEPARATORS);
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int textform_unescape(char *s, const char **bad)
{
	char *out = s;

	for (; *s; s++) {
		int hi, lo;

		if (*s != '%') {
			*out++ = *s;
			continue;
		}
		hi = hexval(s[1]);
		lo = hi < 0 ? -1 : hexval(s[2]);
		if (lo < 0 || (hi | lo) == 0) {
			if (bad)
				*bad = s;
			return -1;
		}
		*out++ = (char)(hi << 4 | lo);
		s += 2;
	}
	*out = '\0';
	return 0;
}

void textform_double(FILE *f, double d)
{
	char buf[40];

	if (isnan(d)) {
		fputs("nan", f);
		return;
	}
	if (d == floor(d) && fabs(d) < 1e15) {	/* integral: no exponent */
		fprintf(f, "%.0f", d);
		return;
	}
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, d);
		if (strtod(buf, NULL) == d)
			break;
	}
	fputs(buf, f);
}

void textform_str(FILE *f, const char *key, const char *value)
{
	fprintf(f, " %s=", key);
	textform_escaped(f, value);
}

void textform_doubles(FILE *f, const char *key, const double *v, uint32_t n)
{
	fprintf(f, " %s=", key);
	for (uint32_t i = 0; i < n; i++) {
		if (i)
			putc(',', f);
		textform_double(f, v[i]);
	}
}

void textform_u64s(FILE *f, const char *key, const uint64_t *v, uint32_t n)
{
	fprintf(f, " %s=", key);
	for (uint32_t i = 0; i < n; i++)
		fprintf(f, i ? ",%" PRIu64 : "%" PRIu64, v[i]);
}

void textform_host_fields(FILE *f, const struct profile_host *h)
{
	textform_str(f, "hostname", h->hostname);
	textform_str(f, "os_release", h->os_release);
	textform_str(f, "os_version", h->os_version);
	textform_str(f, "arch", h->arch);
	textform_str(f, "cpu_desc", h->cpu_desc);
	textform_str(f, "cpu_id", h->cpu_id);
	fprintf(f, " nr_cpus_online=%" PRIu32 " nr_cpus_avail=%" PRIu32 " total_mem_kb=%" PRIu64,
		h->nr_cpus_online, h->nr_cpus_avail, h->total_mem_kb);
	textform_str(f, "sampler_version", h->sampler_version);
	textform_str(f, "cmdline", h->cmdline);
	fprintf(f, " realtime_ns=%" PRIu64 " monotonic_ns=%" PRIu64 " start_ns=%" PRIu64,
		h->realtime_ns, h->monotonic_ns, h->start_ns);
	fputs(" target_hz=", f);
	textform_double(f, h->target_hz);
	textform_str(f, "rank", h->rank);
	textform_str(f, "job_id", h->job_id);
}

void textform_channel_fields(FILE *f, const struct channel_desc *c)
{
	textform_str(f, "name", c->name);
	textform_str(f, "source", c->source);
	textform_str(f, "unit", c->unit);
	fputs(" scale=", f);
	textform_double(f, c->scale);
	fprintf(f, " kind=%s scope=%s", channel_kind_name(c->kind),
		c->scope == CHANNEL_PER_THREAD ? "thread" : "sample");
	if (c->has_update) {
		fputs(" update_ms=", f);
		textform_double(f, c->update_ms);
	}
	if (c->has_delay) {
		fputs(" delay_ms=", f);
		textform_double(f, c->delay_ms);
	}
	if (c->reads_latest)
		fputs(" reading=latest", f);
}

void textform_stats_fields(FILE *f, const struct profile_stats *s)
{
	uint32_t n = s->nchannels <= PROFILE_MAX_CHANNELS ? s->nchannels : PROFILE_MAX_CHANNELS;

	fprintf(f, " wall=%" PRIu64 " latency=%" PRIu64 " samples=%" PRIu64
		" thread_samples=%" PRIu64 " missed=%" PRIu64 " missing=%" PRIu64
		" signals=%" PRIu64 " threads=%" PRIu32 " processes=%" PRIu32 " exit=%" PRId32,
		s->wall_ns, s->latency_ns, s->samples, s->thread_samples, s->missed_slots,
		s->missing_readings, s->signals_delivered, s->threads_seen, s->processes_seen,
		s->exit_status);
	textform_doubles(f, "totals", s->channel_totals, n);
	fprintf(f, " hold=%" PRIu64, s->hold_ns);
	for (uint32_t i = 0; i < n; i++) {
		if (s->channel_refused[i]) {	/* (none: as before version 5) */
			textform_u64s(f, "refused", s->channel_refused, n);
			break;
		}
	}
}
