/* firefox.c - the Firefox Profiler's processed profile format (version 66,
 * the one samply writes; https://profiler.firefox.com upgrades it on load;
 * docs/EXPORT.md says why this one).
 *
 * One thread per profiled thread, grouped by process (pid), a single
 * rank's process named "comm[rank R]" as a merged job's ranks are.  Each
 * row (rows.h) with a stack is a sample at its time: its stack (frames
 * named as in the folded output, framenames.h), its CPU time as weight in
 * milliseconds (weightType "tracing-ms", so the call tree sums CPU time)
 * and as threadCPUDelta in ns (the activity graph).  Each energy or power
 * channel is a counter of category "power": per sample, the energy of the
 * sample's rows (the one rule, weight.h) in pWh, what the profiler draws
 * as a power track and sums over a selection.
 *
 * The stack tree and the frame names are shared by all threads; the
 * samples are kept in memory (20 bytes per row, 16 per counter sample)
 * until the file is written at the end.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/grow.h"
#include "export.h"
#include "../common/hash.h"
#include "framenames.h"
#include "../common/json.h"
#include "rows.h"
#include "tasknames.h"
#include "textout.h"
#include "weight.h"

#define FF_VERSION 66
#define PWH_PER_JOULE (1e12 / 3600)

struct ff_sample {
	int64_t time_ns;
	uint64_t cpu_ns;
	uint32_t stack;
};

struct ff_thread {
	uint32_t pid, tid;
	char name[PROFILE_COMM_MAX];
	char process[PROFILE_COMM_MAX];
	struct ff_sample *samples;
	size_t n, cap;
};

struct ff_energy {
	int64_t time_ns;
	double uj;			/* energy since the previous sample */
};

struct ff_counter {
	uint32_t channel;		/* the profile channel */
	struct weight weight;		/* its energy per row (uJ) */
	struct ff_energy *samples;
	size_t n, cap;
};

struct ff_node {
	uint32_t prefix;		/* UINT32_MAX: a root */
	uint32_t frame;
};

struct firefox_writer {
	const char *path;
	bool force;
	const struct profile_info *info;
	struct weight cpu;
	struct rows rows;
	struct task_names names;
	struct frame_names frames;	/* func i = frame i = string i */
	uint32_t ids[FRAME_NAMES_MAX_STACK];
	struct idmap thread_of;		/* tid -> uint32_t index + 1 into threads */
	struct ff_thread *threads;
	size_t nthreads, threads_cap;
	struct ff_node *stacks;		/* the stack tree, parents first */
	size_t nstacks, stacks_cap;
	uint32_t *stack_slots;		/* open addressing: node + 1 */
	size_t stack_slots_cap;
	struct ff_counter counters[PROFILE_MAX_CHANNELS];
	uint32_t ncounters;
};

/* ---- the stack tree --------------------------------------------------- */

static size_t node_slot(uint32_t prefix, uint32_t frame, size_t cap)
{
	uint32_t key[2] = { prefix, frame };

	return hash_bytes(HASH_SEED, key, sizeof(key)) & (cap - 1);
}

static int grow_stack_slots(struct firefox_writer *w)
{
	size_t cap = w->stack_slots_cap ? w->stack_slots_cap * 2 : 1024;
	uint32_t *slots = calloc(cap, sizeof(*slots));

	if (!slots)
		return -1;
	for (size_t i = 0; i < w->nstacks; i++) {
		size_t j = node_slot(w->stacks[i].prefix, w->stacks[i].frame, cap);

		while (slots[j])
			j = (j + 1) & (cap - 1);
		slots[j] = (uint32_t)i + 1;
	}
	free(w->stack_slots);
	w->stack_slots = slots;
	w->stack_slots_cap = cap;
	return 0;
}

