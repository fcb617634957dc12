/* sysfs.c - small sysfs text files under pmu_sysfs_root(). */
#include "sysfs.h"
#include "pmu.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int sysfs_path(char *out, size_t size, const char *fmt, ...)
{
	int root_len = snprintf(out, size, "%s/", pmu_sysfs_root()), len;
	va_list ap;

	if (root_len < 0 || (size_t)root_len >= size)
		goto too_long;
	va_start(ap, fmt);
	len = vsnprintf(out + root_len, size - root_len, fmt, ap);
	va_end(ap);
	if (len >= 0 && (size_t)len < size - root_len)
		return 0;
too_long:
	errno = ENAMETOOLONG;
	return -1;
}

int sysfs_pread_text(int fd, char *buf, size_t size)
{
	ssize_t len = pread(fd, buf, size - 1, 0);

	if (len < 0)
		return -1;
	buf[len] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

int sysfs_read_text(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret, errnum;

	if (fd < 0)
		return -1;
	ret = sysfs_pread_text(fd, buf, size);
	errnum = errno;
	close(fd);
	errno = errnum;
	return ret;
}

int sysfs_parse_u64(const char *text, uint64_t *out)
{
	char *end;

	if (text[0] < '0' || text[0] > '9')
		return -1;
	errno = 0;
	*out = strtoull(text, &end, 10);
	while (*end == ' ')
		end++;
	return errno || *end ? -1 : 0;
}
