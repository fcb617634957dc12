/* perfdata.c - profile to perf.data, file mode or pipe mode.
 *
 * File mode:  [header][ids][attrs][data ...][feature sections][features]
 * The data section is written as the profile is read; the features and the
 * header (with the data size and the feature bitmap) are written at the end.
 * Pipe mode ("-o -"): a short header, HEADER_ATTR and HEADER_FEATURE records,
 * then the data, never seeking.  Records are time-ordered, so a
 * FINISHED_ROUND every few samples keeps perf's reordering queue small.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "../common/fdio.h"
#include "../common/outfile.h"
#include "attribution.h"
#include "export.h"
#include "features.h"
#include "../common/idmap.h"
#include "stackfmt.h"
#include "symbols.h"

#define PERF_MAGIC 0x32454c4946524550ULL	/* "PERFILE2" */
#define OUT_BUFFER_SIZE (1 << 20)
#define SAMPLES_PER_ROUND 64
#define MAX_EVENTS (2 + PROFILE_MAX_CHANNELS)
#define SAMPLE_TYPE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | \
		     PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD)
/* A profile with stacks: every sample ends with its user call chain,
 * PERF_CONTEXT_USER, the sampled PC, then the callers (as perf record -g
 * writes them), so perf report -g, --children and perf script show them. */
#define CHAIN_MAX (3 + PROFILE_MAX_FRAMES)	/* + the marker below */
/* A stack cut short ends in one more caller, outermost: an address in a
 * map of its own named after the cause, "[truncated: no-cfi]" (stackfmt.h),
 * so that perf report and perf script show where and why the stack stops.
 * Cause k's map is [k * MARKER_MAP, (k + 1) * MARKER_MAP), below
 * mmap_min_addr (64 KiB): no real mapping of the process can be there. */
#define MARKER_MAP 0x1000

struct perf_file_section {
	uint64_t offset;
	uint64_t size;
};

struct perf_file_header {
	uint64_t magic;
	uint64_t size;
	uint64_t attr_size;
	struct perf_file_section attrs;
	struct perf_file_section data;
	struct perf_file_section event_types;
	uint64_t features[HEADER_FEAT_BITS / 64];
};

/* PERF_SAMPLE_TID | TIME | IDENTIFIER on every other record (sample_id_all). */
struct sample_id {
	uint32_t pid, tid;
	uint64_t time;
	uint64_t id;
};

struct sample_record {
	struct perf_event_header header;
	uint64_t id;
	uint64_t ip;
	uint32_t pid, tid;
	uint64_t time;
	uint64_t period;
};

enum event_kind {
	EVENT_CPU_TIME,
	EVENT_WALL_TIME,
	EVENT_ENERGY,
	EVENT_COUNTER,
};

struct export_event {
	enum event_kind kind;
	uint32_t slot;			/* in sample values[] or thread counters[] */
	double to_unit;			/* channel value -> the event's integer unit */
	struct period_carry carry;
};

struct out {
	int fd;
	unsigned char *buf;
	size_t len;
	uint64_t flushed;		/* bytes written before buf */
	int error;			/* errno of the first failed write */
};

struct process_state {
	uint32_t ppid;
	uint8_t markers;		/* causes (bits) whose marker map is written */
	bool has_comm;
	char comm[PROFILE_COMM_MAX];
};

struct thread_state {
	uint32_t pid_plus1;		/* 0: not announced, or exited */
	char comm[PROFILE_COMM_MAX];	/* its name ("": none known yet) */
};

struct perf_writer {
	struct out out;
	struct outfile *file;		/* where out goes */
	bool pipe;
	const struct profile_info *info;
	uint32_t nevents;
	struct perf_event_spec events[MAX_EVENTS];
	struct export_event ev[MAX_EVENTS];
	uint64_t data_offset;
	struct idmap processes;		/* pid -> process_state */
	struct idmap threads;		/* tid -> thread_state */
	struct perf_dso *dsos;
	uint64_t last_time;		/* records never go back in time */
	uint64_t prev_sample_ns;
	bool windows;			/* a window record came: it starts the wall time */
	uint64_t first_sample_ns;
	uint64_t nsamples;
	double *shares;
	uint32_t shares_cap;
	uint64_t *chains;		/* with stacks: CHAIN_MAX per thread of a sample */
	uint32_t *nchain;		/* entries of each thread's chain */
	uint32_t chains_cap;
};

/* ---- output --------------------------------------------------------- */

static void out_write(struct out *o, const unsigned char *data, size_t len)
{
	if (!o->error && write_all(o->fd, data, len) < 0)
		o->error = errno;
}

static void out_flush(struct out *o)
{
	out_write(o, o->buf, o->len);
	o->flushed += o->len;
	o->len = 0;
}