/* The node (prefix, frame), added when new; -1 when out of memory. */
static int64_t stack_node(struct firefox_writer *w, uint32_t prefix, uint32_t frame)
{
	size_t i;

	if ((w->nstacks + 1) * 2 > w->stack_slots_cap && grow_stack_slots(w) < 0)
		return -1;
	for (i = node_slot(prefix, frame, w->stack_slots_cap); w->stack_slots[i];
	     i = (i + 1) & (w->stack_slots_cap - 1)) {
		const struct ff_node *s = &w->stacks[w->stack_slots[i] - 1];

		if (s->prefix == prefix && s->frame == frame)
			return w->stack_slots[i] - 1;
	}
	if (GROW_ARRAY(w->stacks, w->stacks_cap, w->nstacks + 1) < 0)
		return -1;
	w->stacks[w->nstacks] = (struct ff_node){ prefix, frame };
	w->stack_slots[i] = (uint32_t)++w->nstacks;
	return (int64_t)w->nstacks - 1;
}

/* ---- rows ------------------------------------------------------------- */

static struct ff_thread *thread_of(struct firefox_writer *w, const struct row *row)
{
	bool created;
	uint32_t *slot = idmap_get(&w->thread_of, row->tid, &created);
	struct ff_thread *t;

	if (!slot)
		return NULL;
	if (created) {
		if (GROW_ARRAY(w->threads, w->threads_cap, w->nthreads + 1) < 0)
			return NULL;
		t = &w->threads[w->nthreads];
		memset(t, 0, sizeof(*t));
		t->tid = row->tid;
		*slot = (uint32_t)++w->nthreads;
	}
	t = &w->threads[*slot - 1];
	t->pid = row->pid;	/* the names as they were last seen */
	snprintf(t->name, sizeof(t->name), "%s", task_names_of(&w->names, row->pid, row->tid));
	snprintf(t->process, sizeof(t->process), "%s", task_names_process(&w->names, row->pid));
	return t;
}

static int add_sample(struct firefox_writer *w, const struct row *row)
{
	int64_t m = frame_names_of_row(&w->frames, &w->rows, row, w->ids), node = -1;
	struct ff_thread *t;

	for (int64_t i = 0; i < m; i++)
		if ((node = stack_node(w, node < 0 ? UINT32_MAX : (uint32_t)node, w->ids[i])) < 0)
			return -1;
	if (m <= 0 || !(t = thread_of(w, row)) || GROW_ARRAY(t->samples, t->cap, t->n + 1) < 0)
		return -1;
	t->samples[t->n++] = (struct ff_sample){ row->time_ns,
		(uint64_t)weight_of_row(&w->cpu, &w->rows, row), (uint32_t)node };
	return 0;
}

/* The row's energy goes to the counter sample at its time (the rows of a
 * sample come together). */
static int add_energy(struct firefox_writer *w, struct ff_counter *c, const struct row *row)
{
	double uj = weight_of_row(&c->weight, &w->rows, row);

	if (row->exit || row->clock)
		return 0;	/* energy 0, and no sample time of their own */
	if (!c->n || c->samples[c->n - 1].time_ns != row->time_ns) {
		if (GROW_ARRAY(c->samples, c->cap, c->n + 1) < 0)
			return -1;
		c->samples[c->n++] = (struct ff_energy){ row->time_ns, 0 };
	}
	c->samples[c->n - 1].uj += uj;
	return 0;
}

static int add_row(void *arg, const struct row *row, struct error *err)
{
	struct firefox_writer *w = arg;

	if (!(row->exit && !row->pc) && add_sample(w, row) < 0)
		goto nomem;
	for (uint32_t i = 0; i < w->ncounters; i++)
		if (add_energy(w, &w->counters[i], row) < 0)
			goto nomem;
	return 0;
nomem:
	return error_set(err, "out of memory for %zu stack nodes of %zu frames", w->nstacks,
			 frame_names_count(&w->frames));
}

static int firefox_record(void *state, const struct profile_record *rec, struct error *err)
{
	struct firefox_writer *w = state;

	if (task_names_record(&w->names, rec, err) < 0 ||
	    rows_record(&w->rows, rec, add_row, w, err) < 0)
		return -1;
	task_names_done(&w->names, rec);
	return 0;
}

