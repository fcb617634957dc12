/* record.c - the engine's records (process, exec, thread, name, exit, maps)
 * and the accounting of every reading they carry: per-sample channels,
 * per-thread counters, CPU time.  Every reading that goes into a record is
 * counted here and only here, so the stats totals are exactly what the
 * records add up to. */
#include "engine-internal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>

/* ---- writing ----------------------------------------------------------- */

/* Every record goes through here: the first write failure stops writing
 * (the target still runs to its end) and is reported at the end. */
void record_result(struct engine *e, int rc)
{
	if (rc == 0 || !e->out.writer)
		return;
	e->out.write_failed = true;
	profile_writer_abandon(e->out.writer);
	e->out.writer = NULL;
}

void emit_process(struct engine *e, const struct process *p, uint64_t now)
{
	struct profile_process rec = { .pid = p->pid, .ppid = p->ppid, .time_ns = now };

	if (procfs_read_start(p->pid, now, &rec.start_ns) < 0)
		rec.start_ns = 0;	/* (gone already: none) */
	e->stats.profile.processes_seen++;
	if (e->out.writer)
		record_result(e, profile_write_process(e->out.writer, &rec, &e->out.write_err));
}

void emit_exec(struct engine *e, const struct process *p, uint64_t now)
{
	struct profile_exec rec = { .pid = p->pid, .time_ns = now };

	if (!e->out.writer)
		return;
	procfs_read_comm(p->pid, rec.comm, sizeof(rec.comm));
	procfs_read_cmdline(p->pid, rec.argv, sizeof(rec.argv));
	record_result(e, profile_write_exec(e->out.writer, &rec, &e->out.write_err));
}

/* The thread's name as /proc shows it now, recorded when it differs from
 * the one recorded last: at its first stop, at renames, at its exit. */
void emit_name(struct engine *e, struct task *t, uint64_t now)
{
	struct profile_name rec = { .tid = t->tid, .pid = t->proc->pid, .time_ns = now };

	procfs_read_thread_comm(t->proc->pid, t->tid, rec.name, sizeof(rec.name));
	if (!rec.name[0] || strcmp(rec.name, t->comm) == 0)
		return;
	snprintf(t->comm, sizeof(t->comm), "%s", rec.name);
	if (e->out.writer)
		record_result(e, profile_write_name(e->out.writer, &rec, &e->out.write_err));
}

void emit_thread(struct engine *e, struct task *t, uint64_t now)
{
	struct profile_thread rec = { .tid = t->tid, .pid = t->proc->pid, .time_ns = now };

	e->stats.profile.threads_seen++;
	if (e->out.writer)
		record_result(e, profile_write_thread(e->out.writer, &rec, &e->out.write_err));
	emit_name(e, t, now);
}

/* ---- accounting -------------------------------------------------------- */

/* Read a stopped thread's cumulative counters into values (nothing gained
 * when unreadable) and count what they gained since its previous record. */
void read_counters(struct engine *e, struct task *t, uint64_t *values)
{
	size_t nc = e->tasks.ncounters;

	if (!nc)
		return;
	if (pmu_set_read_thread(e->cfg.pmus, t->tid, values, NULL) < 0)
		memcpy(values, t->counters, nc * sizeof(*values));
	for (size_t c = 0; c < nc; c++) {
		if (e->loop.enabled && !e->loop.baseline && values[c] >= t->counters[c])
			e->out.counter_sum[c] += values[c] - t->counters[c];
		t->counters[c] = values[c];
	}
}

/* The kind of the i-th per-sample channel. */
static enum channel_kind sample_channel_kind(const struct engine *e, size_t i)
{
	for (uint32_t c = 0; c < e->out.nchannels; c++)
		if (e->out.channels[c].scope == CHANNEL_PER_SAMPLE && i-- == 0)
			return e->out.channels[c].kind;
	return CHANNEL_COUNTER;
}

/* Read the per-sample channels into e->out.values while the sample's
 * threads are stopped; only for a sample that is taken (energy read and
 * then not recorded would be in the totals but in no sample). */
void read_sample_channels(struct engine *e)
{
	size_t n = e->cfg.pmus->nsample;
	struct error err;

	if (!n)
		return;
	if (pmu_set_read(e->cfg.pmus, e->out.values, &err) < 0) {
		for (size_t i = 0; i < n; i++)
			e->out.values[i] = NAN;
		if (!e->stats.pmu_failed) {
			e->stats.pmu_failed = true;
			e->stats.pmu_err = err;
		}
	}
	for (size_t i = 0; i < n; i++) {
		/* energy since the last reading was spent outside the window */
		if (e->loop.baseline && sample_channel_kind(e, i) == CHANNEL_ENERGY)
			e->out.values[i] = 0;
		if (isnan(e->out.values[i])) {
			e->out.tally[i].missing++;
			continue;
		}
		e->out.tally[i].sum += e->out.values[i];
		e->out.tally[i].count++;
	}
}

