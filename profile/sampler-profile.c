/* sampler-profile - the text view of a profile (docs/FORMAT.md, "Text view").
 *
 *   sampler-profile dump FILE        print every record, one per line ("-": stdin)
 *   sampler-profile build [--format native|pperf] OUT < TEXT
 *                                    write a profile from that text
 *                                    (textbuild.c)
 *
 * dump exits 0 for a complete profile, 2 for a truncated one (after a last
 * line "truncated good_bytes=N"), 1 for unreadable or corrupt input.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "../common/error.h"
#include "profile.h"
#include "textbuild.h"
#include "textform.h"

#define PROG "sampler-profile"

/* ---- dump ------------------------------------------------------------- */

static void dump_info(FILE *out, const struct profile_info *info)
{
	fprintf(out, "format name=%s compressed=%d%s%s",
		info->format == PROFILE_FORMAT_PPERF ? "pperf" : "native", info->compressed,
		info->stacks ? " stacks=1" : "", info->runs ? " runs=1" : "");
	if (info->clock)
		fprintf(out, " clock=%" PRIu64, info->clock_period_ns);
	putc('\n', out);
	fputs("host", out);
	textform_host_fields(out, &info->host);
	putc('\n', out);
	for (uint32_t i = 0; i < info->nchannels; i++) {
		fputs("channel", out);
		textform_channel_fields(out, &info->channels[i]);
		putc('\n', out);
	}
}

/* build_id and file_size, file_mtime (when the map has them) go after
 * inode: "prot=... path=..." stay as they were, the end of the line. */
static void dump_map(FILE *out, const struct profile_map *m)
{
	fprintf(out, "map pid=%u time=%" PRIu64 " start=0x%" PRIx64 " len=0x%" PRIx64
		" pgoff=0x%" PRIx64 " dev=%02x:%02x inode=%" PRIu64,
		m->pid, m->time_ns, m->start, m->len, m->pgoff, m->dev_major, m->dev_minor,
		m->inode);
	if (m->build_id_len)
		fputs(" build_id=", out);
	for (unsigned i = 0; i < m->build_id_len; i++)
		fprintf(out, "%02x", m->build_id[i]);
	if (m->file_mtime_ns)
		fprintf(out, " file_size=%" PRIu64 " file_mtime=%" PRIu64, m->file_size,
			m->file_mtime_ns);
	fprintf(out, " prot=%c%c%c", m->prot & PROT_READ ? 'r' : '-',
		m->prot & PROT_WRITE ? 'w' : '-', m->prot & PROT_EXEC ? 'x' : '-');
	textform_str(out, "path", m->path);
	putc('\n', out);
}

/* A thread-sample's call stack: its callers, innermost first. */
static void dump_stack(FILE *out, const struct stack_tree *stacks,
		       const struct profile_thread_sample *t)
{
	static uint64_t frames[PROFILE_MAX_FRAMES];
	uint32_t n = profile_stack_frames(stacks, t->chain, frames, PROFILE_MAX_FRAMES);

	fputs(" stack=", out);
	for (uint32_t i = 0; i < n; i++)
		fprintf(out, i ? ",0x%" PRIx64 : "0x%" PRIx64, frames[i]);
	fprintf(out, " stack_end=%s", profile_stack_end_name(t->stack_end));
}

/* A thread-sample's clock samples, on its ts line before its own stack:
 * nclock=N, clock=PC,... and the CPU time the reader charged to each,
 * clock_cpu=NS,...; with stacks clock_stacks=STACK,... (each its callers,
 * innermost first, joined by ':') and clock_ends=END,... */
