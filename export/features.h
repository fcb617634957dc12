/* features.h - the perf.data header features, written from one table.
 *
 * As perf's util/header.c does with FEAT_OPR, each feature is one table
 * entry with one small write function.  A write function appends the
 * feature's bytes (exactly as perf reads them) to a feat_buf; the perf.data
 * writer places them in the file-mode feature sections or wraps them in
 * pipe-mode PERF_RECORD_HEADER_FEATURE records.
 */
#ifndef SAMPLER_EXPORT_FEATURES_H
#define SAMPLER_EXPORT_FEATURES_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../profile/profile.h"

/* Feature bits, as perf's util/header.h numbers them. */
enum perf_header_feature {
	HEADER_BUILD_ID = 2,
	HEADER_HOSTNAME = 3,
	HEADER_OSRELEASE = 4,
	HEADER_VERSION = 5,
	HEADER_ARCH = 6,
	HEADER_NRCPUS = 7,
	HEADER_CPUDESC = 8,
	HEADER_CPUID = 9,
	HEADER_TOTAL_MEM = 10,
	HEADER_CMDLINE = 11,
	HEADER_EVENT_DESC = 12,
	HEADER_SAMPLE_TIME = 21,
	HEADER_CLOCKID = 23,
	HEADER_CLOCK_DATA = 29,
	HEADER_FEAT_BITS = 256,
};

/* perf's own record types (util/event.h). */
enum {
	PERF_RECORD_HEADER_ATTR = 64,
	PERF_RECORD_HEADER_BUILD_ID = 67,
	PERF_RECORD_FINISHED_ROUND = 68,
	PERF_RECORD_EVENT_UPDATE = 78,
	PERF_RECORD_HEADER_FEATURE = 80,
};

/* PERF_RECORD_EVENT_UPDATE kinds (util/event.h) */
#define PERF_EVENT_UPDATE_NAME 2

/* perf's own misc bit (util/event.h): build_id_event carries its size. */
#define PERF_RECORD_MISC_BUILD_ID_SIZE (1 << 15)

#define PERF_NAME_ALIGN 64		/* perf pads header strings to this */

/* One exported event: its attr, its sample id and its name. */
struct perf_event_spec {
	char name[CHANNEL_NAME_MAX + 32];
	struct perf_event_attr attr;
	uint64_t id;
};

/* A DSO the exported maps name, for the build-id table: the build ID
 * the profile recorded for it (build_id_len 0: none recorded, an older
 * profile - the file's own is written). */
struct perf_dso {
	char *path;
	unsigned char build_id[PROFILE_BUILD_ID_MAX];
	size_t build_id_len;
	struct perf_dso *next;
	struct perf_dso *same_key;	/* the writer's next dso of its path's key */
};

/* Everything the feature writers read. */
struct perf_header_data {
	const struct profile_info *info;
	const struct perf_event_spec *events;
	uint32_t nevents;
	const struct perf_dso *dsos;
	uint64_t first_sample_ns;
	uint64_t last_sample_ns;
	bool pipe;			/* build-ids then go as records */
};

struct feat_buf {
	unsigned char *data;
	size_t len;
	size_t cap;
	bool failed;			/* out of memory: the feature is dropped */
};

void feat_buf_put(struct feat_buf *b, const void *data, size_t len);

struct perf_feature {
	unsigned int bit;
	const char *name;
	bool at_end;			/* needs what only the end of the data gives */
	void (*write)(struct feat_buf *b, const struct perf_header_data *h);
};

extern const struct perf_feature perf_features[];
extern const size_t perf_nfeatures;

/* The build_id_event of one DSO (an entry of the BUILD_ID feature; in pipe
 * mode a PERF_RECORD_HEADER_BUILD_ID record): its recorded build ID, else
 * (an older profile) the file's; nothing when it has none. */
void perf_write_build_id(struct feat_buf *b, const struct perf_dso *d);

#endif
