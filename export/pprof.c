/* pprof.c - the profile in pprof's format (github.com/google/pprof,
 * proto/profile.proto), gzipped, as go tool pprof and its viewers read it.
 *
 * Each sample is one distinct (thread, name, call stack), its values the
 * sums of its rows' (rows.h) as the other outputs weigh them (weight.h):
 * samples/count, cpu/nanoseconds and, per energy or power channel, energy
 * in nanojoules by the one rule of attribution.h (type "energy:CHANNEL").
 * Its labels: tid, comm (the thread's name at the time), pid, and the
 * MPI rank of a rank's profile.  A location is one (process, address),
 * its lines the function there and those inlined into it (innermost
 * first, as pprof wants them; no line numbers), its mapping the file with
 * the build ID the profile recorded.  A stack cut short ends in a frame
 * naming the cause, "[truncated: no-cfi]", as in the folded output.
 *
 * Everything is counted in intern tables (intern.h), so memory grows with
 * the distinct stacks, addresses and names, not with the samples; the
 * message is built and compressed at the end.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "../common/grow.h"
#include "export.h"
#include "../common/intern.h"
#include "protobuf.h"
#include "rows.h"
#include "stackfmt.h"
#include "tasknames.h"
#include "textout.h"
#include "weight.h"

#define PPROF_MAX_VALUES (2 + PROFILE_MAX_CHANNELS)
/* [marker,] pc, callers, each with its inlined functions */
#define PPROF_MAX_LOCATIONS (PROFILE_MAX_FRAMES + 2)

struct pprof_mapping {
	uint64_t start, end, pgoff;
	int64_t file, build_id;		/* string indices */
};

struct pprof_location {
	uint64_t mapping;		/* id, 0: none */
	uint64_t address;
	size_t first, nlines;		/* in line_functions, innermost first */
};

struct pprof_writer {
	const char *path;
	bool force;
	const struct profile_info *info;
	struct rows rows;		/* the rows, with a symbolizer */
	struct task_names names;
	struct weight values[PPROF_MAX_VALUES];
	uint32_t nvalues;
	struct intern strings;		/* [0] is "" */
	struct intern functions;	/* (name, file) string indices */
	struct intern mappings;		/* (start, end, pgoff) and path */
	struct pprof_mapping *mapping_info;
	size_t mapping_cap;
	struct intern locations;	/* (pid, address, caller) */
	struct pprof_location *location_info;
	size_t location_cap;
	uint64_t *line_functions;
	size_t nline_functions, line_functions_cap;
	struct intern samples;		/* (pid, tid, comm, location ids) */
	char main_file[PROFILE_PATH_MAX];	/* the first file mapped: the program */
	uint64_t *mapping_order;	/* [id - 1]: the id written, the program's first */
	double *sums;			/* nvalues per sample */
	size_t sums_cap;
	uint64_t callers[PROFILE_MAX_FRAMES];
	uint64_t key[3 + PPROF_MAX_LOCATIONS];
	struct pb_buf msg, sub, sub2;
};

/* ---- the tables ------------------------------------------------------- */

static int64_t string_index(struct pprof_writer *w, const char *s)
{
	return intern_string(&w->strings, s, NULL);
}

/* The function id of name in file (ids count from 1). */
static int64_t function_id(struct pprof_writer *w, const char *name, const char *file)
{
	size_t len = strlen(name);
	char shown[PROFILE_PATH_MAX + 64];
	int64_t key[2];

	/* pprof marks inlined frames itself */
	if (len > 10 && strcmp(name + len - 10, " (inlined)") == 0) {
		snprintf(shown, sizeof(shown), "%.*s", (int)(len - 10), name);
		name = shown;
	}
	key[0] = string_index(w, name);
	key[1] = string_index(w, file);
	if (key[0] < 0 || key[1] < 0)
		return -1;
	key[0] = intern_index(&w->functions, key, sizeof(key), NULL);
	return key[0] < 0 ? -1 : key[0] + 1;
}

