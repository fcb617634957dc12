/* perfmap.c - perf's JIT symbol maps (see perfmap.h). */
#include "perfmap.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/fdio.h"
#include "../common/error.h"
#include "../common/grow.h"
#include "symtab.h"

/* A hostile or runaway file costs at most this many entries (a large node
 * service writes some 100 000). */
#define PERF_MAP_MAX_ENTRIES (1u << 22)

struct perf_map_entry {
	uint64_t start;
	uint64_t end;		/* exclusive */
	char *name;
};

struct perf_map {
	char path[40];		/* "/tmp/perf-4294967295.map" */
	size_t n;
	struct perf_map_entry *entries;	/* by start */
};

static int by_start(const void *a, const void *b)
{
	const struct perf_map_entry *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* "START SIZE NAME": 0 and e filled, -1 for another line. */
static int parse_line(char *line, struct perf_map_entry *e)
{
	char *end;
	uint64_t size;

	line[strcspn(line, "\n")] = '\0';
	e->start = strtoull(line, &end, 16);
	if (end == line || *end != ' ')
		return -1;
	line = end + 1;
	size = strtoull(line, &end, 16);
	if (end == line || *end != ' ' || !end[1] || size == 0 || e->start + size < e->start)
		return -1;
	e->end = e->start + size;
	e->name = strdup(end + 1);
	return e->name ? 0 : -1;
}

/* /tmp is everyone's: as perf, only a file of ours or root's names our
 * frames (another user could plant one under a pid of ours), and it is
 * said when one is ignored. */
static bool trusted_owner(const char *path, const struct stat *st, const char *prog)
{
	if (st->st_uid == geteuid() || st->st_uid == 0)
		return true;
	warn_print(prog, "%s: owned by uid %u, not by you (uid %u) or root: ignored, as "
		   "perf ignores it; its JIT frames show as %s (export as its owner, or chown it)",
		   path, (unsigned)st->st_uid, (unsigned)geteuid(), SYMBOL_UNKNOWN);
	return false;
}

/* A map last written before the process started was left by an earlier
 * process with the same pid: its names are another program's. */
static bool written_since(const char *path, const struct stat *st, uint32_t pid,
			  uint64_t start_ns, const char *prog)
{
	uint64_t mtime = (uint64_t)st->st_mtim.tv_sec * 1000000000u + (uint64_t)st->st_mtim.tv_nsec;

	if (!start_ns || mtime >= start_ns)
		return true;
	warn_print(prog, "%s: last written %.3f s before process %" PRIu32 " started: "
		   "left by an earlier process with that pid, ignored; its JIT frames show as %s "
		   "(remove stale perf maps before recording)", path,
		   (double)(start_ns - mtime) * 1e-9, pid, SYMBOL_UNKNOWN);
	return false;
}

static void read_entries(struct perf_map *m, FILE *f)
{
	size_t cap = 0, len = 0;
	char *line = NULL;

	while (m->n < PERF_MAP_MAX_ENTRIES && getline(&line, &len, f) > 0) {
		struct perf_map_entry e;

		if (parse_line(line, &e) < 0)
			continue;
		if (GROW_ARRAY(m->entries, cap, m->n + 1) < 0) {
			free(e.name);
			break;
		}
		m->entries[m->n++] = e;
	}
	free(line);
	qsort(m->entries, m->n, sizeof(*m->entries), by_start);
}

struct perf_map *perf_map_load(uint32_t pid, uint64_t start_ns, const char *prog)
{
	struct perf_map *m = NULL;
	char path[40];
	struct stat st;
	FILE *f = NULL;
	int fd;

	snprintf(path, sizeof(path), "/tmp/perf-%" PRIu32 ".map", pid);
	fd = open_typed(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW, S_IFREG);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) < 0 || !trusted_owner(path, &st, prog) ||
	    !written_since(path, &st, pid, start_ns, prog))
		goto out;
	f = fdopen(fd, "r");
	m = f ? calloc(1, sizeof(*m)) : NULL;
	if (!m)
		goto out;
	memcpy(m->path, path, sizeof(path));
	read_entries(m, f);
out:
	if (f)
		fclose(f);
	else
		close(fd);
	if (m && !m->n) {
		perf_map_free(m);
		m = NULL;
	}
	return m;
}

const char *perf_map_path(const struct perf_map *m)
{
	return m->path;
}

const char *perf_map_lookup(const struct perf_map *m, uint64_t pc)
{
	size_t lo = 0, hi = m->n;

	while (lo < hi) {		/* the first entry starting after pc */
		size_t mid = lo + (hi - lo) / 2;

		if (m->entries[mid].start <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && pc < m->entries[lo - 1].end ? m->entries[lo - 1].name : NULL;
}

void perf_map_free(struct perf_map *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->n; i++)
		free(m->entries[i].name);
	free(m->entries);
	free(m);
}
