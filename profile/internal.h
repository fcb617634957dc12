/* internal.h - what the format back-ends (native*.c, pperf.c) share with the
 * dispatching front (profile.c).  Not part of the public interface.
 *
 * struct profile_writer / profile_reader are the common heads; each
 * back-end embeds one first in its own struct and provides an ops table.
 */
#ifndef SAMPLER_PROFILE_INTERNAL_H
#define SAMPLER_PROFILE_INTERNAL_H

#include "profile.h"
#include "stacktree.h"
#include "stream.h"

struct writer_ops {
	int (*process)(struct profile_writer *w, const struct profile_process *p, struct error *err);
	int (*exec)(struct profile_writer *w, const struct profile_exec *e, struct error *err);
	int (*thread)(struct profile_writer *w, const struct profile_thread *t, struct error *err);
	int (*exit)(struct profile_writer *w, const struct profile_exit *e, struct error *err);
	int (*map)(struct profile_writer *w, const struct profile_map *m, struct error *err);
	int (*sample)(struct profile_writer *w, const struct profile_sample *s, struct error *err);
	int (*name)(struct profile_writer *w, const struct profile_name *n, struct error *err);
	int (*window)(struct profile_writer *w, const struct profile_window *win, struct error *err);
	/* stats NULL: abandon (no statistics).  Releases everything but w. */
	int (*finish)(struct profile_writer *w, const struct profile_stats *stats,
		      struct error *err);
};

struct profile_writer {
	const struct writer_ops *ops;
	struct profile_info info;
	struct sink sink;
	bool failed;			/* a write failed: refuse further records */
	struct error failure;
};

struct reader_ops {
	int (*next)(struct profile_reader *r, struct profile_record *rec, struct error *err);
	void (*close)(struct profile_reader *r);
};

struct profile_reader {
	const struct reader_ops *ops;
	struct profile_info info;
	struct source src;
	bool done;			/* the end was reached (or an error) */
	bool failed;
	struct error failure;		/* repeated by later calls after an error */
	bool truncated;
	uint64_t good_bytes;
	const struct stack_tree *stacks;	/* NULL: the format keeps no stacks */
	uint64_t repaired[PROFILE_REPAIR_KINDS];	/* profile_reader_repaired */
};

/* Back-ends: allocate, fill and return the head (NULL, err set). */
/* Both take over out (and abandon it when they fail). */
struct profile_writer *native_writer_open(struct outfile *out, const struct profile_info *info,
					  bool compress, struct error *err);
struct profile_writer *pperf_writer_open(struct outfile *out, const struct profile_info *info,
					 bool compress, struct error *err);
/* src is open and positioned at the start; the back-end takes it over
 * (and closes it when it fails). */
struct profile_reader *native_reader_open(struct source *src, struct error *err);
struct profile_reader *pperf_reader_open(struct source *src, struct error *err);

/* Reader states shared by the back-ends.  reader_corrupt: fail at a byte
 * offset, "PATH: corrupt profile at byte offset N: WHAT (...)"; later calls
 * repeat the message.  reader_failed: fail with the message already in err.
 * reader_truncated_at: the data ends (cut short) at offset; returns 0. */
int reader_corrupt(struct profile_reader *r, uint64_t offset, struct error *err,
		   const char *fmt, ...) __attribute__((format(printf, 4, 5)));
int reader_failed(struct profile_reader *r, struct error *err);
int reader_truncated_at(struct profile_reader *r, uint64_t offset);

/* Native magic: the first 8 bytes of every native profile (decompressed). */
#define NATIVE_MAGIC "SMPLPROF"
#define NATIVE_MAGIC_LEN 8

/* Bytes the front looks at to tell the formats apart (a pperf header). */
#define PROBE_BYTES 36

/* Do the first n bytes look like a pperf header?  It has no magic string:
 * a PMU kind 0-3 and a value size of 1-64 bytes (the tool writes 8), so
 * that zeros (/dev/zero, a killed writer's header) are no pperf profile. */
bool pperf_probe(const uint8_t *head, size_t n);

#endif
