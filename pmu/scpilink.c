/* scpilink - the line connection to an SCPI meter (scpilink.h): TCP with
 * a bounded non-blocking connect, or a raw serial line; a query out, the
 * answer assembled line by line from what arrives, every read bounded in
 * bytes so that a meter streaming by itself cannot keep a poll busy. */
#include "scpilink.h"
#include "args.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

struct scpi_link {
	char address[160];	/* as given, for messages */
	char host[128], port[32];	/* tcp */
	struct sockaddr_storage peer;	/* tcp: the address that answered first */
	socklen_t peer_len;		/* 0: not resolved yet */
	char device[PATH_MAX];		/* serial */
	speed_t speed;
	int tcp;

	int fd;			/* -1: disconnected */
	int outstanding;	/* a query waits for its answer */
	long long tried_ns;	/* the last connection attempt */

	char rx[512];		/* bytes received, not yet a whole line */
	size_t rx_len;
	int overlong;		/* dropping the rest of a too long line */
	char line[SCPI_LINK_LINE_MAX + 1];	/* the last whole line */
	size_t budget;		/* bytes the reads may still take */
};

long long scpi_link_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* ---- the address ----------------------------------------------------------- */

static const struct {
	unsigned baud;
	speed_t speed;
} bauds[] = {
	{ 1200, B1200 }, { 2400, B2400 }, { 4800, B4800 }, { 9600, B9600 },
	{ 19200, B19200 }, { 38400, B38400 }, { 57600, B57600 },
	{ 115200, B115200 }, { 230400, B230400 }, { 460800, B460800 },
	{ 921600, B921600 }, { 1000000, B1000000 }, { 2000000, B2000000 },
};

static int parse_serial(struct scpi_link *link, const char *addr, struct error *err)
{
	const char *at = strrchr(addr, '@');
	unsigned long baud = 9600;
	size_t len = at ? (size_t)(at - addr) : strlen(addr);

	if (len >= sizeof(link->device))
		return error_set(err, "scpi: device path too long in '%s'", addr);
	memcpy(link->device, addr, len);
	link->device[len] = '\0';
	if (at && pmu_arg_ulong("scpi", "baud rate", at + 1, 1, 4000000, &baud, err) < 0)
		return -1;
	for (size_t i = 0; i < sizeof(bauds) / sizeof(bauds[0]); i++) {
		if (bauds[i].baud == baud) {
			link->speed = bauds[i].speed;
			return 0;
		}
	}
	return error_set(err, "scpi: unsupported baud rate %lu in '%s' (use 1200 ... 2000000, e.g. %s@115200)",
			 baud, addr, link->device);
}

static int parse_tcp(struct scpi_link *link, const char *addr, struct error *err)
{
	const char *hostport = addr + strlen("tcp://"), *colon, *host = hostport;
	size_t hostlen;

	if (*hostport == '[') {		/* [IPv6]:PORT */
		const char *close = strchr(hostport, ']');

		colon = close && close[1] == ':' ? close + 1 : NULL;
		host = hostport + 1;
		hostlen = close ? (size_t)(close - host) : 0;
	} else {
		colon = strrchr(hostport, ':');
		hostlen = colon ? (size_t)(colon - hostport) : 0;
	}
	if (!colon || hostlen == 0 || !colon[1] || hostlen >= sizeof(link->host) ||
	    strlen(colon + 1) >= sizeof(link->port))
		return error_set(err, "scpi: bad address '%s' (use tcp://HOST:PORT, e.g. tcp://192.168.1.50:5025)",
				 addr);
	memcpy(link->host, host, hostlen);
	link->host[hostlen] = '\0';
	strcpy(link->port, colon + 1);
	link->tcp = 1;
	return 0;
}

static int parse_address(struct scpi_link *link, const char *addr, struct error *err)
{
	if (strlen(addr) >= sizeof(link->address))
		return error_set(err, "scpi: address too long: '%.40s...'", addr);
	strcpy(link->address, addr);
	if (strncmp(addr, "tcp://", 6) == 0)
		return parse_tcp(link, addr, err);
	if (addr[0] == '/')
		return parse_serial(link, addr, err);
	return error_set(err, "scpi: bad address '%s' (use tcp://HOST:PORT or a serial device /dev/ttyUSB0@BAUD)",
			 addr);
}

