/* mapwatch.h - the mappings a process makes, as it makes them.
 *
 * A process's maps are read from /proc at its start and at exec; what it
 * maps later (dlopen, a JIT's code) the kernel reports, with the time of
 * the mmap (CLOCK_MONOTONIC, the profile's clock), to a perf event with
 * mmap2 set, in a ring the sampler reads at each sample.  So a library
 * unloaded and another loaded at the same address is known from the
 * instant it is mapped, not when a PC first falls outside every map.
 * The event is a dummy software event, one per thread (the kernel maps no
 * ring of an event that new threads inherit), allowed unprivileged at
 * perf_event_paranoid 2.  Only executable mappings are reported (as by
 * perf record without --data): those a PC or a return address can be in.
 * The kernel reports no munmap: an unmapped range stays known until a
 * mapping over it replaces it; no code runs there meanwhile.
 */
#ifndef SAMPLER_MAPWATCH_H
#define SAMPLER_MAPWATCH_H

#include <stdint.h>
#include <sys/types.h>

#include "procfs.h"

struct mapwatch;

/* The watch of process pid, watching no thread yet; NULL when out of
 * memory. */
struct mapwatch *mapwatch_new(pid_t pid);
void mapwatch_free(struct mapwatch *w);
/* Watch thread tid from now on (watched already: nothing): 0, or -1 when refused (perf_event_paranoid
 * 3, the mlock budget for rings spent): what it maps is then known when a
 * PC falls in none of the maps (the engine reads /proc again then). */
int mapwatch_add_thread(struct mapwatch *w, pid_t tid);
/* The thread ended (or an exec gave its tid to another): what it mapped
 * is still read, then its ring freed.  w may be NULL. */
void mapwatch_drop_thread(struct mapwatch *w, pid_t tid);

/* A mapping reported: its path "" for anonymous memory, valid for the
 * call only.  Nonzero stops the reading. */
typedef int (*mapwatch_fn)(void *arg, const struct map_entry *m, uint64_t time_ns);

/* Hand fn the mappings the threads made up to time until, in the order
 * they were made, and consume them; those made before since are passed
 * over (a reading of /proc at since holds them).  The number handed, or
 * -1 when the kernel dropped some (a ring was full) or fn stopped: read
 * /proc again. */
int mapwatch_read(struct mapwatch *w, uint64_t since, uint64_t until, mapwatch_fn fn,
		  void *arg);

#endif
