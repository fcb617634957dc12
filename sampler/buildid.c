/* buildid.c - the build IDs, sizes and mtimes of mapped files, read once
 * per file. */
#include "buildid.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "../common/buildid.h"
#include "../common/grow.h"

_Static_assert(BUILD_ID_MAX == PROFILE_BUILD_ID_MAX, "one build ID size");

struct buildid_entry {
	uint32_t dev_major, dev_minor;
	uint64_t inode;
	char *path;
	uint8_t len;
	uint8_t id[PROFILE_BUILD_ID_MAX];
	uint64_t size, mtime_ns;	/* of the mapped file (0: not read) */
};

struct buildid_cache {
	struct buildid_entry *entries;
	size_t n, alloc;
};

struct buildid_cache *buildid_cache_new(void)
{
	return calloc(1, sizeof(struct buildid_cache));
}

void buildid_cache_free(struct buildid_cache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++)
		free(c->entries[i].path);
	free(c->entries);
	free(c);
}

/* The mapped file: through map_files (needs CAP_SYS_ADMIN or
 * CAP_CHECKPOINT_RESTORE), else by its path while it is still that inode. */
static int open_mapped(pid_t pid, const struct map_entry *m)
{
	char name[80];
	struct stat st;
	int fd;

	snprintf(name, sizeof(name), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64, (int)pid, m->start,
		 m->end);
	fd = open(name, O_RDONLY | O_CLOEXEC);
	if (fd >= 0)
		return fd;
	fd = open(m->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_ino != m->inode ||
	    major(st.st_dev) != m->dev_major || minor(st.st_dev) != m->dev_minor) {
		close(fd);	/* replaced since it was mapped */
		return -1;
	}
	return fd;
}

/* Read the build ID, size and mtime of the file open on fd into e. */
static void read_entry(struct buildid_entry *e, int fd)
{
	struct stat st;

	e->len = (uint8_t)build_id_read(fd, e->id);
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
		e->size = (uint64_t)st.st_size;
		e->mtime_ns = (uint64_t)st.st_mtim.tv_sec * 1000000000u +
			      (uint64_t)st.st_mtim.tv_nsec;
	}
}

static const struct buildid_entry *find_entry(struct buildid_cache *c, pid_t pid,
					      const struct map_entry *m)
{
	struct buildid_entry *e;
	int fd;

	for (size_t i = 0; i < c->n; i++) {
		e = &c->entries[i];
		if (e->inode == m->inode && e->dev_major == m->dev_major &&
		    e->dev_minor == m->dev_minor && strcmp(e->path, m->path) == 0)
			return e;
	}
	if (GROW_ARRAY(c->entries, c->alloc, c->n + 1) < 0)
		return NULL;
	e = &c->entries[c->n];
	*e = (struct buildid_entry){ .dev_major = m->dev_major, .dev_minor = m->dev_minor,
				     .inode = m->inode, .path = strdup(m->path) };
	if (!e->path)
		return NULL;
	fd = open_mapped(pid, m);
	if (fd >= 0) {
		read_entry(e, fd);
		close(fd);
	}
	c->n++;
	return e;
}

void buildid_fill_map(struct buildid_cache *c, pid_t pid, const struct map_entry *m,
		      struct profile_map *rec)
{
	const struct buildid_entry *e = NULL;

	if (m->path[0] == '/' && m->inode)
		e = find_entry(c, pid, m);
	rec->build_id_len = e ? e->len : 0;
	/* a build ID says which file it is: the stamp only without one */
	rec->file_size = e && !e->len ? e->size : 0;
	rec->file_mtime_ns = e && !e->len ? e->mtime_ns : 0;
	if (e)
		memcpy(rec->build_id, e->id, e->len);
}