struct scpi_link *scpi_link_new(const char *addr, struct error *err)
{
	struct scpi_link *link = calloc(1, sizeof(*link));

	if (!link) {
		error_set(err, "scpi: out of memory");
		return NULL;
	}
	link->fd = -1;
	if (parse_address(link, addr, err) < 0) {
		free(link);
		return NULL;
	}
	return link;
}

void scpi_link_free(struct scpi_link *link)
{
	if (!link)
		return;
	scpi_link_disconnect(link);
	free(link);
}

const char *scpi_link_address(const struct scpi_link *link)
{
	return link->address;
}

/* ---- connecting ------------------------------------------------------------ */

static int wait_fd(int fd, short events, int timeout_ms)
{
	struct pollfd pfd = { .fd = fd, .events = events };
	int ret;

	do
		ret = poll(&pfd, 1, timeout_ms);
	while (ret < 0 && errno == EINTR);
	return ret;
}

/* A non-blocking connect to one address that gives up after timeout_ms:
 * the socket, or -1 with errno set. */
static int connect_to(const struct sockaddr *addr, socklen_t len, int timeout_ms)
{
	int fd = socket(addr->sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	int errnum = 0;
	socklen_t errlen = sizeof(errnum);

	if (fd < 0)
		return -1;
	if (connect(fd, addr, len) == 0)
		return fd;
	errnum = errno;
	if (errnum == EINPROGRESS) {
		errnum = ETIMEDOUT;
		if (wait_fd(fd, POLLOUT, timeout_ms) > 0 &&
		    getsockopt(fd, SOL_SOCKET, SO_ERROR, &errnum, &errlen) == 0 && errnum == 0)
			return fd;
	}
	close(fd);
	errno = errnum;
	return -1;
}

/* Connect within timeout_ms.  The name is resolved once, at start (a
 * resolver may take seconds): a re-connection, done while the target is
 * stopped, goes to the address that answered then. */
static int connect_tcp(struct scpi_link *link, int timeout_ms, struct error *err)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM };
	struct addrinfo *res, *ai;
	int ret, fd = -1, errnum = 0;

	if (link->peer_len) {
		fd = connect_to((const struct sockaddr *)&link->peer, link->peer_len, timeout_ms);
		errnum = errno;
		goto out;
	}
	ret = getaddrinfo(link->host, link->port, &hints, &res);
	if (ret)
		return error_set(err, "scpi: cannot resolve %s: %s (check the host name and port)",
				 link->address, gai_strerror(ret));
	for (ai = res; ai && fd < 0; ai = ai->ai_next) {
		fd = connect_to(ai->ai_addr, ai->ai_addrlen, timeout_ms);
		errnum = errno;
		if (fd >= 0 && ai->ai_addrlen <= sizeof(link->peer)) {
			memcpy(&link->peer, ai->ai_addr, ai->ai_addrlen);
			link->peer_len = ai->ai_addrlen;
		}
	}
	freeaddrinfo(res);
out:
	if (fd < 0)
		return error_set(err, "scpi: cannot connect to %s: %s (is the meter on and listening there? check the address and port)",
				 link->address, strerror(errnum));
	/* each query is one small write that must leave at once */
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &(int){ 1 }, sizeof(int));
	return fd;
}

