/* features.c - one write function per perf.data header feature, and the
 * table that lists them (perf's util/header.c is the model and the reader). */
#include "features.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../common/buildid.h"
#include "../common/grow.h"

#define ALIGN_UP(x, a) (((x) + (a) - 1) / (a) * (a))

void feat_buf_put(struct feat_buf *b, const void *data, size_t len)
{
	if (b->failed)
		return;
	if (GROW_ARRAY(b->data, b->cap, b->len + len) < 0) {
		b->failed = true;
		return;
	}
	if (data)
		memcpy(b->data + b->len, data, len);
	else
		memset(b->data + b->len, 0, len);
	b->len += len;
}

static void put_u32(struct feat_buf *b, uint32_t v)
{
	feat_buf_put(b, &v, sizeof(v));
}

static void put_u64(struct feat_buf *b, uint64_t v)
{
	feat_buf_put(b, &v, sizeof(v));
}

/* struct perf_header_string: u32 len, then the string, NUL-padded to 64. */
static void put_string(struct feat_buf *b, const char *s, size_t slen)
{
	uint32_t len = ALIGN_UP(slen + 1, PERF_NAME_ALIGN);

	put_u32(b, len);
	feat_buf_put(b, s, slen);
	feat_buf_put(b, NULL, len - slen);
}

static void put_cstring(struct feat_buf *b, const char *s)
{
	put_string(b, s, strlen(s));
}

static void write_hostname(struct feat_buf *b, const struct perf_header_data *h)
{
	put_cstring(b, h->info->host.hostname);
}

static void write_osrelease(struct feat_buf *b, const struct perf_header_data *h)
{
	put_cstring(b, h->info->host.os_release);
}

/* perf shows it as "perf version": say which tool and version recorded. */
static void write_version(struct feat_buf *b, const struct perf_header_data *h)
{
	const char *v = h->info->host.sampler_version;
	char version[sizeof(h->info->host.sampler_version) + 16];

	snprintf(version, sizeof(version), "sampler %s", v[0] ? v : "(unknown)");
	put_cstring(b, version);
}

static void write_arch(struct feat_buf *b, const struct perf_header_data *h)
{
	put_cstring(b, h->info->host.arch);
}

static void write_nrcpus(struct feat_buf *b, const struct perf_header_data *h)
{
	put_u32(b, h->info->host.nr_cpus_avail);
	put_u32(b, h->info->host.nr_cpus_online);
}

static void write_cpudesc(struct feat_buf *b, const struct perf_header_data *h)
{
	put_cstring(b, h->info->host.cpu_desc);
}

static void write_cpuid(struct feat_buf *b, const struct perf_header_data *h)
{
	put_cstring(b, h->info->host.cpu_id);
}

static void write_total_mem(struct feat_buf *b, const struct perf_header_data *h)
{
	put_u64(b, h->info->host.total_mem_kb);
}

/* A string list of the sampler's arguments (the cmdline is space-joined). */
static void write_cmdline(struct feat_buf *b, const struct perf_header_data *h)
{
	const char *cmd = h->info->host.cmdline, *p;
	size_t count_at = b->len;
	uint32_t nr = 0;

	put_u32(b, 0);
	for (p = cmd; *p;) {
		size_t n = strcspn(p, " ");

		if (n) {
			put_string(b, p, n);
			nr++;
		}
		p += n;
		p += strspn(p, " ");
	}
	if (!nr) {
		put_cstring(b, "sampler");
		nr++;
	}
	if (!b->failed)
		memcpy(b->data + count_at, &nr, sizeof(nr));
}

static void write_event_desc(struct feat_buf *b, const struct perf_header_data *h)
{
	put_u32(b, h->nevents);
	put_u32(b, sizeof(struct perf_event_attr));
	for (uint32_t i = 0; i < h->nevents; i++) {
		feat_buf_put(b, &h->events[i].attr, sizeof(h->events[i].attr));
		put_u32(b, 1);
		put_cstring(b, h->events[i].name);
		put_u64(b, h->events[i].id);
	}
}