/* The mapping id of the file mapping holding addr in pid, 0: none. */
static int64_t mapping_id(struct pprof_writer *w, uint32_t pid, uint64_t addr)
{
	struct symbol_mapping m;
	char key[3 * sizeof(uint64_t) + PROFILE_PATH_MAX], id[2 * PROFILE_BUILD_ID_MAX + 1];
	struct pprof_mapping *info;
	bool created;
	int64_t i;
	size_t len;

	if (!symbolizer_mapping(w->rows.symbols, pid, addr, &m))
		return 0;
	memcpy(key, &m.start, 8);
	memcpy(key + 8, &m.end, 8);
	memcpy(key + 16, &m.pgoff, 8);
	len = snprintf(key + 24, sizeof(key) - 24, "%s", m.path) + 24;
	i = intern_index(&w->mappings, key, len < sizeof(key) ? len : sizeof(key), &created);
	if (i < 0 || !created)
		return i < 0 ? -1 : i + 1;
	if (GROW_ARRAY(w->mapping_info, w->mapping_cap, (size_t)i + 1) < 0)
		return -1;
	info = &w->mapping_info[i];
	*info = (struct pprof_mapping){ m.start, m.end, m.pgoff, string_index(w, m.path), 0 };
	for (size_t k = 0; k < m.build_id_len && k < PROFILE_BUILD_ID_MAX; k++)
		snprintf(id + 2 * k, 3, "%02x", m.build_id[k]);
	id[2 * (m.build_id_len < PROFILE_BUILD_ID_MAX ? m.build_id_len : PROFILE_BUILD_ID_MAX)] = 0;
	info->build_id = string_index(w, id);
	return info->file < 0 || info->build_id < 0 ? -1 : i + 1;
}

static int add_line(struct pprof_writer *w, int64_t function)
{
	if (function < 0 ||
	    GROW_ARRAY(w->line_functions, w->line_functions_cap, w->nline_functions + 1) < 0)
		return -1;
	w->line_functions[w->nline_functions++] = (uint64_t)function;
	return 0;
}

/* The lines of a new location: the functions inlined at addr, innermost
 * first, then the function they were inlined into; or the marker. */
static int make_location(struct pprof_writer *w, struct pprof_location *loc, uint32_t pid,
			 uint64_t addr, bool caller, const char *marker)
{
	const char *inlined[INLINE_MAX_DEPTH], *dso, *symbol;
	char buf[PROFILE_PATH_MAX + 2];
	int64_t mapping = 0;
	size_t k = 0;

	*loc = (struct pprof_location){ 0, addr, w->nline_functions, 0 };
	if (marker)
		return add_line(w, function_id(w, marker, ""));
	if ((mapping = mapping_id(w, pid, caller && addr ? addr - 1 : addr)) < 0)
		return -1;
	loc->mapping = (uint64_t)mapping;
	symbolizer_lookup(w->rows.symbols, pid, addr, &dso, &symbol);
	if (strcmp(dso, SYMBOL_UNKNOWN) == 0)
		dso = "";	/* no file */
	k = symbolizer_inlines(w->rows.symbols, pid, addr, caller, inlined);
	for (size_t j = k; j-- > 0;)
		if (add_line(w, function_id(w, inlined[j], dso)) < 0)
			return -1;
	if (add_line(w, function_id(w, stack_frame_name(w->rows.symbols, pid, addr, buf,
							     sizeof(buf)), dso)) < 0)
		return -1;
	loc->nlines = k + 1;
	return 0;
}

/* The location id of addr in pid (a return address: caller), or of the
 * marker frame of a stack cut short (marker set). */