static void out_put(struct out *o, const void *data, size_t len)
{
	if (o->len + len > OUT_BUFFER_SIZE)
		out_flush(o);
	if (len > OUT_BUFFER_SIZE) {	/* a large feature: straight through */
		out_write(o, data, len);
		o->flushed += len;
		return;
	}
	memcpy(o->buf + o->len, data, len);
	o->len += len;
}

static void out_zero(struct out *o, size_t len)
{
	static const unsigned char zeros[64];

	while (len) {
		size_t n = len < sizeof(zeros) ? len : sizeof(zeros);

		out_put(o, zeros, n);
		len -= n;
	}
}

static uint64_t out_pos(const struct out *o)
{
	return o->flushed + o->len;
}

/* ---- events ----------------------------------------------------------- */

/* --event: is name one of the events asked for (all when none were)? */
static bool wanted(const struct export_options *opt, const char *name, uint32_t *matched)
{
	if (!opt->nevents)
		return true;
	for (uint32_t i = 0; i < opt->nevents; i++) {
		if (strcmp(opt->events[i], name) == 0) {
			*matched |= 1u << i;
			return true;
		}
	}
	return false;
}

static void add_event(struct perf_writer *w, const char *name, uint64_t config,
		      enum event_kind kind, uint32_t slot, double to_unit)
{
	struct perf_event_spec *e = &w->events[w->nevents];
	struct perf_event_attr *a = &e->attr;

	snprintf(e->name, sizeof(e->name), "%s", name);
	e->id = w->nevents + 1;
	memset(a, 0, sizeof(*a));
	a->type = PERF_TYPE_SOFTWARE;
	a->size = sizeof(*a);
	a->config = config;
	a->sample_period = 1;
	/* No PERF_SAMPLE_CPU: the profile does not record where a thread ran
	 * (perf report --sort cpu then says -001, as for perf record
	 * --per-thread), and a made-up CPU would be a lie. */
	a->sample_type = SAMPLE_TYPE | (w->info->stacks ? PERF_SAMPLE_CALLCHAIN : 0);
	a->exclude_callchain_kernel = w->info->stacks;
	a->inherit = 1;
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
	a->sample_id_all = 1;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
	if (w->nevents == 0) {		/* the tracking event, as perf record's first */
		a->mmap = 1;
		a->mmap2 = 1;
		a->comm = 1;
		a->comm_exec = 1;
		a->task = 1;
	}
	w->ev[w->nevents].kind = kind;
	w->ev[w->nevents].slot = slot;
	w->ev[w->nevents].to_unit = to_unit;
	w->nevents++;
}

/* Every event the profile gives (or those --event names): CPU time, wall
 * time, each per-sample energy channel, each per-thread counter.  One
 * event per export is what perf's sample-counting scripts (stackcollapse,
 * flamegraph) need. */
static int build_events(struct perf_writer *w, const struct export_options *opt,
			struct error *err)
{
	const struct profile_info *info = w->info;
	char name[sizeof(w->events[0].name)];
	char names[1024] = "";
	size_t len = 0;
	uint32_t matched = 0;

	if (wanted(opt, "cpu-time", &matched))
		add_event(w, "cpu-time", PERF_COUNT_SW_TASK_CLOCK, EVENT_CPU_TIME, 0, 1);
	if (wanted(opt, "wall-time", &matched))
		add_event(w, "wall-time", PERF_COUNT_SW_CPU_CLOCK, EVENT_WALL_TIME, 0, 1);
	len += snprintf(names, sizeof(names), "cpu-time, wall-time");
	for (uint32_t k = 0; k < info->nsample_channels && k < PROFILE_MAX_CHANNELS; k++) {
		const struct channel_desc *c = &info->channels[info->sample_channel[k]];
		double scale = c->scale > 0 && isfinite(c->scale) ? c->scale : 1e-6;

		if (c->kind != CHANNEL_ENERGY)
			continue;	/* power, current, voltage: no period to give */
		snprintf(name, sizeof(name), "energy-%s-uJ", c->name);
		if (len < sizeof(names))
			len += snprintf(names + len, sizeof(names) - len, ", %s", name);
		if (wanted(opt, name, &matched))
			add_event(w, name, PERF_COUNT_SW_CPU_CLOCK, EVENT_ENERGY, k, scale * 1e6);
	}
	for (uint32_t k = 0; k < info->nthread_channels && k < PROFILE_MAX_CHANNELS; k++) {
		const struct channel_desc *c = &info->channels[info->thread_channel[k]];

		if (len < sizeof(names))
			len += snprintf(names + len, sizeof(names) - len, ", %s", c->name);
		if (wanted(opt, c->name, &matched))
			add_event(w, c->name, PERF_COUNT_SW_CPU_CLOCK, EVENT_COUNTER, k, 1);
	}
	for (uint32_t i = 0; i < opt->nevents; i++)
		if (!(matched & 1u << i))
			return error_set(err, "no event '%s' in %s (its events: %s)", opt->events[i],
					 opt->input, names);
	return 0;
}

