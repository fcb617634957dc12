/* scpi.h - the scpi plug-in's text parsers, callable alone (no meter, no
 * I/O) so that the fuzz targets (fuzz/fuzz_pmu_*.c) reach them.  The
 * plug-in itself is used through pmu_scpi (pmu.h registry) only. */
#ifndef SAMPLER_PMU_SCPI_H
#define SAMPLER_PMU_SCPI_H

#include <stddef.h>

#include "../common/error.h"

/* Parse a plug-in argument ("tcp://HOST:PORT,unit=A,...") as init() does,
 * without connecting.  0, or -1 with the error init() would give. */
int scpi_check_args(const char *args, struct error *err);

/* Feed bytes, as a meter would send them, through the plug-in's line
 * assembly in pieces of at most chunk bytes, and parse every whole line as
 * a reading, judged as a power and as an energy count (plausible.h).
 * Returns the number of lines that parsed as a number. */
size_t scpi_scan_replies(const char *data, size_t len, size_t chunk);

#endif