static void dump_clock(FILE *out, const struct profile_info *info, const struct stack_tree *stacks,
		       const struct profile_thread_sample *t)
{
	static uint64_t frames[PROFILE_MAX_FRAMES];

	if (!info->clock || !t->clocked)
		return;
	fprintf(out, " nclock=%u", t->nclock);
	if (!t->nclock)
		return;
	for (uint32_t k = 0; k < t->nclock; k++)
		fprintf(out, k ? ",0x%" PRIx64 : " clock=0x%" PRIx64, t->clock[k].pc);
	for (uint32_t k = 0; k < t->nclock; k++)
		fprintf(out, k ? ",%" PRIu64 : " clock_cpu=%" PRIu64, t->clock[k].cpu_ns);
	if (!info->stacks)
		return;
	fputs(" clock_stacks=", out);
	for (uint32_t k = 0; k < t->nclock; k++) {
		uint32_t n = profile_stack_frames(stacks, t->clock[k].chain, frames, PROFILE_MAX_FRAMES);

		if (k)
			putc(',', out);
		for (uint32_t i = 0; i < n; i++)
			fprintf(out, i ? ":0x%" PRIx64 : "0x%" PRIx64, frames[i]);
	}
	for (uint32_t k = 0; k < t->nclock; k++)
		fprintf(out, "%s%s", k ? "," : " clock_ends=",
			profile_stack_end_name(t->clock[k].stack_end));
}

static void dump_sample(FILE *out, const struct profile_info *info, const struct stack_tree *stacks,
			const struct profile_sample *s)
{
	uint32_t nc = info->nthread_channels;

	fprintf(out, "sample time=%" PRIu64 " nthreads=%u", s->time_ns, s->nthreads);
	textform_doubles(out, "values", s->values, info->nsample_channels);
	putc('\n', out);
	for (uint32_t i = 0; i < s->nthreads; i++) {
		const struct profile_thread_sample *t = &s->threads[i];

		fprintf(out, "ts tid=%u pid=%u pc=0x%" PRIx64 " cpu=%" PRIu64 " dcpu=%" PRIu64,
			t->tid, t->pid, t->pc, t->cpu_ns, t->cpu_delta_ns);
		textform_u64s(out, "counters", t->counters, nc);
		textform_u64s(out, "dcounters", t->counter_deltas, nc);
		if (info->runs && t->run_to_ns)
			fprintf(out, " run=%" PRIu64 ",%" PRIu64, t->run_from_ns, t->run_to_ns);
		dump_clock(out, info, stacks, t);
		if (info->stacks)
			dump_stack(out, stacks, t);
		putc('\n', out);
	}
}

static void dump_exit(FILE *out, const struct profile_info *info, const struct profile_exit *e)
{
	uint32_t nc = info->nthread_channels;

	fprintf(out, "exit tid=%u pid=%u time=%" PRIu64 " whole=%d", e->tid, e->pid, e->time_ns,
		e->whole_process);
	if (e->final) {
		fprintf(out, " cpu=%" PRIu64 " dcpu=%" PRIu64 " last_pc=0x%" PRIx64, e->cpu_ns,
			e->cpu_delta_ns, e->last_pc);
		textform_u64s(out, "counters", e->counters, nc);
		textform_u64s(out, "dcounters", e->counter_deltas, nc);
	}
	putc('\n', out);
}

static void dump_stats(FILE *out, const struct profile_stats *s)
{
	fputs("stats", out);
	textform_stats_fields(out, s);
	putc('\n', out);
}