/* ---- open and finish -------------------------------------------------- */

static void firefox_free(struct firefox_writer *w)
{
	for (size_t i = 0; i < w->nthreads; i++)
		free(w->threads[i].samples);
	free(w->threads);
	for (uint32_t i = 0; i < w->ncounters; i++)
		free(w->counters[i].samples);
	free(w->stacks);
	free(w->stack_slots);
	idmap_free(&w->thread_of);
	frame_names_free(&w->frames);
	task_names_free(&w->names);
	rows_free(&w->rows);
	free(w);
}

static void *firefox_open(const struct profile_info *info, const struct export_options *opt,
			  struct energy_source *energy, struct error *err)
{
	struct firefox_writer *w = calloc(1, sizeof(*w));
	struct export_options symbolized = *opt;	/* frames are always named */

	if (!w) {
		error_set(err, "out of memory for the firefox writer");
		return NULL;
	}
	w->path = opt->output;
	w->force = opt->force;
	w->info = info;
	task_names_init(&w->names);
	idmap_init(&w->thread_of, sizeof(uint32_t));
	symbolized.symbols = true;
	if (rows_init(&w->rows, info, &symbolized, energy, err) < 0) {
		task_names_free(&w->names);
		idmap_free(&w->thread_of);
		free(w);
		return NULL;
	}
	if (weight_parse(&w->cpu, info, "cpu", "cpu", err) < 0) {
		firefox_free(w);
		return NULL;
	}
	for (uint32_t i = 0; i < info->nsample_channels; i++) {
		uint32_t ch = info->sample_channel[i];
		enum channel_kind kind = info->channels[ch].kind;

		if (kind != CHANNEL_ENERGY && kind != CHANNEL_POWER)
			continue;
		w->counters[w->ncounters++] = (struct ff_counter){
			.channel = ch,
			.weight = { .kind = WEIGHT_ENERGY, .channel = ch, .unit = "uJ" },
		};
	}
	return w;
}

static void put_meta(struct firefox_writer *w, FILE *f, double interval_ms)
{
	const struct profile_host *h = &w->info->host;
	double start_ms = ((double)h->realtime_ns - (double)h->monotonic_ns + (double)h->start_ns) / 1e6;
	char product[PROFILE_CMDLINE_MAX + 16];

	snprintf(product, sizeof(product), "%s", h->cmdline[0] ? h->cmdline : "sampler");
	fputs("{\"categories\":[{\"name\":\"Other\",\"color\":\"grey\",\"subcategories\":[\"Other\"]}],"
	      "\"debug\":false,\"extensions\":{\"length\":0,\"baseURL\":[],\"id\":[],\"name\":[]},", f);
	fprintf(f, "\"interval\":%.17g,\"preprocessedProfileVersion\":%d,\"processType\":0,"
		"\"product\":", interval_ms, FF_VERSION);
	json_put_string(f, product);
	fputs(",\"oscpu\":", f);
	json_put_string(f, h->os_release);
	fputs(",\"CPUName\":", f);
	json_put_string(f, h->cpu_desc);
	fprintf(f, ",\"logicalCPUs\":%" PRIu32 ",\"sampleUnits\":{\"time\":\"ms\",\"eventDelay\":\"ms\","
		"\"threadCPUDelta\":\"ns\"},\"startTime\":%.17g,\"stackwalk\":%d,"
		"\"symbolicated\":true,\"pausedRanges\":[],\"version\":24,"
		"\"usesOnlyOneStackType\":true,\"sourceCodeIsNotOnSearchfox\":true,"
		"\"markerSchema\":[],\"importedFrom\":\"" EXPORT_PROG " " SAMPLER_VERSION "\"}",
		h->nr_cpus_online, start_ms, w->info->stacks ? 1 : 0);
}