/* ---- header ----------------------------------------------------------- */

static void write_pipe_feature(struct perf_writer *w, const struct perf_feature *f,
			       const struct feat_buf *b)
{
	struct perf_event_header hdr;
	uint64_t feat = f->bit;
	size_t pad = (8 - b->len % 8) % 8;

	if (b->failed || !b->len)
		return;
	hdr.type = PERF_RECORD_HEADER_FEATURE;
	hdr.misc = 0;
	hdr.size = sizeof(hdr) + sizeof(feat) + b->len + pad;
	out_put(&w->out, &hdr, sizeof(hdr));
	out_put(&w->out, &feat, sizeof(feat));
	out_put(&w->out, b->data, b->len);
	out_zero(&w->out, pad);
}

static void header_data(const struct perf_writer *w, struct perf_header_data *h)
{
	h->info = w->info;
	h->events = w->events;
	h->nevents = w->nevents;
	h->dsos = w->dsos;
	h->first_sample_ns = w->first_sample_ns;
	h->last_sample_ns = w->prev_sample_ns;
	h->pipe = w->pipe;
}

/* Pipe mode: the features written either at the start or at the end. */
static void write_pipe_features(struct perf_writer *w, bool at_end)
{
	struct perf_header_data h;

	header_data(w, &h);
	for (size_t i = 0; i < perf_nfeatures; i++) {
		struct feat_buf b = { 0 };

		if (perf_features[i].at_end != at_end)
			continue;
		perf_features[i].write(&b, &h);
		write_pipe_feature(w, &perf_features[i], &b);
		free(b.data);
	}
}

/* Pipe mode has no event names in its attrs: perf record sends each as a
 * PERF_RECORD_EVENT_UPDATE (kind NAME), or perf would call the events by
 * their attrs (task-clock:u) where file mode says cpu-time. */
static void write_pipe_event_name(struct perf_writer *w, const struct perf_event_spec *e)
{
	size_t space = (strlen(e->name) + 1 + 7) / 8 * 8;
	struct perf_event_header hdr = {
		.type = PERF_RECORD_EVENT_UPDATE,
		.size = sizeof(hdr) + 2 * sizeof(uint64_t) + space,
	};
	uint64_t kind = PERF_EVENT_UPDATE_NAME;

	out_put(&w->out, &hdr, sizeof(hdr));
	out_put(&w->out, &kind, sizeof(kind));
	out_put(&w->out, &e->id, sizeof(e->id));
	out_put(&w->out, e->name, strlen(e->name));
	out_zero(&w->out, space - strlen(e->name));
}

static void write_pipe_header(struct perf_writer *w)
{
	uint64_t head[2] = { PERF_MAGIC, sizeof(head) };

	out_put(&w->out, head, sizeof(head));
	for (uint32_t i = 0; i < w->nevents; i++) {
		struct perf_event_header hdr = {
			.type = PERF_RECORD_HEADER_ATTR,
			.size = sizeof(hdr) + sizeof(w->events[i].attr) + sizeof(uint64_t),
		};

		out_put(&w->out, &hdr, sizeof(hdr));
		out_put(&w->out, &w->events[i].attr, sizeof(w->events[i].attr));
		out_put(&w->out, &w->events[i].id, sizeof(uint64_t));
	}
	for (uint32_t i = 0; i < w->nevents; i++)
		write_pipe_event_name(w, &w->events[i]);
	write_pipe_features(w, false);
}

/* File mode: room for the header, then each event's id and the attrs. */
static void write_file_start(struct perf_writer *w)
{
	uint64_t ids_offset;

	out_zero(&w->out, sizeof(struct perf_file_header));
	ids_offset = out_pos(&w->out);
	for (uint32_t i = 0; i < w->nevents; i++)
		out_put(&w->out, &w->events[i].id, sizeof(uint64_t));
	for (uint32_t i = 0; i < w->nevents; i++) {
		struct perf_file_section ids = { ids_offset + i * sizeof(uint64_t),
						 sizeof(uint64_t) };

		out_put(&w->out, &w->events[i].attr, sizeof(w->events[i].attr));
		out_put(&w->out, &ids, sizeof(ids));
	}
	w->data_offset = out_pos(&w->out);
}

