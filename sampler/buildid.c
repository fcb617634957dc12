/* buildid.c - the build IDs of mapped files, read once per file. */
#include "buildid.h"

#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "../common/grow.h"

struct buildid_entry {
	uint32_t dev_major, dev_minor;
	uint64_t inode;
	char *path;
	uint8_t len;
	uint8_t id[PROFILE_BUILD_ID_MAX];
};

struct buildid_cache {
	struct buildid_entry *entries;
	size_t n, alloc;
};

struct buildid_cache *buildid_cache_new(void)
{
	elf_version(EV_CURRENT);
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

/* The NT_GNU_BUILD_ID note in data, if any. */
static uint8_t note_id(Elf_Data *data, uint8_t id[PROFILE_BUILD_ID_MAX])
{
	size_t offset = 0, name_off, desc_off;
	GElf_Nhdr nh;

	while (data && (offset = gelf_getnote(data, offset, &nh, &name_off, &desc_off)) > 0) {
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    memcmp((const char *)data->d_buf + name_off, "GNU", 4) == 0 &&
		    nh.n_descsz > 0 && nh.n_descsz <= PROFILE_BUILD_ID_MAX) {
			memcpy(id, (const char *)data->d_buf + desc_off, nh.n_descsz);
			return (uint8_t)nh.n_descsz;
		}
	}
	return 0;
}

/* From the PT_NOTE segments (what the loader maps, as perf reads it). */
static uint8_t elf_id(int fd, uint8_t id[PROFILE_BUILD_ID_MAX])
{
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	uint8_t len = 0;
	size_t phnum;

	if (elf && elf_kind(elf) == ELF_K_ELF && elf_getphdrnum(elf, &phnum) == 0) {
		for (size_t i = 0; i < phnum && !len; i++) {
			GElf_Phdr ph;

			if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_NOTE)
				len = note_id(elf_getdata_rawchunk(elf, (int64_t)ph.p_offset,
								   ph.p_filesz, ELF_T_NHDR), id);
		}
	}
	elf_end(elf);
	return len;
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

uint8_t buildid_of(struct buildid_cache *c, pid_t pid, const struct map_entry *m,
		   uint8_t id[PROFILE_BUILD_ID_MAX])
{
	struct buildid_entry *e;
	int fd;

	if (m->path[0] != '/' || !m->inode)
		return 0;
	for (size_t i = 0; i < c->n; i++) {
		e = &c->entries[i];
		if (e->inode == m->inode && e->dev_major == m->dev_major &&
		    e->dev_minor == m->dev_minor && strcmp(e->path, m->path) == 0) {
			memcpy(id, e->id, e->len);
			return e->len;
		}
	}
	if (GROW_ARRAY(c->entries, c->alloc, c->n + 1) < 0)
		return 0;
	e = &c->entries[c->n];
	*e = (struct buildid_entry){ .dev_major = m->dev_major, .dev_minor = m->dev_minor,
				     .inode = m->inode, .path = strdup(m->path) };
	if (!e->path)
		return 0;
	fd = open_mapped(pid, m);
	if (fd >= 0) {
		e->len = elf_id(fd, e->id);
		close(fd);
	}
	c->n++;
	memcpy(id, e->id, e->len);
	return e->len;
}