/* n values of fmt, comma-separated, as a JSON array body. */
#define PUT_COLUMN(f, n, fmt, value)					\
	do {								\
		for (size_t i_ = 0; i_ < (n); i_++)			\
			fprintf(f, i_ ? "," fmt : fmt, value);		\
	} while (0)

static void put_shared(struct firefox_writer *w, FILE *f)
{
	size_t nf = frame_names_count(&w->frames);

	fprintf(f, "{\"stackTable\":{\"length\":%zu,\"prefixOffset\":[", w->nstacks);
	PUT_COLUMN(f, w->nstacks, "%zu",
		   w->stacks[i_].prefix == UINT32_MAX ? 0 : i_ - w->stacks[i_].prefix);
	fputs("],\"frame\":[", f);
	PUT_COLUMN(f, w->nstacks, "%" PRIu32, w->stacks[i_].frame);
	fprintf(f, "]},\n\"frameTable\":{\"length\":%zu,\"func\":[", nf);
	PUT_COLUMN(f, nf, "%zu", i_);
	fputs("],\"category\":[", f);
	PUT_COLUMN(f, nf, "%d", 0);
	fputs("],\"subcategory\":[", f);
	PUT_COLUMN(f, nf, "%d", 0);
	fputs("],\"line\":[", f);
	PUT_COLUMN(f, nf, "%s", "null");
	fputs("],\"column\":[", f);
	PUT_COLUMN(f, nf, "%s", "null");
	fputs("],\"address\":[", f);
	PUT_COLUMN(f, nf, "%d", -1);
	fputs("],\"nativeSymbol\":[", f);
	PUT_COLUMN(f, nf, "%s", "null");
	fputs("],\"inlineDepth\":[", f);
	PUT_COLUMN(f, nf, "%d", 0);
	fputs("],\"innerWindowID\":[", f);
	PUT_COLUMN(f, nf, "%d", 0);
	fputs("],\"originalLocation\":[", f);
	PUT_COLUMN(f, nf, "%s", "null");
	fprintf(f, "]},\n\"funcTable\":{\"length\":%zu,\"name\":[", nf);
	PUT_COLUMN(f, nf, "%zu", i_);
	fputs("],\"isJS\":[", f);
	PUT_COLUMN(f, nf, "%s", "false");
	fputs("],\"relevantForJS\":[", f);
	PUT_COLUMN(f, nf, "%s", "false");
	fputs("],\"resource\":[", f);
	PUT_COLUMN(f, nf, "%d", -1);
	fputs("],\"source\":[", f);
	PUT_COLUMN(f, nf, "%s", "null");
	fputs("],\"lineNumber\":[", f);
	PUT_COLUMN(f, nf, "%s", "null");
	fputs("],\"columnNumber\":[", f);
	PUT_COLUMN(f, nf, "%s", "null");
	fputs("],\"originalLocation\":[", f);
	PUT_COLUMN(f, nf, "%s", "null");
	fputs("]},\n\"nativeSymbols\":{\"length\":0,\"address\":[],\"functionSize\":[],"
	      "\"libIndex\":[],\"name\":[]},"
	      "\"resourceTable\":{\"length\":0,\"lib\":[],\"name\":[],\"host\":[],\"type\":[]},"
	      "\"sources\":{\"length\":0,\"id\":[],\"filename\":[],\"startLine\":[],"
	      "\"startColumn\":[],\"sourceMapURL\":[],\"content\":[]},"
	      "\"sourceLocationTable\":{\"length\":0,\"source\":[],\"line\":[],\"column\":[]},\n"
	      "\"stringArray\":[", f);
	for (size_t i = 0; i < nf; i++) {
		fputs(i ? ",\n" : "\n", f);
		json_put_string(f, frame_names_name(&w->frames, i));
	}
	fputs("]}", f);
}