static int write_file_end(struct perf_writer *w, struct error *err)
{
	struct perf_file_section sections[HEADER_FEAT_BITS] = { { 0, 0 } };
	struct feat_buf bufs[HEADER_FEAT_BITS];
	struct perf_file_header fh = { 0 };
	struct perf_header_data h;
	uint64_t pos;
	size_t n = 0;

	fh.magic = PERF_MAGIC;
	fh.size = sizeof(fh);
	fh.attr_size = sizeof(struct perf_event_attr) + sizeof(struct perf_file_section);
	fh.attrs.offset = w->data_offset - w->nevents * fh.attr_size;
	fh.attrs.size = w->nevents * fh.attr_size;
	fh.data.offset = w->data_offset;
	fh.data.size = out_pos(&w->out) - w->data_offset;

	header_data(w, &h);
	for (size_t i = 0; i < perf_nfeatures; i++) {
		memset(&bufs[n], 0, sizeof(bufs[n]));
		perf_features[i].write(&bufs[n], &h);
		if (bufs[n].failed || !bufs[n].len) {
			free(bufs[n].data);
			continue;
		}
		fh.features[perf_features[i].bit / 64] |= 1ULL << (perf_features[i].bit % 64);
		n++;
	}
	/* The section table follows the data; the features follow the table. */
	pos = out_pos(&w->out) + n * sizeof(sections[0]);
	for (size_t i = 0; i < n; i++) {
		sections[i].offset = pos;
		sections[i].size = bufs[i].len;
		pos += bufs[i].len;
	}
	out_put(&w->out, sections, n * sizeof(sections[0]));
	for (size_t i = 0; i < n; i++) {
		out_put(&w->out, bufs[i].data, bufs[i].len);
		free(bufs[i].data);
	}
	out_flush(&w->out);
	if (!w->out.error && pwrite(w->out.fd, &fh, sizeof(fh), 0) != (ssize_t)sizeof(fh))
		w->out.error = errno ? errno : EIO;
	if (w->out.error)
		return outfile_write_error(w->file, w->out.error, err);
	return 0;
}

/* ---- records ---------------------------------------------------------- */

static uint64_t record_time(struct perf_writer *w, uint64_t t)
{
	if (t < w->last_time)
		t = w->last_time;
	w->last_time = t;
	return t;
}

static void put_record(struct perf_writer *w, uint32_t type, uint16_t misc,
		       const void *body, size_t body_len, const char *str, size_t str_space,
		       uint32_t pid, uint32_t tid, uint64_t time)
{
	struct perf_event_header hdr;
	struct sample_id sid = { pid, tid, time, w->events[0].id };
	size_t slen = str ? strlen(str) : 0;

	hdr.type = type;
	hdr.misc = misc;
	hdr.size = sizeof(hdr) + body_len + str_space + sizeof(sid);
	out_put(&w->out, &hdr, sizeof(hdr));
	out_put(&w->out, body, body_len);
	if (str_space) {
		out_put(&w->out, str, slen);
		out_zero(&w->out, str_space - slen);
	}
	out_put(&w->out, &sid, sizeof(sid));
}

static size_t string_space(const char *s)
{
	return (strlen(s) + 1 + 7) / 8 * 8;
}

static void emit_comm(struct perf_writer *w, uint32_t pid, uint32_t tid, const char *comm,
		      bool exec, uint64_t time)
{
	uint32_t ids[2] = { pid, tid };

	put_record(w, PERF_RECORD_COMM,
		   PERF_RECORD_MISC_USER | (exec ? PERF_RECORD_MISC_COMM_EXEC : 0),
		   ids, sizeof(ids), comm, string_space(comm), pid, tid, time);
}

static void emit_task(struct perf_writer *w, uint32_t type, uint32_t pid, uint32_t ppid,
		      uint32_t tid, uint32_t ptid, uint64_t time)
{
	struct {
		uint32_t pid, ppid, tid, ptid;
		uint64_t time;
	} body = { pid, ppid, tid, ptid, time };

	put_record(w, type, PERF_RECORD_MISC_USER, &body, sizeof(body), NULL, 0,
		   pid, tid, time);
}

static struct process_state *process_of(struct perf_writer *w, uint32_t pid,
					struct error *err)
{
	struct process_state *p = idmap_get(&w->processes, pid, NULL);

	if (!p)
		error_set(err, "out of memory for %zu processes (free some memory)",
			  idmap_count(&w->processes));
	return p;
}

static struct thread_state *thread_of(struct perf_writer *w, uint32_t tid, struct error *err)
{
	struct thread_state *t = idmap_get(&w->threads, tid, NULL);

	if (!t)
		error_set(err, "out of memory for %zu threads (free some memory)",
			  idmap_count(&w->threads));
	return t;
}

/* FORK and COMM the first time a thread shows up (thread record or sample):
 * named as its name record said, else as its process. */
static int announce_thread(struct perf_writer *w, uint32_t tid, uint32_t pid, uint64_t time,
			   struct error *err)
{
	struct process_state *p;
	struct thread_state *t = thread_of(w, tid, err);

