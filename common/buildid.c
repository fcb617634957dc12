/* buildid.c - the GNU build ID of an ELF file (see buildid.h). */
#include "buildid.h"

#include <gelf.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fdio.h"

/* The NT_GNU_BUILD_ID note in data, if any. */
static size_t note_id(Elf_Data *data, unsigned char id[BUILD_ID_MAX])
{
	size_t offset = 0, name_off, desc_off;
	GElf_Nhdr nh;

	while (data && (offset = gelf_getnote(data, offset, &nh, &name_off, &desc_off)) > 0) {
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    memcmp((const char *)data->d_buf + name_off, "GNU", 4) == 0 &&
		    nh.n_descsz > 0 && nh.n_descsz <= BUILD_ID_MAX) {
			memcpy(id, (const char *)data->d_buf + desc_off, nh.n_descsz);
			return nh.n_descsz;
		}
	}
	return 0;
}

size_t build_id_read(int fd, unsigned char id[BUILD_ID_MAX])
{
	Elf *elf;
	size_t len = 0, phnum;

	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
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

size_t elf_build_id(const char *path, unsigned char id[BUILD_ID_MAX])
{
	int fd = open_regular(path);
	size_t len;

	if (fd < 0)
		return 0;
	len = build_id_read(fd, id);
	close(fd);
	return len;
}

int build_id_debug_path(const unsigned char *id, size_t len, char *buf, size_t size)
{
	int n;

	if (len < 2 || size < BUILD_ID_DEBUG_PATH_MAX || len > BUILD_ID_MAX)
		return -1;
	n = snprintf(buf, size, "/usr/lib/debug/.build-id/%02x/", id[0]);
	for (size_t i = 1; i < len; i++)
		n += snprintf(buf + n, size - n, "%02x", id[i]);
	snprintf(buf + n, size - n, ".debug");
	return 0;
}