static void put_thread(FILE *f, const struct ff_thread *t, const char *process)
{
	const struct ff_sample *s = t->samples;

	fputs("{\"name\":", f);
	json_put_string(f, t->name[0] ? t->name : "?");
	fprintf(f, ",\"isMainThread\":%s,\"pausedRanges\":[],\"pid\":\"%" PRIu32 "\","
		"\"processName\":", t->tid == t->pid ? "true" : "false", t->pid);
	json_put_string(f, process);
	fprintf(f, ",\"processShutdownTime\":null,\"processStartupTime\":0,"
		"\"processType\":\"default\",\"registerTime\":%.17g,\"tid\":\"%" PRIu32 "\","
		"\"unregisterTime\":null,\"showMarkersInTimeline\":false,\n"
		"\"samples\":{\"length\":%zu,\"weightType\":\"tracing-ms\",\"stack\":[",
		t->n ? (double)s[0].time_ns / 1e6 : 0.0, t->tid, t->n);
	PUT_COLUMN(f, t->n, "%" PRIu32, s[i_].stack);
	fputs("],\n\"timeDeltas\":[", f);
	PUT_COLUMN(f, t->n, "%.17g", (double)(s[i_].time_ns - (i_ ? s[i_ - 1].time_ns : 0)) / 1e6);
	fputs("],\n\"weight\":[", f);
	PUT_COLUMN(f, t->n, "%.17g", (double)s[i_].cpu_ns / 1e6);
	fputs("],\n\"threadCPUDelta\":[", f);
	PUT_COLUMN(f, t->n, "%" PRIu64, s[i_].cpu_ns);
	fputs("]},\n\"markers\":{\"length\":0,\"category\":[],\"data\":[],\"endTime\":[],"
	      "\"name\":[],\"phase\":[],\"startTime\":[]}}", f);
}

/* The display the profiler itself derives for a counter of category power
 * (process-profile's deriveCounterDisplay). */
static void put_power_display(FILE *f, const char *label)
{
	static const char *const rows[][4] = {
		{ "count", "power", "Power", "power" },
		{ "selection-total", "energy", "Energy used in the current selection",
		  "power-energy-preview" },
		{ "selection-rate", "power", "Average power in the current selection",
		  "power-average-preview" },
		{ "committed-range-total", "energy", "Energy used in the visible range",
		  "power-energy-range" },
	};

	fputs("{\"graphType\":\"line-rate\",\"unit\":\"pWh\",\"color\":\"grey\","
	      "\"markerSchemaLocation\":null,\"sortWeight\":30,\"label\":", f);
	json_put_string(f, label);
	fputs(",\"tooltipRows\":[", f);
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		fprintf(f, "%s{\"type\":\"value\",\"source\":\"%s\",\"format\":{\"unit\":\"number\","
			"\"co2\":\"per-watthour\",\"scale\":\"%s\"},\"label\":\"%s\","
			"\"labelKey\":\"%s\"%s}", i ? "," : "", rows[i][0], rows[i][1], rows[i][2],
			rows[i][3], strncmp(rows[i][0], "selection", 9) ? "" :
			",\"requiresPreviewSelection\":true");
	fputs("]}", f);
}

/* A counter on the first thread of the first process: a sample at 0 of
 * no energy, then each sample's energy since the previous one, in pWh. */
static void put_counter(struct firefox_writer *w, FILE *f, const struct ff_counter *c,
			size_t main_thread)
{
	const char *name = w->info->channels[c->channel].name;
	char description[CHANNEL_NAME_MAX + CHANNEL_SOURCE_MAX + 64];

	snprintf(description, sizeof(description), "energy per sample of %s %s (%s channel)",
		 w->info->channels[c->channel].source, name,
		 w->info->channels[c->channel].kind == CHANNEL_POWER ? "power" : "energy");
	fputs("{\"category\":\"power\",\"name\":", f);
	json_put_string(f, name);
	fputs(",\"description\":", f);
	json_put_string(f, description);
	fprintf(f, ",\"mainThreadIndex\":%zu,\"pid\":\"%" PRIu32 "\",\"samples\":{\"length\":%zu,"
		"\"count\":[0", main_thread, w->nthreads ? w->threads[main_thread].pid : 0, c->n + 1);
	for (size_t i = 0; i < c->n; i++)
		fprintf(f, ",%.17g", c->samples[i].uj * 1e-6 * PWH_PER_JOULE);
	fputs("],\"number\":[0", f);
	for (size_t i = 0; i < c->n; i++)
		fputs(",1", f);
	fputs("],\"timeDeltas\":[0", f);
	for (size_t i = 0; i < c->n; i++)
		fprintf(f, ",%.17g",
			(double)(c->samples[i].time_ns - (i ? c->samples[i - 1].time_ns : 0)) / 1e6);
	fputs("]},\"display\":", f);
	put_power_display(f, name);
	putc('}', f);
}