	if (!t)
		return -1;
	if (t->pid_plus1 == pid + 1)
		return 0;
	t->pid_plus1 = pid + 1;
	p = process_of(w, pid, err);
	if (!p)
		return -1;
	if (tid != pid)
		emit_task(w, PERF_RECORD_FORK, pid, pid, tid, pid, time);
	else if (p->ppid && idmap_find(&w->threads, p->ppid))
		emit_task(w, PERF_RECORD_FORK, pid, p->ppid, pid, p->ppid, time);
	if (!t->comm[0] && p->has_comm)
		memcpy(t->comm, p->comm, sizeof(t->comm));
	if (t->comm[0])
		emit_comm(w, pid, tid, t->comm, false, time);
	return 0;
}

/* A thread's name: a COMM when it differs from the one it has. */
static int on_name(struct perf_writer *w, const struct profile_name *rec, struct error *err)
{
	struct thread_state *t = thread_of(w, rec->tid, err);

	if (!t)
		return -1;
	if (strcmp(t->comm, rec->name) == 0)
		return 0;
	snprintf(t->comm, sizeof(t->comm), "%s", rec->name);
	if (t->pid_plus1)	/* else announce_thread names it */
		emit_comm(w, rec->pid, rec->tid, t->comm, false, record_time(w, rec->time_ns));
	return 0;
}

static int on_process(struct perf_writer *w, const struct profile_process *rec, struct error *err)
{
	struct process_state *parent, *p = process_of(w, rec->pid, err);

	if (!p)
		return -1;
	p->ppid = rec->ppid;
	parent = rec->ppid ? idmap_find(&w->processes, rec->ppid) : NULL;
	if (parent && parent->has_comm && !p->has_comm) {
		memcpy(p->comm, parent->comm, sizeof(p->comm));
		p->has_comm = true;
	}
	return 0;
}

static int on_exec(struct perf_writer *w, const struct profile_exec *rec, struct error *err)
{
	struct process_state *p = process_of(w, rec->pid, err);
	struct thread_state *t;
	bool renamed;

	if (!p)
		return -1;
	renamed = p->has_comm;	/* a name before: this is a real exec */
	p->markers = 0;		/* the new image's maps have none */
	snprintf(p->comm, sizeof(p->comm), "%s", rec->comm);
	p->has_comm = true;
	t = idmap_find(&w->threads, rec->pid);
	if (t && t->pid_plus1) {	/* else announce_thread names it later */
		memcpy(t->comm, p->comm, sizeof(t->comm));
		emit_comm(w, rec->pid, rec->pid, p->comm, renamed, record_time(w, rec->time_ns));
	}
	return 0;
}

static void emit_thread_events(struct perf_writer *w, const struct profile_thread_sample *t,
			       const uint64_t *chain, uint32_t nchain, uint64_t time, uint64_t wall);
static uint32_t build_chain(const struct stack_tree *stacks, uint64_t pc, uint32_t id,
			    unsigned stack_end, uint64_t *chain);
static int note_marker(struct perf_writer *w, uint32_t pid, unsigned stack_end, uint64_t time,
		       struct error *err);

/* What a thread did between its last sample and its exit: its CPU time and
 * counts there, at its last sampled PC (0 for a thread never sampled: perf
 * shows it as [unknown]) and stack, so that perf's totals are the profile's. */
static void emit_exit_tail(struct perf_writer *w, const struct stack_tree *stacks,
			   const struct profile_exit *rec, uint64_t time)
{
	uint64_t deltas[PROFILE_MAX_CHANNELS];
	struct profile_thread_sample t = {
		.tid = rec->tid, .pid = rec->pid, .pc = rec->last_pc,
		.cpu_delta_ns = rec->cpu_delta_ns, .counter_deltas = deltas,
	};
	uint32_t nchain = 0;

	if (!rec->final)
		return;
	memcpy(deltas, rec->counter_deltas, sizeof(deltas));
	if (w->info->stacks && w->chains)	/* at its last stack (it was sampled) */
		nchain = build_chain(stacks, rec->last_pc, rec->last_chain, rec->last_stack_end,
				     w->chains);
	/* no wall interval: only CPU time and counts */
	emit_thread_events(w, &t, w->chains, nchain, time, 0);
}