void perf_write_build_id(struct feat_buf *b, const struct perf_dso *d)
{
	unsigned char id[BUILD_ID_MAX];
	const char *path = d->path;
	struct perf_event_header hdr;
	size_t idlen = d->build_id_len;
	size_t namelen = ALIGN_UP(strlen(path) + 1, PERF_NAME_ALIGN);
	unsigned char idfield[24] = { 0 };
	int32_t pid = -1;	/* perf's HOST_KERNEL_ID: the host machine */

	if (idlen)	/* the file that was mapped, whatever is at path now */
		memcpy(id, d->build_id, idlen);
	else
		idlen = elf_build_id(path, id);
	if (!idlen)
		return;
	memcpy(idfield, id, idlen);
	idfield[20] = idlen;	/* with PERF_RECORD_MISC_BUILD_ID_SIZE */
	hdr.type = PERF_RECORD_HEADER_BUILD_ID;
	hdr.misc = PERF_RECORD_MISC_USER | PERF_RECORD_MISC_BUILD_ID_SIZE;
	hdr.size = sizeof(hdr) + sizeof(pid) + sizeof(idfield) + namelen;
	feat_buf_put(b, &hdr, sizeof(hdr));
	feat_buf_put(b, &pid, sizeof(pid));
	feat_buf_put(b, idfield, sizeof(idfield));
	feat_buf_put(b, path, strlen(path));
	feat_buf_put(b, NULL, namelen - strlen(path));
}

static void write_build_id(struct feat_buf *b, const struct perf_header_data *h)
{
	/* In pipe mode perf reads build-ids only as records (see perfdata.c). */
	if (h->pipe)
		return;
	for (const struct perf_dso *d = h->dsos; d; d = d->next)
		perf_write_build_id(b, d);
}

static void write_sample_time(struct feat_buf *b, const struct perf_header_data *h)
{
	put_u64(b, h->first_sample_ns);
	put_u64(b, h->last_sample_ns);
}

/* The clock's resolution in ns (perf record -k stores the same). */
static void write_clockid(struct feat_buf *b, const struct perf_header_data *h)
{
	struct timespec res = { 0, 1 };

	(void)h;
	clock_getres(CLOCK_MONOTONIC, &res);
	put_u64(b, (uint64_t)res.tv_sec * 1000000000u + res.tv_nsec);
}

/* One instant on both clocks: perf script -F +tod shows wall-clock time. */
static void write_clock_data(struct feat_buf *b, const struct perf_header_data *h)
{
	if (!h->info->host.realtime_ns)
		return;		/* the profile has no anchor: leave the feature out */
	put_u32(b, 1);		/* version */
	put_u32(b, CLOCK_MONOTONIC);
	put_u64(b, h->info->host.realtime_ns);
	put_u64(b, h->info->host.monotonic_ns);
}

#define FEAT(bit_, fn_, at_end_) { HEADER_##bit_, #bit_, at_end_, write_##fn_ }

/* In bit order: file-mode feature sections must follow it. */
const struct perf_feature perf_features[] = {
	FEAT(BUILD_ID, build_id, true),
	FEAT(HOSTNAME, hostname, false),
	FEAT(OSRELEASE, osrelease, false),
	FEAT(VERSION, version, false),
	FEAT(ARCH, arch, false),
	FEAT(NRCPUS, nrcpus, false),
	FEAT(CPUDESC, cpudesc, false),
	FEAT(CPUID, cpuid, false),
	FEAT(TOTAL_MEM, total_mem, false),
	FEAT(CMDLINE, cmdline, false),
	FEAT(EVENT_DESC, event_desc, false),
	FEAT(SAMPLE_TIME, sample_time, true),
	FEAT(CLOCKID, clockid, false),
	FEAT(CLOCK_DATA, clock_data, false),
};

const size_t perf_nfeatures = sizeof(perf_features) / sizeof(perf_features[0]);