static void dump_record(FILE *out, const struct profile_info *info, const struct profile_record *rec)
{
	switch (rec->type) {
	case PROFILE_REC_PROCESS:
		fprintf(out, "process pid=%u ppid=%u time=%" PRIu64, rec->process.pid,
			rec->process.ppid, rec->process.time_ns);
		if (rec->process.start_ns)
			fprintf(out, " start=%" PRIu64, rec->process.start_ns);
		putc('\n', out);
		break;
	case PROFILE_REC_EXEC:
		fprintf(out, "exec pid=%u time=%" PRIu64, rec->exec.pid, rec->exec.time_ns);
		textform_str(out, "comm", rec->exec.comm);
		textform_str(out, "argv", rec->exec.argv);
		putc('\n', out);
		break;
	case PROFILE_REC_THREAD:
		fprintf(out, "thread tid=%u pid=%u time=%" PRIu64 "\n", rec->thread.tid,
			rec->thread.pid, rec->thread.time_ns);
		break;
	case PROFILE_REC_NAME:
		fprintf(out, "name tid=%u pid=%u time=%" PRIu64, rec->name.tid, rec->name.pid,
			rec->name.time_ns);
		textform_str(out, "comm", rec->name.name);
		putc('\n', out);
		break;
	case PROFILE_REC_EXIT:
		dump_exit(out, info, &rec->exit);
		break;
	case PROFILE_REC_MAP:
		dump_map(out, &rec->map);
		break;
	case PROFILE_REC_SAMPLE:
		dump_sample(out, info, rec->stacks, &rec->sample);
		break;
	case PROFILE_REC_STATS:
		dump_stats(out, &rec->stats);
		break;
	case PROFILE_REC_WINDOW:
		fprintf(out, "window time=%" PRIu64 " enabled=%d\n", rec->window.time_ns,
			rec->window.enabled);
		break;
	}
}

static int cmd_dump(const char *path)
{
	uint64_t repaired[PROFILE_REPAIR_KINDS];
	struct profile_reader *r;
	struct profile_record rec;
	struct error err = { "" };
	uint64_t good;
	int ret;

	r = profile_reader_open(path, &err);
	if (!r) {
		error_print(PROG, &err);
		return 1;
	}
	dump_info(stdout, profile_reader_info(r));
	while ((ret = profile_read_next(r, &rec, &err)) > 0)
		dump_record(stdout, profile_reader_info(r), &rec);
	if (ret == 0 && profile_reader_truncated(r, &good)) {
		printf("truncated good_bytes=%" PRIu64 "\n", good);
		ret = 2;
	}
	for (unsigned k = 0; k < PROFILE_REPAIR_KINDS; k++)
		repaired[k] = profile_reader_repaired(r, k);
	profile_repair_warn(PROG, path, repaired);
	profile_reader_close(r);
	if (fflush(stdout) != 0) {
		error_set(&err, "cannot write the dump: %s", strerror(errno));
		ret = -1;
	}
	if (ret < 0) {
		error_print(PROG, &err);
		return 1;
	}
	return ret;
}

static int cmd_build(const char *path, enum profile_format format)
{
	struct error err = { "" };

	if (profile_text_build(path, format, &err) < 0) {
		error_print(PROG, &err);
		return 1;
	}
	return 0;
}

static int usage(FILE *out, int status)
{
	fputs("usage: sampler-profile dump FILE\n"
	      "       sampler-profile build [--format native|pperf] OUT < TEXT\n"
	      "dump prints a profile (native or pperf, plain or .bz2; FILE - is stdin, a pipe\n"
	      "or FIFO works too) as text, one record per line;\n"
	      "build writes the profile that text describes (OUT ending in .bz2: compressed).\n"
	      "See docs/FORMAT.md.\n", out);
	return status;
}

int main(int argc, char **argv)
{
	enum profile_format format = PROFILE_FORMAT_NATIVE;
	struct error err;
	int i = 2;

	if (argc >= 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0))
		return usage(stdout, 0);
	if (argc == 3 && strcmp(argv[1], "dump") == 0)
		return cmd_dump(argv[2]);
	if (argc < 3 || strcmp(argv[1], "build") != 0)
		return usage(stderr, 1);
	if (strcmp(argv[i], "--format") == 0 && argc == 5) {
		if (strcmp(argv[3], "pperf") == 0) {
			format = PROFILE_FORMAT_PPERF;
		} else if (strcmp(argv[3], "native") != 0) {
			error_set(&err, "unknown format \"%s\" (use native or pperf)", argv[3]);
			error_print(PROG, &err);
			return 1;
		}
		i = 4;
	} else if (argc != 3) {
		return usage(stderr, 1);
	}
	return cmd_build(argv[i], format);
}
