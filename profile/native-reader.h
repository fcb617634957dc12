/* native-reader.h - the native reader's state, shared by its two files
 * (private to profile/): native-read.c reads chunks and records,
 * native-thread.c a sample's thread-samples (PC, CPU time and counters,
 * stack, run and clock samples). */
#ifndef SAMPLER_PROFILE_NATIVE_READER_H
#define SAMPLER_PROFILE_NATIVE_READER_H

#include "internal.h"

#include "codec.h"
#include "stacktree.h"
#include "tidtable.h"

struct native_reader {
	struct profile_reader head;
	uint8_t *chunk;			/* payload of the current chunk */
	size_t chunk_cap;
	struct cursor cur;		/* undecoded records of that chunk */
	uint64_t period_ns;
	uint64_t prev_time;
	uint32_t *prev_tids;		/* tid list of the previous sample */
	uint32_t nprev;
	size_t prev_cap;
	uint32_t cap;			/* threads ts and counters are set up for */
	struct profile_thread_sample *ts;
	size_t ts_cap;
	uint64_t *counters;		/* per thread: nc cumulative, nc deltas */
	size_t counters_cap;
	double *values;
	struct tid_table threads;
	struct stack_tree stacks;	/* info.stacks: every stack read */
	bool stats_seen;
	uint32_t version;		/* of the file */
	struct profile_clock_sample *clock;	/* the clock samples of the sample read */
	size_t nclock, clock_cap;
	bool disabled;		/* after a window record that switched sampling off */
	bool rebase;		/* the next sample starts a window: deltas 0 */
};

/* A field read by fn from cursor c, or return the corruption at its
 * offset (in a function with nr and err). */
#define GET(c, fn, dst, what)							\
	do {									\
		if (fn(c, dst) < 0)						\
			return reader_corrupt(&nr->head, cursor_offset(c), err, "bad or cut %s", what); \
	} while (0)

/* The deltas of a thread-sample or final exit, and the new cumulative
 * values, kept in the thread's state st; deltas the recorder cannot have
 * written are repaired (profile_repair_kind). */
int read_thread_deltas(struct native_reader *nr, struct cursor *c, struct tid_state *st,
		       uint64_t time_ns, uint64_t *cpu_delta, uint64_t *cpu_ns,
		       uint64_t *deltas, uint64_t *counters, struct error *err);

/* Thread tid's thread-sample of the sample at time_ns into t, its clock
 * samples appended to nr->clock (-1: err set, the profile is corrupt). */
int read_thread_sample(struct native_reader *nr, struct cursor *c, uint32_t tid,
		       uint64_t time_ns, struct profile_thread_sample *t, struct error *err);

#endif