static int64_t location_id(struct pprof_writer *w, uint32_t pid, uint64_t addr, bool caller,
			   const char *marker)
{
	uint64_t key[3] = { pid, addr, caller };
	bool created;
	int64_t i;

	if (marker) {
		key[0] = UINT64_MAX;
		key[1] = (uint64_t)string_index(w, marker);
	}
	i = intern_index(&w->locations, key, sizeof(key), &created);
	if (i < 0 || !created)
		return i < 0 ? -1 : i + 1;
	if (GROW_ARRAY(w->location_info, w->location_cap, (size_t)i + 1) < 0 ||
	    make_location(w, &w->location_info[i], pid, addr, caller, marker) < 0)
		return -1;
	w->location_info[i].nlines = w->nline_functions - w->location_info[i].first;
	return i + 1;
}

/* ---- rows -------------------------------------------------------------- */

static int add_row(void *arg, const struct row *row, struct error *err)
{
	struct pprof_writer *w = arg;
	char marker_buf[STACK_MARKER_MAX];
	const char *marker = stack_end_marker(row->stack_end, marker_buf);
	double v[PPROF_MAX_VALUES];
	bool any = false, created;
	uint32_t n, m = 3;
	int64_t id, comm;

	for (uint32_t i = 0; i < w->nvalues; i++) {
		v[i] = weight_of_row(&w->values[i], &w->rows, row);
		any |= v[i] != 0;
	}
	if (!any || (row->exit && !row->pc))
		return 0;
	n = profile_stack_frames(row->stacks, row->chain, w->callers, PROFILE_MAX_FRAMES);
	for (uint32_t i = 0; i <= n; i++) {
		id = i ? location_id(w, row->pid, w->callers[i - 1], true, NULL)
		       : location_id(w, row->pid, row->pc, false, NULL);
		if (id < 0)
			goto nomem;
		w->key[m++] = (uint64_t)id;
	}
	if (marker) {
		if ((id = location_id(w, row->pid, 0, false, marker)) < 0)
			goto nomem;
		w->key[m++] = (uint64_t)id;
	}
	if ((comm = string_index(w, task_names_of(&w->names, row->pid, row->tid))) < 0)
		goto nomem;
	w->key[0] = row->pid;
	w->key[1] = row->tid;
	w->key[2] = (uint64_t)comm;
	id = intern_index(&w->samples, w->key, m * sizeof(*w->key), &created);
	if (id < 0 || GROW_ARRAY(w->sums, w->sums_cap, ((size_t)id + 1) * w->nvalues) < 0)
		goto nomem;
	for (uint32_t i = 0; i < w->nvalues; i++)
		w->sums[(size_t)id * w->nvalues + i] = (created ? 0 : w->sums[(size_t)id * w->nvalues + i]) + v[i];
	return 0;
nomem:
	return error_set(err, "out of memory for %zu distinct stacks at %zu addresses",
			 intern_count(&w->samples), intern_count(&w->locations));
}

static int pprof_record(void *state, const struct profile_record *rec, struct error *err)
{
	struct pprof_writer *w = state;

	if (rec->type == PROFILE_REC_MAP && !w->main_file[0] && rec->map.path[0] &&
	    rec->map.path[0] != '[')
		snprintf(w->main_file, sizeof(w->main_file), "%s", rec->map.path);
	if (task_names_record(&w->names, rec, err) < 0 ||
	    rows_record(&w->rows, rec, add_row, w, err) < 0)
		return -1;
	task_names_done(&w->names, rec);
	return 0;
}

/* ---- open --------------------------------------------------------------- */

static void pprof_free(struct pprof_writer *w)
{
	intern_free(&w->strings);
	intern_free(&w->functions);
	intern_free(&w->mappings);
	intern_free(&w->locations);
	intern_free(&w->samples);
	free(w->mapping_info);
	free(w->mapping_order);
	free(w->location_info);
	free(w->line_functions);
	free(w->sums);
	pb_buf_free(&w->msg);
	pb_buf_free(&w->sub);
	pb_buf_free(&w->sub2);
	task_names_free(&w->names);
	rows_free(&w->rows);
	free(w);
}