static int by_process_and_thread(const void *a, const void *b)
{
	const struct ff_thread *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if ((x->tid == x->pid) != (y->tid == y->pid))
		return x->tid == x->pid ? -1 : 1;	/* the main thread first */
	return (x->tid > y->tid) - (x->tid < y->tid);
}

/* The mean interval between thread-samples of the busiest thread, in ms:
 * the profile's "interval" (the profiler's sample width). */
static double interval_ms(const struct firefox_writer *w)
{
	const struct ff_thread *busiest = NULL;

	for (size_t i = 0; i < w->nthreads; i++)
		if (!busiest || w->threads[i].n > busiest->n)
			busiest = &w->threads[i];
	if (!busiest || busiest->n < 2)
		return 1;
	return (double)(busiest->samples[busiest->n - 1].time_ns - busiest->samples[0].time_ns) /
	       1e6 / (double)(busiest->n - 1);
}

/* A single rank's process is "comm[rank R]", as merged ranks are named. */
static void process_name(const struct firefox_writer *w, const struct ff_thread *t,
			 char name[PROFILE_COMM_MAX + 32])
{
	const char *rank = w->info->host.rank;

	if (rank[0] && !strstr(t->process, "[rank "))
		snprintf(name, PROFILE_COMM_MAX + 32, "%s[rank %s]", t->process, rank);
	else
		snprintf(name, PROFILE_COMM_MAX + 32, "%s", t->process[0] ? t->process : t->name);
}

static int firefox_finish(void *state, const struct export_result *result, struct error *err)
{
	struct firefox_writer *w = state;
	char process[PROFILE_COMM_MAX + 32];
	FILE *f;
	int ret;

	(void)result;
	if (!err) {		/* the export failed: nothing to write */
		firefox_free(w);
		return -1;
	}
	if (w->nthreads)
		qsort(w->threads, w->nthreads, sizeof(*w->threads), by_process_and_thread);
	f = textout_open(w->path, w->force, err);
	if (!f) {
		firefox_free(w);
		return -1;
	}
	fputs("{\"meta\":", f);
	put_meta(w, f, interval_ms(w));
	fputs(",\n\"libs\":[],\"pages\":[],\"profilerOverhead\":[],\n\"shared\":", f);
	put_shared(w, f);
	fputs(",\n\"threads\":[", f);
	for (size_t i = 0; i < w->nthreads; i++) {
		process_name(w, &w->threads[i], process);
		fputs(i ? ",\n" : "\n", f);
		put_thread(f, &w->threads[i], process);
	}
	fputs("],\n\"counters\":[", f);
	for (uint32_t i = 0; i < w->ncounters && w->nthreads; i++) {
		fputs(i ? ",\n" : "\n", f);
		put_counter(w, f, &w->counters[i], 0);
	}
	fputs("]}\n", f);
	ret = textout_close(f, w->path, err);
	firefox_free(w);
	return ret;
}

const struct exporter firefox_exporter = {
	.name = "firefox",
	.reads_input_twice = true,	/* the energy estimate (attribution.h) */
	.open = firefox_open,
	.record = firefox_record,
	.finish = firefox_finish,
	.bytes_per_sample = 41, .bytes_per_frame = 1,
};
