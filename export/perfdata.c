/* perfdata.c - profile to perf.data, file mode or pipe mode: the records.
 *
 * The frame around them (attrs, header, features) is perfheader.c's.
 * Records are time-ordered, so a FINISHED_ROUND every few samples keeps
 * perf's reordering queue small.
 */
#include "perfwriter.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "../common/grow.h"
#include "stackfmt.h"

#define SAMPLES_PER_ROUND 64

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
static void emit_clock(struct perf_writer *w, const struct stack_tree *stacks,
		       const struct profile_thread_sample *t, uint64_t time);

/* What a thread did between its last sample and its exit: its CPU time and
 * counts there, at its last sampled PC (0 for a thread never sampled: perf
 * shows it as [unknown]) and stack, so that perf's totals are the profile's. */
static void emit_exit_tail(struct perf_writer *w, const struct stack_tree *stacks,
			   const struct profile_exit *rec, uint64_t time)
{
	uint64_t deltas[PROFILE_MAX_CHANNELS];
	struct profile_thread_sample t = {
		.tid = rec->tid, .pid = rec->pid, .pc = rec->last_pc,
		.cpu_delta_ns = rec->cpu_delta_ns, .pc_cpu_ns = rec->cpu_delta_ns,
		.nclock = rec->owed.cpu_ns ? 1 : 0, .clock = &rec->owed,
		.counter_deltas = deltas,
	};
	uint32_t nchain = 0;

	if (!rec->final) {	/* gone before it could be read: what it owed alone */
		emit_clock(w, stacks, &t, time);
		return;
	}
	memcpy(deltas, rec->counter_deltas, sizeof(deltas));
	if (w->info->stacks && w->chains)	/* at its last stack (it was sampled) */
		nchain = build_chain(stacks, rec->last_pc, rec->last_chain, rec->last_stack_end,
				     w->chains);
	/* no wall interval: only CPU time and counts */
	emit_thread_events(w, &t, w->chains, nchain, time, 0);
	emit_clock(w, stacks, &t, time);
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
	struct perf_dso **head, *d;

	if (path[0] == '[' || (path[0] == '/' && path[1] == '/'))
		return 0;	/* [vdso], //anon: no file to read a build-id from */
	/* by its path's key: a list walk per map was quadratic in binaries */
	head = idmap_get(&w->dso_by_path, idmap_key_of_string(path), NULL);
	if (!head)
		return error_set(err, "out of memory for the DSO list (free some memory)");
	for (d = *head; d; d = d->same_key)
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
	d->same_key = *head;
	*head = d;
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
	if (GROW_ARRAY(w->shares, w->shares_cap, n) < 0)
		return error_set(err, "out of memory for a sample of %u threads", n);
	if (w->info->stacks && (GROW_ARRAY(w->chains, w->chains_cap, (size_t)n * CHAIN_MAX) < 0 ||
				GROW_ARRAY(w->nchain, w->nchain_cap, n) < 0))
		return error_set(err, "out of memory for the call stacks of a sample of %u threads", n);
	if (w->info->stacks && w->info->clock &&
	    GROW_ARRAY(w->clock_chain, w->clock_chain_cap, CHAIN_MAX) < 0)
		return error_set(err, "out of memory for the call stacks of clock samples");
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

/* The energy of the index-th sample by the rule the other formats use
 * (attribution.h), so perf report and sampler-report agree. */
static void emit_energy(struct perf_writer *w, uint32_t e, const struct profile_sample *s,
			uint64_t time, size_t index)
{
	struct export_event *ev = &w->ev[e];

	energy_source_sample(w->energy, index, s, 0, ev->slot, w->shares);
	for (uint32_t i = 0; i < s->nthreads; i++)
		emit_sample(w, e, &s->threads[i], chain_of(w, i), nchain_of(w, i), time,
			    period_carry_take(&ev->carry, w->shares[i] * ev->to_unit));
}

static void emit_thread_events(struct perf_writer *w, const struct profile_thread_sample *t,
			       const uint64_t *chain, uint32_t nchain, uint64_t time, uint64_t wall)
{
	for (uint32_t e = 0; e < w->nevents; e++) {
		switch (w->ev[e].kind) {
		case EVENT_CPU_TIME:	/* (the rest at its clock samples: emit_clock) */
			emit_sample(w, e, t, chain, nchain, time,
				    w->info->clock ? t->pc_cpu_ns : t->cpu_delta_ns);
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

/* The CPU time of a thread-sample's clock samples (profile.h): each at
 * its own PC and stack, as perf record -e cpu-clock gives them. */
static void emit_clock(struct perf_writer *w, const struct stack_tree *stacks,
		       const struct profile_thread_sample *t, uint64_t time)
{
	for (uint32_t k = 0; k < t->nclock; k++) {
		const struct profile_clock_sample *c = &t->clock[k];
		struct profile_thread_sample at = { .tid = t->tid, .pid = t->pid, .pc = c->pc };
		uint32_t nchain = 0;

		if (w->info->stacks && w->clock_chain)
			nchain = build_chain(stacks, c->pc, c->chain, c->stack_end, w->clock_chain);
		for (uint32_t e = 0; e < w->nevents; e++)
			if (w->ev[e].kind == EVENT_CPU_TIME)
				emit_sample(w, e, &at, w->clock_chain, nchain, time, c->cpu_ns);
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
		emit_clock(w, stacks, &s->threads[i], time);
	}
	for (uint32_t e = 0; e < w->nevents; e++)
		if (w->ev[e].kind == EVENT_ENERGY)
			emit_energy(w, e, s, time, w->nsamples);
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

/* With an energy event, the energies of the whole profile first (the
 * trapezoid rule reads the input once more). */
static int prepare_energy(struct perf_writer *w, struct error *err)
{
	for (uint32_t e = 0; e < w->nevents; e++)
		if (w->ev[e].kind == EVENT_ENERGY)
			return energy_source_prepare(w->energy, err);
	return 0;
}

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
	idmap_free(&w->dso_by_path);
	outfile_abandon(w->file);	/* after an error: the target stays as it was */
	free(w->out.buf);
	free(w->shares);
	free(w->chains);
	free(w->nchain);
	free(w->clock_chain);
	free(w);
}

static void *perf_open(const struct profile_info *info, const struct export_options *opt,
		       struct energy_source *energy, struct error *err)
{
	struct perf_writer *w = calloc(1, sizeof(*w));

	if (!w || !(w->out.buf = malloc(OUT_BUFFER_SIZE))) {
		free(w);
		error_set(err, "out of memory for the perf.data writer");
		return NULL;
	}
	w->info = info;
	w->energy = energy;
	idmap_init(&w->processes, sizeof(struct process_state));
	idmap_init(&w->threads, sizeof(struct thread_state));
	idmap_init(&w->dso_by_path, sizeof(struct perf_dso *));
	if (perf_build_events(w, opt, err) < 0 || prepare_energy(w, err) < 0) {
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
		perf_write_pipe_header(w);
	else
		perf_write_file_start(w);
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
		perf_write_pipe_features(w, true);
		out_flush(&w->out);
		if (w->out.error)
			ret = outfile_write_error(w->file, w->out.error, err);
	} else {
		ret = perf_write_file_end(w, err);
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
	.reads_input_twice = true,	/* the energy estimate (attribution.h) */
	.bytes_per_sample = 80, .bytes_per_frame = 16,
};