/* samples, cpu, then the energy of each energy or power channel. */
static void choose_values(struct pprof_writer *w, const struct profile_info *info)
{
	w->values[w->nvalues++] = (struct weight){ WEIGHT_SAMPLES, 0, "samples" };
	w->values[w->nvalues++] = (struct weight){ WEIGHT_CPU, 0, "ns" };
	for (uint32_t i = 0; i < info->nchannels && i < PROFILE_MAX_CHANNELS; i++) {
		const struct channel_desc *c = &info->channels[i];

		if (c->scope == CHANNEL_PER_SAMPLE &&
		    (c->kind == CHANNEL_ENERGY || c->kind == CHANNEL_POWER))
			w->values[w->nvalues++] = (struct weight){ WEIGHT_ENERGY, i, "uJ" };
	}
}

static void *pprof_open(const struct profile_info *info, const struct export_options *opt,
			struct energy_source *energy, struct error *err)
{
	struct pprof_writer *w = calloc(1, sizeof(*w));
	struct export_options symbolized = *opt;	/* frames are always named */

	if (!w) {
		error_set(err, "out of memory for the pprof writer");
		return NULL;
	}
	w->path = opt->output;
	w->force = opt->force;
	w->info = info;
	task_names_init(&w->names);
	symbolized.symbols = true;
	if (rows_init(&w->rows, info, &symbolized, energy, err) < 0) {
		task_names_free(&w->names);
		free(w);
		return NULL;
	}
	choose_values(w, info);
	if (string_index(w, "") != 0) {
		error_set(err, "out of memory for the pprof writer");
		pprof_free(w);
		return NULL;
	}
	return w;
}

/* ---- the message -------------------------------------------------------- */

/* Profile's fields (profile.proto) */
enum {
	PROFILE_SAMPLE_TYPE = 1, PROFILE_SAMPLE, PROFILE_MAPPING, PROFILE_LOCATION,
	PROFILE_FUNCTION, PROFILE_STRING_TABLE, PROFILE_TIME_NANOS = 9,
	PROFILE_DURATION_NANOS, PROFILE_PERIOD_TYPE, PROFILE_PERIOD,
	PROFILE_DEFAULT_SAMPLE_TYPE = 14,
};

static void put_value_type(struct pprof_writer *w, uint32_t field, const char *type,
			   const char *unit)
{
	w->sub.len = 0;
	pb_int(&w->sub, 1, string_index(w, type));
	pb_int(&w->sub, 2, string_index(w, unit));
	pb_message(&w->msg, field, &w->sub);
}

static void put_sample_types(struct pprof_writer *w)
{
	char type[CHANNEL_NAME_MAX + 8];

	put_value_type(w, PROFILE_SAMPLE_TYPE, "samples", "count");
	put_value_type(w, PROFILE_SAMPLE_TYPE, "cpu", "nanoseconds");
	for (uint32_t i = 2; i < w->nvalues; i++) {
		snprintf(type, sizeof(type), "energy:%s", w->info->channels[w->values[i].channel].name);
		put_value_type(w, PROFILE_SAMPLE_TYPE, type, "nanojoules");
	}
}

static void put_label(struct pb_buf *b, struct pb_buf *label, int64_t key, int64_t str,
		      const uint64_t *num)
{
	label->len = 0;
	pb_int(label, 1, key);
	if (num)
		pb_int(label, 3, (int64_t)*num);
	else
		pb_int(label, 2, str);
	pb_message(b, 3, label);
}

