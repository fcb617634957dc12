#include "textout.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#define TEXT_BUFFER_SIZE (1 << 20)

FILE *textout_open(const char *path, struct error *err)
{
	FILE *f = strcmp(path, "-") == 0 ? stdout : fopen(path, "w");

	if (!f) {
		error_set(err, "cannot create %s: %s (choose another path with -o)",
			  path, strerror(errno));
		return NULL;
	}
	setvbuf(f, NULL, _IOFBF, TEXT_BUFFER_SIZE);
	return f;
}

int textout_close(FILE *f, const char *path, struct error *err)
{
	int bad = fflush(f) != 0 || ferror(f);
	int saved = errno;

	if (f != stdout && fclose(f) != 0 && !bad) {
		bad = 1;
		saved = errno;
	}
	if (bad)
		return error_set(err, "cannot write %s: %s (check free space)",
				 strcmp(path, "-") == 0 ? "stdout" : path, strerror(saved));
	return 0;
}

void textout_escaped(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case ' ':
			fputs("%20", f);
			break;
		case '%':
			fputs("%25", f);
			break;
		case '\n':
			fputs("%0A", f);
			break;
		case '=':
			fputs("%3D", f);
			break;
		case ',':
			fputs("%2C", f);
			break;
		default:
			putc(*s, f);
		}
	}
}

static void field(FILE *f, const char *key, const char *value)
{
	fprintf(f, " %s=", key);
	textout_escaped(f, value);
}

void textout_host_fields(FILE *f, const struct profile_host *h)
{
	fputs("hostname=", f);
	textout_escaped(f, h->hostname);
	field(f, "os_release", h->os_release);
	field(f, "os_version", h->os_version);
	field(f, "arch", h->arch);
	field(f, "cpu_desc", h->cpu_desc);
	field(f, "cpu_id", h->cpu_id);
	fprintf(f, " nr_cpus_online=%" PRIu32 " nr_cpus_avail=%" PRIu32 " total_mem_kb=%" PRIu64,
		h->nr_cpus_online, h->nr_cpus_avail, h->total_mem_kb);
	field(f, "sampler_version", h->sampler_version);
	field(f, "cmdline", h->cmdline);
	fprintf(f, " realtime_ns=%" PRIu64 " monotonic_ns=%" PRIu64 " start_ns=%" PRIu64
		" target_hz=%.17g", h->realtime_ns, h->monotonic_ns, h->start_ns, h->target_hz);
}

void textout_stats_fields(FILE *f, const struct profile_stats *s)
{
	fprintf(f, "wall=%" PRIu64 " latency=%" PRIu64 " samples=%" PRIu64
		" thread_samples=%" PRIu64 " missed=%" PRIu64 " missing=%" PRIu64
		" signals=%" PRIu64 " threads=%" PRIu32 " processes=%" PRIu32 " exit=%" PRId32
		" totals=", s->wall_ns, s->latency_ns, s->samples, s->thread_samples,
		s->missed_slots, s->missing_readings, s->signals_delivered, s->threads_seen,
		s->processes_seen, s->exit_status);
	for (uint32_t i = 0; i < s->nchannels && i < PROFILE_MAX_CHANNELS; i++)
		fprintf(f, "%s%.17g", i ? "," : "", s->channel_totals[i]);
}