/* The totals in profile form: energy adds up, other readings average; and
 * the readings missing, per channel and in all. */
void channel_totals(struct engine *e)
{
	struct profile_stats *out = &e->stats.profile;
	struct channel_refused refused[CHANNEL_MAX_PER_RUN] = { 0 };
	size_t s = 0, c = 0;

	if (e->cfg.pmus)
		pmu_set_refused(e->cfg.pmus, refused);
	out->nchannels = e->out.nchannels;
	out->missing_readings = 0;
	for (uint32_t i = 0; i < e->out.nchannels; i++) {
		const struct channel_desc *ch = &e->out.channels[i];
		const struct channel_tally *tally = &e->out.tally[s];

		if (ch->scope == CHANNEL_PER_THREAD) {
			out->channel_totals[i] = (double)e->out.counter_sum[c++];
			continue;
		}
		if (ch->kind == CHANNEL_ENERGY)
			out->channel_totals[i] = tally->sum;
		else
			out->channel_totals[i] = tally->count ?
				tally->sum / (double)tally->count : NAN;
		out->missing_readings += tally->missing;
		e->stats.channel_missing[i] = tally->missing;
		e->stats.channel_refused[i] = refused[s];
		out->channel_refused[i] = channel_refused_total(&refused[s]);
		s++;
	}
}

/* ---- records ----------------------------------------------------------- */

/* Read t's CPU time into *cpu.  A reading that fails leaves *cpu as it
 * was (never a zero, which would take back all the thread ran) and is
 * counted; one for want of a descriptor ends the run with a warning. */
void read_cpu(struct engine *e, const struct task *t, uint64_t *cpu)
{
	if (procfs_read_cputime(t->schedstat_fd, t->proc->pid, t->tid, cpu) == 0)
		return;
	e->stats.cpu_unread++;
	if (errno == EMFILE || errno == ENFILE)
		e->stats.cpu_unread_fds++;
}

/* Read the CPU time and counters of a thread at its exit stop (still
 * alive, counters still attached): what it did after its last sample. */
static void read_final(struct engine *e, struct task *t, struct profile_exit *rec)
{
	uint64_t cpu = t->cpu_ns;
	unsigned long msg;

	/* The stop is reported before the thread is off its CPU, and schedstat
	 * is brought up to date only when it leaves (or at a tick), the counter
	 * at every read: read before then, the CPU time lacked what ran since
	 * the last tick, the counter did not.  A ptrace request returns once
	 * the thread is off CPU (the kernel waits for it); then both stand
	 * still, at the same moment. */
	tptrace(e, t, PTRACE_GETEVENTMSG, 0, &msg);
	read_cpu(e, t, &cpu);
	rec->final = true;
	if (cpu < t->cpu_ns)	/* nothing less than we had */
		cpu = t->cpu_ns;
	rec->cpu_ns = recorded_cpu(t, cpu);
	read_counters(e, t, rec->counters);
}

void emit_exit(struct engine *e, struct task *t, uint64_t now, bool readable)
{
	struct profile_exit *rec = &e->out.exit_rec;

	memset(rec, 0, sizeof(*rec));
	rec->tid = t->tid;
	rec->pid = t->proc->pid;
	rec->time_ns = now;
	rec->whole_process = t->proc->live_threads == 0;
	if (readable) {
		read_final(e, t, rec);
		emit_name(e, t, now);
	}
	if (e->out.writer)
		record_result(e, profile_write_exit(e->out.writer, rec, &e->out.write_err));
}

/* One map record, made in rec (4 KiB: not on the stack). */
static void emit_map(struct engine *e, pid_t pid, const struct map_entry *m, uint64_t now,
		     struct profile_map *rec)
{
	*rec = (struct profile_map){
		.pid = pid, .time_ns = now, .start = m->start,
		.len = m->end - m->start, .pgoff = m->pgoff,
		.dev_major = m->dev_major, .dev_minor = m->dev_minor,
		.inode = m->inode, .prot = m->prot,
	};
	snprintf(rec->path, sizeof(rec->path), "%s", m->path);
	if (e->out.buildids)
		buildid_fill_map(e->out.buildids, pid, m, rec);
	record_result(e, profile_write_map(e->out.writer, rec, &e->out.write_err));
}

static void emit_maps(struct engine *e, const struct process *p, uint64_t now)
{
	struct profile_map *rec;

	if (!e->out.writer)
		return;
	rec = malloc(sizeof(*rec));
	if (!rec)
		return;
	for (size_t i = 0; i < p->maps.n && e->out.writer; i++)
		emit_map(e, p->pid, &p->maps.maps[i], now, rec);
	free(rec);
}