static int on_thread_exit(struct perf_writer *w, const struct stack_tree *stacks,
			  const struct profile_exit *rec, struct error *err)
{
	const struct process_state *p = idmap_find(&w->processes, rec->pid);
	uint64_t time = record_time(w, rec->time_ns);

	if (announce_thread(w, rec->tid, rec->pid, time, err) < 0)
		return -1;
	if (rec->final && note_marker(w, rec->pid, rec->last_stack_end, time, err) < 0)
		return -1;
	emit_exit_tail(w, stacks, rec, time);
	emit_task(w, PERF_RECORD_EXIT, rec->pid, p ? p->ppid : 0, rec->tid,
		  rec->tid == rec->pid && p ? p->ppid : rec->pid, time);
	/* A later thread with this tid (reused) is a new thread: FORK it again. */
	*(struct thread_state *)idmap_find(&w->threads, rec->tid) = (struct thread_state){ 0 };
	return 0;
}

/* One entry per file recorded: a path that named two files in the run
 * (rebuilt meanwhile) has two build IDs. */
static int note_dso(struct perf_writer *w, const char *path, const struct profile_map *m,
		    struct error *err)
{
	struct perf_dso *d;

	if (path[0] == '[' || (path[0] == '/' && path[1] == '/'))
		return 0;	/* [vdso], //anon: no file to read a build-id from */
	for (d = w->dsos; d; d = d->next)
		if (strcmp(d->path, path) == 0 && d->build_id_len == m->build_id_len &&
		    memcmp(d->build_id, m->build_id, m->build_id_len) == 0)
			return 0;
	d = calloc(1, sizeof(*d));
	if (!d || !(d->path = strdup(path))) {
		free(d);
		return error_set(err, "out of memory for the DSO list (free some memory)");
	}
	d->build_id_len = m->build_id_len <= PROFILE_BUILD_ID_MAX ? m->build_id_len : 0;
	memcpy(d->build_id, m->build_id, d->build_id_len);
	d->next = w->dsos;
	w->dsos = d;
	if (w->pipe) {	/* pipe mode: build-ids go as records, before their maps */
		struct feat_buf b = { 0 };

		perf_write_build_id(&b, d);
		if (!b.failed && b.len)
			out_put(&w->out, b.data, b.len);
		free(b.data);
	}
	return 0;
}

static int emit_mmap2(struct perf_writer *w, const struct profile_map *m, struct error *err)
{
	struct {
		uint32_t pid, tid;
		uint64_t start, len, pgoff;
		uint32_t maj, min;
		uint64_t ino, ino_generation;
		uint32_t prot, flags;
	} body = { m->pid, m->pid, m->start, m->len, m->pgoff, m->dev_major, m->dev_minor,
		   m->inode, 0, m->prot, MAP_PRIVATE };
	const char *path = m->path[0] ? m->path : "//anon";

	if (!(m->prot & PROT_EXEC))
		return 0;	/* like perf record without --data */
	if (note_dso(w, path, m, err) < 0)
		return -1;
	put_record(w, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER, &body, sizeof(body),
		   path, string_space(path), m->pid, m->pid, record_time(w, m->time_ns));
	return 0;
}

/* The perf call chain of a thread-sample: PERF_CONTEXT_USER, pc, callers,
 * and the marker of a stack cut short. */
static uint32_t build_chain(const struct stack_tree *stacks, uint64_t pc, uint32_t id,
			    unsigned stack_end, uint64_t *chain)
{
	uint32_t n = 2 + profile_stack_frames(stacks, id, chain + 2, PROFILE_MAX_FRAMES);

	chain[0] = PERF_CONTEXT_USER;
	chain[1] = pc;
	if (stack_end != PROFILE_STACK_COMPLETE && stack_end < PROFILE_STACK_NENDS)
		chain[n++] = (uint64_t)stack_end * MARKER_MAP;
	return n;
}

/* Before a stack cut short: its marker's map in the process, once. */
static int note_marker(struct perf_writer *w, uint32_t pid, unsigned stack_end, uint64_t time,
		       struct error *err)
{
	struct profile_map m = { .pid = pid, .len = MARKER_MAP, .prot = PROT_READ | PROT_EXEC };
	struct process_state *p;
	char buf[STACK_MARKER_MAX];

	if (!w->info->stacks || stack_end == PROFILE_STACK_COMPLETE ||
	    stack_end >= PROFILE_STACK_NENDS)
		return 0;
	p = process_of(w, pid, err);
	if (!p)
		return -1;
	if (p->markers & 1u << stack_end)
		return 0;
	p->markers |= (uint8_t)(1u << stack_end);
	m.start = (uint64_t)stack_end * MARKER_MAP;
	m.time_ns = time;
	snprintf(m.path, sizeof(m.path), "%s", stack_end_marker(stack_end, buf));
	return emit_mmap2(w, &m, err);
}