static void put_sample(struct pprof_writer *w, size_t i, int64_t rank)
{
	const uint64_t *key;
	int64_t values[PPROF_MAX_VALUES];
	size_t len;

	key = intern_key(&w->samples, i, &len);
	w->sub.len = 0;
	pb_packed(&w->sub, 1, key + 3, len / sizeof(*key) - 3);
	for (uint32_t k = 0; k < w->nvalues; k++) {
		double v = w->sums[i * w->nvalues + k];

		/* energy in nanojoules, summed in microjoules */
		values[k] = llround(k >= 2 ? v * 1e3 : v);
	}
	pb_packed(&w->sub, 2, (const uint64_t *)values, w->nvalues);
	put_label(&w->sub, &w->sub2, string_index(w, "tid"), 0, &key[1]);
	put_label(&w->sub, &w->sub2, string_index(w, "comm"), (int64_t)key[2], NULL);
	put_label(&w->sub, &w->sub2, string_index(w, "pid"), 0, &key[0]);
	if (rank >= 0)
		put_label(&w->sub, &w->sub2, string_index(w, "rank"), rank, NULL);
	pb_message(&w->msg, PROFILE_SAMPLE, &w->sub);
}

/* pprof takes the first mapping for the program (its "File:"): the
 * program's mappings first, the others in the order they came. */
static int order_mappings(struct pprof_writer *w)
{
	size_t n = intern_count(&w->mappings), next = 1;
	int64_t main_file = w->main_file[0] ? string_index(w, w->main_file) : -1;

	/* [0, n): id i + 1 is written as mapping_order[i]; [n, 2n): the inverse */
	if (!(w->mapping_order = calloc(2 * n + 1, sizeof(*w->mapping_order))))
		return -1;
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < n; i++)
			if ((w->mapping_info[i].file == main_file) == !pass) {
				w->mapping_order[n + next - 1] = i;
				w->mapping_order[i] = next++;
			}
	return 0;
}

/* Mapping id i + 1 as it is written. */
static uint64_t mapping_written(const struct pprof_writer *w, uint64_t id)
{
	return id ? w->mapping_order[id - 1] : 0;
}

static void put_mapping(struct pprof_writer *w, size_t i)
{
	const struct pprof_mapping *m = &w->mapping_info[i];

	w->sub.len = 0;
	pb_uint(&w->sub, 1, mapping_written(w, i + 1));
	pb_uint(&w->sub, 2, m->start);
	pb_uint(&w->sub, 3, m->end);
	pb_uint(&w->sub, 4, m->pgoff);
	pb_int(&w->sub, 5, m->file);
	pb_int(&w->sub, 6, m->build_id);
	pb_uint(&w->sub, 7, 1);		/* has_functions */
	pb_uint(&w->sub, 10, 1);	/* has_inline_frames */
	pb_message(&w->msg, PROFILE_MAPPING, &w->sub);
}

static void put_location(struct pprof_writer *w, size_t i)
{
	const struct pprof_location *l = &w->location_info[i];

	w->sub.len = 0;
	pb_uint(&w->sub, 1, i + 1);
	pb_uint(&w->sub, 2, mapping_written(w, l->mapping));
	pb_uint(&w->sub, 3, l->address);
	for (size_t k = 0; k < l->nlines; k++) {
		w->sub2.len = 0;
		pb_uint(&w->sub2, 1, w->line_functions[l->first + k]);
		pb_message(&w->sub, 4, &w->sub2);
	}
	pb_message(&w->msg, PROFILE_LOCATION, &w->sub);
}

static void put_function(struct pprof_writer *w, size_t i)
{
	const int64_t *key = intern_key(&w->functions, i, NULL);

	w->sub.len = 0;
	pb_uint(&w->sub, 1, i + 1);
	pb_int(&w->sub, 2, key[0]);
	pb_int(&w->sub, 3, key[0]);
	pb_int(&w->sub, 4, key[1]);
	pb_message(&w->msg, PROFILE_FUNCTION, &w->sub);
}

