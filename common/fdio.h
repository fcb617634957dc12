/* fdio.h - whole reads and writes on file descriptors (EINTR and short
 * transfers handled once, here). */
#ifndef SAMPLER_FDIO_H
#define SAMPLER_FDIO_H

#include <stddef.h>

/* Write all n bytes: 0, or -1 with errno (ENOSPC when write returned 0). */
int write_all(int fd, const void *buf, size_t n);

/* Read exactly n bytes: 0, or -1 with errno (EIO at a premature end). */
int read_all(int fd, void *buf, size_t n);

#endif