static void emit_sample(struct perf_writer *w, uint32_t event,
			const struct profile_thread_sample *t, const uint64_t *chain,
			uint32_t nchain, uint64_t time, uint64_t period)
{
	struct sample_record r;
	uint64_t nr = nchain;

	if (!period)
		return;
	r.header.type = PERF_RECORD_SAMPLE;
	r.header.misc = PERF_RECORD_MISC_USER;
	r.header.size = sizeof(r) + (w->info->stacks ? (1 + nr) * sizeof(uint64_t) : 0);
	r.id = w->events[event].id;
	r.ip = t->pc;
	r.pid = t->pid;
	r.tid = t->tid;
	r.time = time;
	r.period = period;
	out_put(&w->out, &r, sizeof(r));
	if (w->info->stacks) {
		out_put(&w->out, &nr, sizeof(nr));
		if (nchain)
			out_put(&w->out, chain, nchain * sizeof(*chain));
	}
}

static int ensure_shares(struct perf_writer *w, uint32_t n, struct error *err)
{
	double *shares;

	if (n > w->shares_cap) {
		shares = realloc(w->shares, n * sizeof(*shares));
		if (!shares)
			return error_set(err, "out of memory for a sample of %u threads", n);
		w->shares = shares;
		w->shares_cap = n;
	}
	if (w->info->stacks && n > w->chains_cap) {
		uint64_t *chains = realloc(w->chains, (size_t)n * CHAIN_MAX * sizeof(*chains));
		uint32_t *nchain = chains ? realloc(w->nchain, n * sizeof(*nchain)) : NULL;

		if (chains)
			w->chains = chains;
		if (!nchain)
			return error_set(err, "out of memory for the call stacks of a sample of %u threads", n);
		w->nchain = nchain;
		w->chains_cap = n;
	}
	return 0;
}

/* Each thread's call chain, once for all its events. */
static void build_chains(struct perf_writer *w, const struct stack_tree *stacks,
			 const struct profile_sample *s)
{
	if (!w->info->stacks)
		return;
	for (uint32_t i = 0; i < s->nthreads; i++)
		w->nchain[i] = build_chain(stacks, s->threads[i].pc, s->threads[i].chain,
					   s->threads[i].stack_end, w->chains + (size_t)i * CHAIN_MAX);
}

static const uint64_t *chain_of(const struct perf_writer *w, uint32_t i)
{
	return w->chains ? w->chains + (size_t)i * CHAIN_MAX : NULL;
}

static uint32_t nchain_of(const struct perf_writer *w, uint32_t i)
{
	return w->nchain ? w->nchain[i] : 0;
}

static void emit_energy(struct perf_writer *w, uint32_t e, const struct profile_sample *s,
			uint64_t time)
{
	struct export_event *ev = &w->ev[e];

	attribute_energy(s, s->values[ev->slot], w->shares);
	for (uint32_t i = 0; i < s->nthreads; i++)
		emit_sample(w, e, &s->threads[i], chain_of(w, i), nchain_of(w, i), time,
			    period_carry_take(&ev->carry, w->shares[i] * ev->to_unit));
}

static void emit_thread_events(struct perf_writer *w, const struct profile_thread_sample *t,
			       const uint64_t *chain, uint32_t nchain, uint64_t time, uint64_t wall)
{
	for (uint32_t e = 0; e < w->nevents; e++) {
		switch (w->ev[e].kind) {
		case EVENT_CPU_TIME:
			emit_sample(w, e, t, chain, nchain, time, t->cpu_delta_ns);
			break;
		case EVENT_WALL_TIME:
			emit_sample(w, e, t, chain, nchain, time, wall);
			break;
		case EVENT_COUNTER:
			emit_sample(w, e, t, chain, nchain, time, t->counter_deltas[w->ev[e].slot]);
			break;
		case EVENT_ENERGY:
			break;	/* per sample, below */
		}
	}
}

static int on_sample(struct perf_writer *w, const struct stack_tree *stacks,
		     const struct profile_sample *s, struct error *err)
{
	uint64_t time = record_time(w, s->time_ns);
	uint64_t wall;

	if (w->nsamples == 0)
		w->first_sample_ns = time;
	if (w->nsamples == 0 && !w->windows)
		wall = time > w->info->host.start_ns ? time - w->info->host.start_ns : 0;
	else
		wall = time > w->prev_sample_ns ? time - w->prev_sample_ns : 0;
	w->prev_sample_ns = time;
	if (ensure_shares(w, s->nthreads, err) < 0)
		return -1;
	build_chains(w, stacks, s);
	for (uint32_t i = 0; i < s->nthreads; i++) {
		if (announce_thread(w, s->threads[i].tid, s->threads[i].pid, time, err) < 0 ||
		    note_marker(w, s->threads[i].pid, s->threads[i].stack_end, time, err) < 0)
			return -1;
		emit_thread_events(w, &s->threads[i], chain_of(w, i), nchain_of(w, i), time, wall);
	}
	for (uint32_t e = 0; e < w->nevents; e++)
		if (w->ev[e].kind == EVENT_ENERGY)
			emit_energy(w, e, s, time);
	if (++w->nsamples % SAMPLES_PER_ROUND == 0)
		out_put(&w->out, &(struct perf_event_header){ PERF_RECORD_FINISHED_ROUND, 0, 8 }, 8);
	return 0;
}

