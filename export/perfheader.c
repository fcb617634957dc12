/* perfheader.c - the frame of a perf.data file around its records: the
 * event attributes, the file header or the pipe's header records, and the
 * features (the table in features.c).
 *
 * File mode:  [header][ids][attrs][data ...][feature sections][features]
 * The features and the header (with the data size and the feature bitmap)
 * are written at the end.  Pipe mode ("-o -"): a short header,
 * HEADER_ATTR, EVENT_UPDATE and HEADER_FEATURE records, never seeking.
 */
#include "perfwriter.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define PERF_MAGIC 0x32454c4946524550ULL	/* "PERFILE2" */
#define SAMPLE_TYPE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | \
		     PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD)

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
int perf_build_events(struct perf_writer *w, const struct export_options *opt,
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
void perf_write_pipe_features(struct perf_writer *w, bool at_end)
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

void perf_write_pipe_header(struct perf_writer *w)
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
	perf_write_pipe_features(w, false);
}

/* File mode: room for the header, then each event's id and the attrs. */
void perf_write_file_start(struct perf_writer *w)
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

int perf_write_file_end(struct perf_writer *w, struct error *err)
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
