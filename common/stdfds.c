#include "stdfds.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

int stdfds_open(void)
{
	int opened = 0;

	for (int fd = 0; fd <= 2; fd++) {
		int got;

		if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
			continue;
		/* The lowest free number: fd itself, the lower ones are open. */
		got = open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
		if (got != fd) {
			if (got >= 0)
				close(got);
			return -1;
		}
		opened |= 1 << fd;
	}
	return opened;
}