static void build_message(struct pprof_writer *w)
{
	const struct profile_host *h = &w->info->host;
	uint64_t period = profile_period_ns(h->target_hz);
	int64_t rank = h->rank[0] ? string_index(w, h->rank) : -1;

	put_sample_types(w);
	for (size_t i = 0; i < intern_count(&w->samples); i++)
		put_sample(w, i, rank);
	if (order_mappings(w) < 0) {
		w->msg.failed = true;
		return;
	}
	for (size_t k = 0; k < intern_count(&w->mappings); k++)
		put_mapping(w, w->mapping_order[intern_count(&w->mappings) + k]);
	for (size_t i = 0; i < intern_count(&w->locations); i++)
		put_location(w, i);
	for (size_t i = 0; i < intern_count(&w->functions); i++)
		put_function(w, i);
	if (h->realtime_ns && h->start_ns >= h->monotonic_ns)
		pb_int(&w->msg, PROFILE_TIME_NANOS,
		       (int64_t)(h->realtime_ns + (h->start_ns - h->monotonic_ns)));
	if (w->rows.have_stats)
		pb_int(&w->msg, PROFILE_DURATION_NANOS, (int64_t)w->rows.stats.wall_ns);
	put_value_type(w, PROFILE_PERIOD_TYPE, "cpu", "nanoseconds");
	if (period)
		pb_int(&w->msg, PROFILE_PERIOD, (int64_t)period);
	/* CPU time, as perf and the other outputs weigh by default */
	pb_int(&w->msg, PROFILE_DEFAULT_SAMPLE_TYPE, string_index(w, "cpu"));
	/* last: every string is in the table by now */
	for (size_t i = 0; i < intern_count(&w->strings); i++) {
		size_t len;
		const void *s = intern_key(&w->strings, i, &len);

		pb_bytes(&w->msg, PROFILE_STRING_TABLE, s, len);
	}
}

/* ---- gzip and finish ---------------------------------------------------- */

/* msg gzipped into out (before the output is opened: a failure leaves
 * no file). */
static int gzip_message(const struct pb_buf *msg, struct pb_buf *out, struct error *err)
{
	z_stream z = { 0 };
	size_t bound;
	int ret;

	if (msg->len > UINT32_MAX / 2)
		return error_set(err, "the pprof profile's %zu bytes are too many for one gzip call",
				 msg->len);
	/* 15 + 16: a gzip header and trailer, as pprof reads it */
	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		return error_set(err, "cannot start zlib's gzip compression");
	bound = deflateBound(&z, (uLong)msg->len);
	if (GROW_ARRAY(out->data, out->cap, bound) < 0) {
		deflateEnd(&z);
		return error_set(err, "out of memory for the %zu bytes of the gzipped profile",
				 bound);
	}
	z.next_in = msg->data;
	z.avail_in = (uInt)msg->len;
	z.next_out = out->data;
	z.avail_out = (uInt)bound;
	ret = deflate(&z, Z_FINISH);
	out->len = bound - z.avail_out;
	deflateEnd(&z);
	if (ret != Z_STREAM_END)
		return error_set(err, "zlib's gzip compression failed (%d)", ret);
	return 0;
}

static int pprof_finish(void *state, const struct export_result *result, struct error *err)
{
	struct pprof_writer *w = state;
	FILE *f;
	int ret;

	(void)result;
	if (!err) {		/* the export failed: nothing to write */
		pprof_free(w);
		return -1;
	}
	build_message(w);
	if (w->msg.failed) {
		error_set(err, "out of memory for the pprof profile (%zu distinct stacks)",
			  intern_count(&w->samples));
		pprof_free(w);
		return -1;
	}
	if (gzip_message(&w->msg, &w->sub, err) < 0 ||
	    !(f = textout_open(w->path, w->force, err))) {
		pprof_free(w);
		return -1;
	}
	fwrite(w->sub.data, 1, w->sub.len, f);
	ret = textout_close(f, w->path, err);
	pprof_free(w);
	return ret;
}

const struct exporter pprof_exporter = {
	.name = "pprof",
	.reads_input_twice = true,	/* the energy estimate (attribution.h) */
	.open = pprof_open,
	.record = pprof_record,
	.finish = pprof_finish,
};
