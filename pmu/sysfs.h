/* sysfs.h - reading the small text files of sysfs, under pmu_sysfs_root()
 * ($SAMPLER_SYSFS_ROOT or /sys), for the plug-ins that read sysfs
 * themselves (rapl, power).  Failures return -1 with errno set; the
 * plug-in words the error, since only it knows the fix. */
#ifndef SAMPLER_PMU_SYSFS_H
#define SAMPLER_PMU_SYSFS_H

#include <stddef.h>
#include <stdint.h>

/* out = "<root>/<printf(fmt, ...)>"; -1 (ENAMETOOLONG) if it does not fit. */
int sysfs_path(char *out, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The file's text up to the first newline (pread at offset 0, so an fd kept
 * open can be re-read). */
int sysfs_pread_text(int fd, char *buf, size_t size);
int sysfs_read_text(const char *path, char *buf, size_t size);

/* A decimal number, trailing blanks allowed. */
int sysfs_parse_u64(const char *text, uint64_t *out);

#endif