static int perf_record(void *state, const struct profile_record *rec, struct error *err)
{
	struct perf_writer *w = state;

	if (w->out.error)	/* the output is gone: stop reading */
		return outfile_write_error(w->file, w->out.error, err);
	switch (rec->type) {
	case PROFILE_REC_PROCESS:
		return on_process(w, &rec->process, err);
	case PROFILE_REC_EXEC:
		return on_exec(w, &rec->exec, err);
	case PROFILE_REC_THREAD:
		return announce_thread(w, rec->thread.tid, rec->thread.pid,
				       record_time(w, rec->thread.time_ns), err);
	case PROFILE_REC_NAME:
		return on_name(w, &rec->name, err);
	case PROFILE_REC_EXIT:
		return on_thread_exit(w, rec->stacks, &rec->exit, err);
	case PROFILE_REC_MAP:
		return emit_mmap2(w, &rec->map, err);
	case PROFILE_REC_WINDOW:
		/* A window's first sample covers no time outside it. */
		if (rec->window.enabled) {
			w->prev_sample_ns = record_time(w, rec->window.time_ns);
			w->windows = true;
		}
		return 0;
	case PROFILE_REC_SAMPLE:
		return on_sample(w, rec->stacks, &rec->sample, err);
	case PROFILE_REC_STATS:
		return 0;
	}
	return 0;
}

/* ---- open and finish -------------------------------------------------- */

static void perf_free(struct perf_writer *w)
{
	while (w->dsos) {
		struct perf_dso *next = w->dsos->next;

		free(w->dsos->path);
		free(w->dsos);
		w->dsos = next;
	}
	idmap_free(&w->processes);
	idmap_free(&w->threads);
	outfile_abandon(w->file);	/* after an error: the target stays as it was */
	free(w->out.buf);
	free(w->shares);
	free(w->chains);
	free(w->nchain);
	free(w);
}

static void *perf_open(const struct profile_info *info, const struct export_options *opt,
		       struct error *err)
{
	struct perf_writer *w = calloc(1, sizeof(*w));

	if (!w || !(w->out.buf = malloc(OUT_BUFFER_SIZE))) {
		free(w);
		error_set(err, "out of memory for the perf.data writer");
		return NULL;
	}
	w->info = info;
	idmap_init(&w->processes, sizeof(struct process_state));
	idmap_init(&w->threads, sizeof(struct thread_state));
	if (build_events(w, opt, err) < 0) {
		perf_free(w);
		return NULL;
	}
	w->file = outfile_open(opt->output, 0600, opt->force ? OUTFILE_FORCE : 0, err);
	if (!w->file) {
		perf_free(w);
		return NULL;
	}
	w->out.fd = outfile_fd(w->file);
	/* File mode rewrites its header at the end: a FIFO or a device gets
	 * pipe mode, as stdout does. */
	w->pipe = strcmp(opt->output, "-") == 0 || !outfile_is_file(w->file);
	if (w->pipe)
		write_pipe_header(w);
	else
		write_file_start(w);
	return w;
}

/* The recording's end on the wall clock: perf report --header-only shows
 * the file's mtime as "captured on". */
static uint64_t recording_end_realtime(const struct perf_writer *w)
{
	const struct profile_host *h = &w->info->host;
	uint64_t end = w->last_time > h->start_ns ? w->last_time : h->start_ns;

	if (!h->realtime_ns || end < h->monotonic_ns)
		return 0;
	return h->realtime_ns + (end - h->monotonic_ns);
}

static int perf_finish(void *state, const struct export_result *result,
		       struct error *err)
{
	struct perf_writer *w = state;
	int ret = 0;

	(void)result;

	if (!err) {		/* the export failed: keep nothing */
		perf_free(w);
		return 0;
	}
	out_put(&w->out, &(struct perf_event_header){ PERF_RECORD_FINISHED_ROUND, 0, 8 }, 8);
	if (w->pipe) {
		write_pipe_features(w, true);
		out_flush(&w->out);
		if (w->out.error)
			ret = outfile_write_error(w->file, w->out.error, err);
	} else {
		ret = write_file_end(w, err);
		outfile_set_mtime(w->file, recording_end_realtime(w));
	}
	if (ret == 0) {
		ret = outfile_close(w->file, err);
		w->file = NULL;
	}
	perf_free(w);
	return ret;
}

const struct exporter perf_exporter = {
	.name = "perf",
	.open = perf_open,
	.record = perf_record,
	.finish = perf_finish,
};
