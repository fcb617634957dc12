#include "fdio.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

int write_all(int fd, const void *buf, size_t n)
{
	const uint8_t *p = buf;

	while (n) {
		ssize_t done = write(fd, p, n);

		if (done < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (done == 0) {
			errno = ENOSPC;
			return -1;
		}
		p += done;
		n -= (size_t)done;
	}
	return 0;
}

int read_all(int fd, void *buf, size_t n)
{
	uint8_t *p = buf;

	while (n) {
		ssize_t done = read(fd, p, n);

		if (done < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (done == 0) {
			errno = EIO;
			return -1;
		}
		p += done;
		n -= (size_t)done;
	}
	return 0;
}

/* The file at path, its type checked before it is opened for reading: an
 * O_PATH descriptor opens no device and no FIFO; the file is then opened
 * through it (/proc/self/fd), the same inode whatever the path names
 * meanwhile.  Without /proc, opened by path and checked after. */
int open_typed(const char *path, int flags, unsigned type)
{
	char self[40];
	struct stat st;
	int pfd = open(path, O_PATH | O_CLOEXEC | (flags & O_NOFOLLOW)), fd;

	if (pfd < 0)
		return -1;
	if (fstat(pfd, &st) < 0 || (st.st_mode & S_IFMT) != type) {
		close(pfd);
		errno = EINVAL;
		return -1;
	}
	snprintf(self, sizeof(self), "/proc/self/fd/%d", pfd);
	fd = open(self, (flags & ~O_NOFOLLOW) | O_CLOEXEC);	/* (a magic link) */
	if (fd < 0 && errno == ENOENT)
		fd = open(path, flags | O_CLOEXEC);
	close(pfd);
	if (fd >= 0 && (fstat(fd, &st) < 0 || (st.st_mode & S_IFMT) != type)) {
		close(fd);
		errno = EINVAL;
		return -1;
	}
	return fd;
}

int open_regular(const char *path)
{
	return open_typed(path, O_RDONLY | O_NONBLOCK | O_NOCTTY, S_IFREG);
}
