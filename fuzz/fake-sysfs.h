/* fake-sysfs.h - a small fake sysfs for the plug-in fuzz targets, under a
 * private directory that SAMPLER_SYSFS_ROOT points to (removed at exit). */
#ifndef SAMPLER_FUZZ_FAKE_SYSFS_H
#define SAMPLER_FUZZ_FAKE_SYSFS_H

#include <stddef.h>

/* Make $TMPDIR/fuzz-sysfs.XXXXXX holding
 *   class/powercap/intel-rapl:0 (package-0), :0:0 (core), :0:1 (dram)
 *   bus/event_source/devices/power: a perf "power" PMU whose events
 *     energy-pkg, energy-ram are the software event cpu-clock (type 1), as
 *     tests/fakes/fake-power-pmu.sh makes it
 * and set SAMPLER_SYSFS_ROOT.  0, or -1 (with a message on stderr). */
int fake_sysfs_setup(void);

/* Write (replace) <root>/<dir>/<file> with len bytes, making dir; 0 or -1. */
int fake_sysfs_write(const char *dir, const char *file, const void *data, size_t len);

/* Remove <root>/<dir> and everything in it. */
void fake_sysfs_remove(const char *dir);

#endif
