/* buildid.h - the GNU build ID of an ELF file, read one way by the sampler
 * (which records it in the map records) and the exporter (which reads
 * symbols from a file only when its build ID is the recorded one), so the
 * two agree on every file.  Needs libelf (-lelf): not in COMMON_OBJS.
 */
#ifndef SAMPLER_COMMON_BUILDID_H
#define SAMPLER_COMMON_BUILDID_H

#include <stddef.h>

#define BUILD_ID_MAX 20

/* The build ID of the ELF file open on fd, from its PT_NOTE segments (what
 * the loader maps, as perf reads it): its length, or 0 when it has none
 * (or one longer than BUILD_ID_MAX) or is no ELF file. */
size_t build_id_read(int fd, unsigned char id[BUILD_ID_MAX]);

/* The same of the regular file at path (open_regular, fdio.h). */
size_t elf_build_id(const char *path, unsigned char id[BUILD_ID_MAX]);

/* Where distributions put the separate debug file of a build ID:
 * /usr/lib/debug/.build-id/NN/REST.debug.  -1 for an id shorter than 2. */
#define BUILD_ID_DEBUG_PATH_MAX (64 + 2 * BUILD_ID_MAX)
int build_id_debug_path(const unsigned char *id, size_t len, char *buf, size_t size);

#endif