static int open_serial(struct scpi_link *link, struct error *err)
{
	struct termios tio;
	int fd = open(link->device, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return error_set(err, "scpi: cannot open %s: %s (%s)", link->device, strerror(errno),
				 errno == EACCES ? "add yourself to the dialout group or run as root"
						 : "check the device path, e.g. ls /dev/ttyUSB*");
	if (tcgetattr(fd, &tio) < 0) {
		close(fd);
		return error_set(err, "scpi: %s is not a serial device: %s (give a tty, e.g. /dev/ttyUSB0@115200)",
				 link->device, strerror(errno));
	}
	cfmakeraw(&tio);
	tio.c_cflag |= CLOCAL | CREAD;
	cfsetispeed(&tio, link->speed);
	cfsetospeed(&tio, link->speed);
	if (tcsetattr(fd, TCSANOW, &tio) < 0) {
		close(fd);
		return error_set(err, "scpi: cannot configure %s: %s (check the baud rate)",
				 link->device, strerror(errno));
	}
	tcflush(fd, TCIOFLUSH);
	return fd;
}

int scpi_link_connect(struct scpi_link *link, int timeout_ms, struct error *err)
{
	link->tried_ns = scpi_link_now_ns();
	link->fd = link->tcp ? connect_tcp(link, timeout_ms, err) : open_serial(link, err);
	link->outstanding = 0;
	link->rx_len = 0;
	link->overlong = 0;
	return link->fd < 0 ? -1 : 0;
}

void scpi_link_disconnect(struct scpi_link *link)
{
	if (link->fd >= 0)
		close(link->fd);
	link->fd = -1;
	link->outstanding = 0;
}

bool scpi_link_connected(const struct scpi_link *link)
{
	return link->fd >= 0;
}

long long scpi_link_tried_ns(const struct scpi_link *link)
{
	return link->tried_ns;
}

/* ---- queries and answers ---------------------------------------------------- */

int scpi_link_send(struct scpi_link *link, const char *query, size_t len)
{
	ssize_t n = link->tcp ? send(link->fd, query, len, MSG_NOSIGNAL) : write(link->fd, query, len);

	if (n != (ssize_t)len)
		return -1;
	link->outstanding = 1;
	return 0;
}

bool scpi_link_outstanding(const struct scpi_link *link)
{
	return link->outstanding;
}

void scpi_link_answered(struct scpi_link *link)
{
	link->outstanding = 0;
}

void scpi_link_budget(struct scpi_link *link, size_t bytes)
{
	link->budget = bytes;
}

const char *scpi_link_line(const struct scpi_link *link)
{
	return link->line;
}

/* Move the first complete line of rx into line (CR/LF cut); a line too
 * long for it is dropped whole.  1 when a line was taken, else 0. */
int scpi_link_next(struct scpi_link *link)
{
	char *nl;

	while ((nl = memchr(link->rx, '\n', link->rx_len))) {
		size_t len = (size_t)(nl - link->rx), used = len + 1;
		int complete = !link->overlong && len < sizeof(link->line);

		if (complete) {
			memcpy(link->line, link->rx, len);
			link->line[len] = '\0';
			if (len && link->line[len - 1] == '\r')
				link->line[len - 1] = '\0';
		}
		memmove(link->rx, link->rx + used, link->rx_len - used);
		link->rx_len -= used;
		link->overlong = 0;
		if (complete)
			return 1;
	}
	if (link->rx_len == sizeof(link->rx)) {	/* no newline in sight */
		link->overlong = 1;
		link->rx_len = 0;
	}
	return 0;
}

size_t scpi_link_feed(struct scpi_link *link, const char *data, size_t len)
{
	size_t n = sizeof(link->rx) - link->rx_len;

	n = len < n ? len : n;
	memcpy(link->rx + link->rx_len, data, n);
	link->rx_len += n;
	return n;
}

int scpi_link_take(struct scpi_link *link)
{
	for (;;) {
		size_t room;
		ssize_t n;

		if (scpi_link_next(link))
			return 1;
		if (link->budget == 0)
			return SCPI_LINK_CHATTER;
		room = sizeof(link->rx) - link->rx_len;	/* never 0 after next */
		n = read(link->fd, link->rx + link->rx_len, room < link->budget ? room : link->budget);
		if (n == 0)
			return -1;
		if (n < 0)
			return errno == EAGAIN || errno == EINTR ? 0 : -1;
		link->rx_len += (size_t)n;
		link->budget -= (size_t)n;
	}
}

int scpi_link_await(struct scpi_link *link, long long deadline_ns)
{
	for (;;) {
		int ret = scpi_link_take(link);
		long long left;

		if (ret != 0)
			return ret;
		left = deadline_ns - scpi_link_now_ns();
		if (left <= 0)
			return 0;
		if (wait_fd(link->fd, POLLIN, (int)((left + 999999) / 1000000)) < 0)
			return -1;
	}
}

int scpi_link_drain(struct scpi_link *link)
{
	int ret;

	while ((ret = scpi_link_take(link)) > 0)
		;
	link->rx_len = 0;
	return ret;
}

void scpi_link_forget(struct scpi_link *link)
{
	link->rx_len = 0;
}
