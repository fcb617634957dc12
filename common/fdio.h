/* fdio.h - whole reads and writes on file descriptors (EINTR and short
 * transfers handled once, here), and opening a file that is safe to read. */
#ifndef SAMPLER_FDIO_H
#define SAMPLER_FDIO_H

#include <stddef.h>

/* Write all n bytes: 0, or -1 with errno (ENOSPC when write returned 0). */
int write_all(int fd, const void *buf, size_t n);

/* Read exactly n bytes: 0, or -1 with errno (EIO at a premature end). */
int read_all(int fd, void *buf, size_t n);

/* open(2) path with flags (O_NOFOLLOW: not through a symlink) only if it
 * is a file of type (S_IFREG, S_IFIFO...), checked before it is opened:
 * opening a device or FIFO can block or act.  -1 with errno, EINVAL for
 * another type. */
int open_typed(const char *path, int flags, unsigned type);

/* open(2) a file named by a profile, read-only, only if it is a regular
 * file (a FIFO or device must not block or stream forever); -1 if not. */
int open_regular(const char *path);

#endif
