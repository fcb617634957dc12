/* merge.h - several profiles of one job into one (sampler-export with
 * several PROFILEs), so that one perf.data holds every rank. */
#ifndef SAMPLER_EXPORT_MERGE_H
#define SAMPLER_EXPORT_MERGE_H

#include <stddef.h>

#include "../common/error.h"
#include "export.h"

/* Up to this many profiles, each gets its own range of process ids (the
 * pid kept in their low 22 bits, below perf's negative ids). */
#define MERGE_ID_RANGES 512

/* Write to out (a native profile) the records of paths[0..n-1] in time
 * order, on the first profile's clock (the others moved by their realtime
 * anchors), from the earliest profile's start: a k-way merge over every
 * input open at once (the soft limit of open files raised to the hard one
 * if need be).  Process and thread ids are made distinct (profile i's pid p
 * becomes i << 22 | p; beyond MERGE_ID_RANGES profiles, ids are numbered
 * 1, 2, ... as they come) and every process and thread name gets its rank,
 * as "app[rank 2]" (or "[#i]" without one).  Per-thread counters are
 * kept.  Per-sample energy and power channels (node readings that the
 * ranks of a host share) are divided first, each input's rows getting
 * their part of its readings with the other inputs of its host as node
 * peers (the trapezoid rule, opt's meter options), and kept as per-thread
 * counters "energy-CHANNEL-uJ"; with the end rule, an input that is not a
 * file, too many inputs on a host or a profile too large for the estimate
 * they are left out, with one warning line.  Other per-sample channels are
 * left out.  Each input counts only inside its own
 * sampling windows; the merge's windows are off only where all inputs are
 * (see merge.c).  Profiles with different per-thread channels are
 * refused. */
int merge_profiles(char *const *paths, size_t n, const char *out,
		   const struct export_options *opt, struct error *err);

#endif