/* A thread of p to read its maps through: the leader's /proc/PID/maps is
 * empty once it has exited (pthread_exit), though the others run on.  The
 * leader while it lives, else a live thread, else one at its exit stop. */
static pid_t maps_tid(const struct engine *e, const struct process *p)
{
	pid_t live = 0, exiting = 0;

	for (size_t i = 0; i < e->tasks.ntasks; i++) {
		const struct task *t = e->tasks.tasks[i];

		if (t->proc != p)
			continue;
		if (t->state == TASK_EXITING) {
			exiting = exiting ? exiting : t->tid;
			continue;
		}
		if (t->tid == p->pid)
			return t->tid;
		live = live ? live : t->tid;
	}
	return live ? live : exiting ? exiting : p->pid;
}

/* Re-read the maps of p; write them when they changed (or always).
 * True when they changed. */
bool refresh_maps(struct engine *e, struct process *p, uint64_t now, bool always)
{
	struct map_list fresh;

	if (procfs_read_thread_maps(p->pid, maps_tid(e, p), &fresh, NULL) < 0)
		return false;
	p->maps_read_ns = now;	/* the mappings reported before are in it */
	if (!always && map_list_equal(&fresh, &p->maps)) {
		map_list_free(&fresh);
		return false;
	}
	map_list_free(&p->maps);
	p->maps = fresh;
	p->maps_read_ns = now;
	p->maps_read_n = fresh.n;
	if (e->cfg.stacks)
		callstack_maps_changed(e->cfg.stacks, p->pid);
	emit_maps(e, p, now);
	return true;
}

/* A mapping the process made: into its maps, and recorded at its time. */
struct follow {
	struct engine *e;
	struct process *p;
	struct profile_map *rec;
	bool failed;
};

static int follow_map(void *arg, const struct map_entry *m, uint64_t time_ns)
{
	struct follow *f = arg;

	if (map_list_insert(&f->p->maps, m) < 0) {
		f->failed = true;
		return 1;
	}
	if (f->rec)
		emit_map(f->e, f->p->pid, m, time_ns, f->rec);
	return 0;
}

/* The mappings p made up to time until (mapwatch.h), in its maps and in
 * the profile before the sample of that time.  The maps are read from
 * /proc again when the kernel lost some, or when ranges unmapped since the
 * last reading (the kernel reports no munmap) have made them twice as
 * long: a run that dlopens and dlcloses for ever keeps them bounded. */
void follow_maps(struct engine *e, struct process *p, uint64_t until)
{
	struct follow f = { e, p, NULL, false };
	int n;

	if (!p->watch || p->watched_to >= until)
		return;
	p->watched_to = until;
	if (e->out.writer && !(f.rec = malloc(sizeof(*f.rec))))
		f.failed = true;
	n = f.failed ? -1 : mapwatch_read(p->watch, p->maps_read_ns, until, follow_map, &f);
	free(f.rec);
	if (n < 0 || f.failed || p->maps.n > 2 * p->maps_read_n + MAPS_SLACK) {
		refresh_maps(e, p, until, false);
		return;
	}
	if (n > 0 && e->cfg.stacks)
		callstack_maps_changed(e->cfg.stacks, p->pid);
}

/* ---- set-up ------------------------------------------------------------ */

int record_init(struct engine *e, struct error *err)
{
	struct pmu_set *pmus = e->cfg.pmus;
	size_t ns = pmus->nsample ? pmus->nsample : 1;
	size_t nt = pmus->nthread ? pmus->nthread : 1;

	e->out.buildids = buildid_cache_new();	/* NULL: the maps go without */
	/* Arrays sized by the profile (an exit record's counters, the stats
	 * totals) must hold every channel; the PMU set refuses more, too. */
	if (pmus->nsample + pmus->nthread > PROFILE_MAX_CHANNELS)
		return error_set(err, "%zu channels are more than the %d a run can record (record fewer; split them over several runs)",
				 pmus->nsample + pmus->nthread, PROFILE_MAX_CHANNELS);
	e->out.nchannels = (uint32_t)pmu_set_channels(pmus, e->out.channels, PROFILE_MAX_CHANNELS);
	e->out.values = calloc(ns, sizeof(*e->out.values));
	e->out.tally = calloc(ns, sizeof(*e->out.tally));
	e->out.counter_sum = calloc(nt, sizeof(*e->out.counter_sum));
	if (!e->out.values || !e->out.tally || !e->out.counter_sum)
		return error_set(err, "out of memory");
	return 0;
}

void record_free(struct engine *e)
{
	free(e->out.values);
	free(e->out.tally);
	free(e->out.counter_sum);
	buildid_cache_free(e->out.buildids);
	if (e->out.writer)
		profile_writer_abandon(e->out.writer);
}
