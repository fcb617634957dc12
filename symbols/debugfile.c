/* debugfile.c - the separate debug file of an ELF file (see debugfile.h). */
#include "debugfile.h"

#include <elfutils/libdwelf.h>
#include <libelf.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/buildid.h"
#include "../common/fdio.h"
#include "../profile/codec.h"

/* The CRC-32 of the whole file at path, as the link's is computed. */
static int file_crc(const char *path, uint32_t *crc)
{
	unsigned char buf[65536];
	int fd = open_regular(path);
	ssize_t n;

	if (fd < 0)
		return -1;
	*crc = 0;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		*crc = crc32_update(*crc, buf, (size_t)n);
	close(fd);
	return n < 0 ? -1 : 0;
}

/* The name and CRC the .gnu_debuglink of the file at path gives: a file
 * name (one with a '/' is refused: it names no place of the three). */
static int read_debuglink(const char *path, char *name, size_t size, uint32_t *crc)
{
	int fd = open_regular(path), ret = -1;
	const char *link;
	GElf_Word word;
	Elf *elf;

	if (fd < 0)
		return -1;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	link = elf && elf_kind(elf) == ELF_K_ELF ? dwelf_elf_gnu_debuglink(elf, &word) : NULL;
	if (link && link[0] && !strchr(link, '/') && strlen(link) < size) {
		strcpy(name, link);
		*crc = word;
		ret = 0;
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return ret;
}

/* gdb's and perf's places for a debuglink NAME of DIR/FILE. */
static const char *const link_places[] = { "%s/%s", "%s/.debug/%s", "/usr/lib/debug%s/%s" };

static int find_linked(const char *path, char *buf, size_t size)
{
	char name[256], dir[4096];
	const char *slash = strrchr(path, '/');
	uint32_t want, crc;

	if (!slash || (size_t)(slash - path) >= sizeof(dir) ||
	    read_debuglink(path, name, sizeof(name), &want) < 0)
		return -1;
	memcpy(dir, path, (size_t)(slash - path));
	dir[slash - path] = '\0';
	for (size_t i = 0; i < sizeof(link_places) / sizeof(link_places[0]); i++) {
		int n = snprintf(buf, size, link_places[i], dir, name);

		if (n <= 0 || (size_t)n >= size || strcmp(buf, path) == 0)
			continue;
		if (file_crc(buf, &crc) == 0 && crc == want)
			return 0;
	}
	return -1;
}

int debug_file_find(const char *path, char *buf, size_t size)
{
	unsigned char id[BUILD_ID_MAX];
	size_t len = elf_build_id(path, id);
	struct stat st;

	if (build_id_debug_path(id, len, buf, size) == 0 && stat(buf, &st) == 0 &&
	    S_ISREG(st.st_mode))
		return 0;
	return find_linked(path, buf, size);
}
