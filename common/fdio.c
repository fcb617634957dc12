#include "fdio.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
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

int open_regular(const char *path)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -1;
	}
	return fd;
}
