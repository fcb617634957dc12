/* perfwriter.h - the perf.data writer's state, shared by its two halves:
 * the records (perfdata.c) and the frame around them, that is the event
 * attributes, the header and the features (perfheader.c).  Private to them.
 */
#ifndef SAMPLER_EXPORT_PERFWRITER_H
#define SAMPLER_EXPORT_PERFWRITER_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "../common/fdio.h"
#include "../common/idmap.h"
#include "../common/outfile.h"
#include "../energy/energy.h"
#include "export.h"
#include "features.h"

#define OUT_BUFFER_SIZE (1 << 20)
#define MAX_EVENTS (2 + PROFILE_MAX_CHANNELS)

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
	struct idmap dso_by_path;	/* idmap_key_of_string(path) -> struct perf_dso * */
	uint64_t last_time;		/* records never go back in time */
	uint64_t prev_sample_ns;
	bool windows;			/* a window record came: it starts the wall time */
	uint64_t first_sample_ns;
	uint64_t nsamples;
	double *shares;
	size_t shares_cap;
	struct energy_source *energy;	/* the energy events' (the export loop's) */
	uint64_t *chains;		/* with stacks: CHAIN_MAX per thread of a sample */
	size_t chains_cap;
	uint64_t *clock_chain;		/* with stacks and clock samples: CHAIN_MAX */
	size_t clock_chain_cap;
	uint32_t *nchain;		/* entries of each thread's chain */
	size_t nchain_cap;
};

/* ---- output: one buffer; the first failed write's errno is kept ------ */

static inline void out_write(struct out *o, const unsigned char *data, size_t len)
{
	if (!o->error && write_all(o->fd, data, len) < 0)
		o->error = errno;
}

static inline void out_flush(struct out *o)
{
	out_write(o, o->buf, o->len);
	o->flushed += o->len;
	o->len = 0;
}

static inline void out_put(struct out *o, const void *data, size_t len)
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

static inline void out_zero(struct out *o, size_t len)
{
	static const unsigned char zeros[64];

	while (len) {
		size_t n = len < sizeof(zeros) ? len : sizeof(zeros);

		out_put(o, zeros, n);
		len -= n;
	}
}

static inline uint64_t out_pos(const struct out *o)
{
	return o->flushed + o->len;
}

/* ---- the frame (perfheader.c) ----------------------------------------- */

/* Every event the profile gives, or those --event names; err when one of
 * those is not in the profile. */
int perf_build_events(struct perf_writer *w, const struct export_options *opt,
		      struct error *err);

/* Pipe mode: the header, attrs and event names, then the features made at
 * the start (at_end false); at the end, the others. */
void perf_write_pipe_header(struct perf_writer *w);
void perf_write_pipe_features(struct perf_writer *w, bool at_end);

/* File mode: room for the header, then the ids and attrs (data_offset is
 * where the records start); at the end, the features and the header. */
void perf_write_file_start(struct perf_writer *w);
int perf_write_file_end(struct perf_writer *w, struct error *err);

#endif
