/* perfmap.h - perf's JIT interface: /tmp/perf-PID.map, which JIT compilers
 * write (node --perf-basic-prof, Java agents, LuaJIT, ...), one line per
 * function: "START SIZE NAME", START and SIZE in hex.  perf report names a
 * PC in an anonymous executable mapping from it; so does the symbolizer.
 */
#ifndef SAMPLER_EXPORT_PERFMAP_H
#define SAMPLER_EXPORT_PERFMAP_H

#include <stdint.h>

struct perf_map;

/* The map file of process pid, which started at start_ns (wall-clock ns
 * since the epoch; 0: not known): NULL when there is none, it is not a
 * regular file (or a symlink), or holds no valid line; NULL with one
 * warning when it is not ours nor root's (as perf) or was last written
 * before the process started (left by another process with that pid).
 * Lines that are not "START SIZE NAME" are skipped, as perf skips them. */
struct perf_map *perf_map_load(uint32_t pid, uint64_t start_ns, const char *prog);

/* Its path, "/tmp/perf-PID.map" (the DSO perf report names). */
const char *perf_map_path(const struct perf_map *m);

/* The name of the function of m that holds pc, or NULL. */
const char *perf_map_lookup(const struct perf_map *m, uint64_t pc);

void perf_map_free(struct perf_map *m);

#endif
