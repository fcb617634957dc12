/* buildid.h - the GNU build ID (and size and mtime) of every file the
 * target maps, for the map records: the exporter names a PC's function from a file only when it is
 * the one that was mapped (docs/EXPORT.md, "Build IDs").
 *
 * Read once per file (device, inode and path), when a map of it is first
 * seen, from the mapped file itself where /proc/PID/map_files lets the
 * sampler open it (a file replaced since, by a rebuild or a mv, keeps its
 * old content there), else from the path if it still names the mapped
 * inode; otherwise, and for a file without a build-ID note, none. */
#ifndef SAMPLER_BUILDID_H
#define SAMPLER_BUILDID_H

#include <stdint.h>
#include <sys/types.h>

#include "../profile/profile.h"
#include "procfs.h"

struct buildid_cache;

struct buildid_cache *buildid_cache_new(void);
void buildid_cache_free(struct buildid_cache *c);

/* The build ID of the file mapped by m in pid into rec, and for a file
 * without one its size and modification time, which tell a rebuilt file
 * from the one mapped (0 bytes, 0: not known, also when out of memory). */
void buildid_fill_map(struct buildid_cache *c, pid_t pid, const struct map_entry *m,
		      struct profile_map *rec);

#endif
