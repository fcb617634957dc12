/* outfile.c - outputs created safely: see outfile.h. */
#include "outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <linux/fs.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#define PROC_SUPER_MAGIC 0x9fa0
#define TEMP_TRIES 100
/* Temporaries a fatal signal may find unpublished at once (an export
 * writes one output, a merge one more). */
#define PENDING_MAX 8
/* A reader started in the background just before (reader & sampler -o
 * FIFO) may not have opened its end yet: wait this long for one. */
#define FIFO_READER_WAIT_MS 2000
#define FIFO_READER_POLL_MS 10
#define OLD_SUFFIX ".old"

struct outfile {
	int fd;
	int dirfd;			/* the target's directory; -1 for streams */
	char *path;			/* as given */
	char *base;			/* the target's name in dirfd */
	char *tmp;			/* the new file's name until published */
	struct pending_temp *pending;	/* tmp's slot for a fatal signal */
	unsigned flags;
	bool is_file;
	bool published;
};

/* The unpublished temporaries, for outfile_remove_pending() in a signal
 * handler, which can reach no struct outfile: each slot a directory and a
 * name, set before the file exists and cleared before it is renamed. */
static struct pending_temp {
	volatile int dirfd;		/* -1: a free slot */
	char name[NAME_MAX + 1];
} pending[PENDING_MAX] = { [0 ... PENDING_MAX - 1] = { .dirfd = -1 } };

static struct pending_temp *pending_add(int dirfd, const char *name)
{
	for (int i = 0; i < PENDING_MAX; i++) {
		if (pending[i].dirfd >= 0)
			continue;
		snprintf(pending[i].name, sizeof(pending[i].name), "%s", name);
		pending[i].dirfd = dirfd;
		return &pending[i];
	}
	return NULL;			/* not removed on a signal, as before */
}

static void pending_drop(struct pending_temp **slot)
{
	if (*slot)
		(*slot)->dirfd = -1;
	*slot = NULL;
}

void outfile_remove_pending(void)
{
	for (int i = 0; i < PENDING_MAX; i++)
		if (pending[i].dirfd >= 0)
			unlinkat(pending[i].dirfd, pending[i].name, 0);
}

static const char *name_of(const char *path)
{
	return strcmp(path, "-") == 0 ? "stdout" : path;
}

static struct outfile *outfile_new(const char *path, unsigned flags)
{
	struct outfile *o = calloc(1, sizeof(*o));

	if (!o)
		return NULL;
	o->fd = -1;
	o->dirfd = -1;
	o->flags = flags;
	o->path = strdup(path);
	if (!o->path) {
		free(o);
		return NULL;
	}
	return o;
}

static void outfile_free(struct outfile *o)
{
	pending_drop(&o->pending);
	if (o->fd >= 0)
		close(o->fd);
	if (o->dirfd >= 0)
		close(o->dirfd);
	free(o->path);
	free(o->base);
	free(o->tmp);
	free(o);
}

/* A duplicate of fd 1: the caller may then point fd 1 elsewhere (the
 * recorder gives its command stderr there, so it cannot mix with -o -). */
static int open_stdout(struct outfile *o, struct error *err)
{
	struct stat st;

	o->fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
	if (o->fd < 0)
		return error_set(err, "cannot write to stdout: %s (give an output file with -o FILE)",
				 strerror(errno));
	o->is_file = fstat(o->fd, &st) == 0 && S_ISREG(st.st_mode);
	o->published = true;
	return 0;
}

/* dirfd and base for path: "dir/name", "/name" or "name". */
static int split_path(struct outfile *o, struct error *err)
{
	const char *slash = strrchr(o->path, '/');
	const char *base = slash ? slash + 1 : o->path;
	char *dir;

	if (!*base || strcmp(base, ".") == 0 || strcmp(base, "..") == 0)
		return error_set(err, "cannot write %s: it names a directory (give a file name)",
				 o->path);
	if (strlen(base) > NAME_MAX)
		return error_set(err, "cannot create %s: %s (choose a shorter name)", o->path,
				 strerror(ENAMETOOLONG));
	dir = slash == o->path ? strdup("/") : slash ? strndup(o->path, slash - o->path)
			: strdup(".");
	o->base = strdup(base);
	if (!dir || !o->base) {
		free(dir);
		return error_set(err, "cannot create %s: out of memory", o->path);
	}
	o->dirfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (o->dirfd < 0)
		error_set(err, "cannot create %s: %s (check that the directory %s exists)",
			  o->path, strerror(errno), dir);
	free(dir);
	return o->dirfd < 0 ? -1 : 0;
}

/* A symlink that only we or root could have made is one the user meant to
 * follow (/dev/stdout); one made by someone else is not followed. */
static bool trusted_link(const struct stat *lst)
{
	return lst->st_uid == geteuid() || lst->st_uid == 0;
}

/* /dev/stdout, /dev/fd/N, /proc/self/fd/N: a link to an open file (even a
 * regular one) is written through, never replaced. */
static bool proc_link(const struct outfile *o)
{
	char target[8];
	ssize_t n = readlinkat(o->dirfd, o->base, target, sizeof(target));
	struct statfs fs;

	if (n >= 6 && memcmp(target, "/proc/", 6) == 0)
		return true;
	return fstatfs(o->dirfd, &fs) == 0 && fs.f_type == PROC_SUPER_MAGIC;
}

/* A FIFO, a character device, or a file behind a /proc link: written as it
 * is.  Non-blocking at first, so that a FIFO nobody reads fails at once. */
static int open_stream(struct outfile *o, bool follow, struct error *err)
{
	int flags = O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY | (follow ? 0 : O_NOFOLLOW);
	struct stat st;

	o->fd = openat(o->dirfd, o->base, flags);
	for (int waited = 0; o->fd < 0 && errno == ENXIO && waited < FIFO_READER_WAIT_MS;
	     waited += FIFO_READER_POLL_MS) {
		nanosleep(&(struct timespec){ 0, FIFO_READER_POLL_MS * 1000000L }, NULL);
		o->fd = openat(o->dirfd, o->base, flags);
	}
	if (o->fd < 0 && errno == ENXIO)
		return error_set(err, "cannot write %s: it is a FIFO and nothing reads it (start the reader first)",
				 o->path);
	if (o->fd < 0)
		return error_set(err, "cannot open %s: %s (choose another path with -o)", o->path,
				 strerror(errno));
	if (fstat(o->fd, &st) < 0 || !(S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode) ||
				       (follow && S_ISREG(st.st_mode))))
		return error_set(err, "cannot write %s: it changed while it was opened (try again)",
				 o->path);
	if (S_ISREG(st.st_mode) && ftruncate(o->fd, 0) < 0)
		return error_set(err, "cannot write %s: %s", o->path, strerror(errno));
	if (fcntl(o->fd, F_SETFL, fcntl(o->fd, F_GETFL) & ~O_NONBLOCK) < 0)
		return error_set(err, "cannot write %s: %s", o->path, strerror(errno));
	o->is_file = S_ISREG(st.st_mode);
	o->published = true;
	return 0;
}

static void random_suffix(char *s, size_t n)
{
	static const char chars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	unsigned char r[16];
	struct timespec ts;

	if (getrandom(r, n, GRND_NONBLOCK) != (ssize_t)n) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		for (size_t i = 0; i < n; i++)
			r[i] = (unsigned char)((ts.tv_nsec >> (i * 5)) ^ (getpid() >> i) ^ rand());
	}
	for (size_t i = 0; i < n; i++)
		s[i] = chars[r[i] % (sizeof(chars) - 1)];
	s[n] = '\0';
}

/* ".NAME.XXXXXX" next to the target, created exclusively: nothing that is
 * already there (a file, a planted symlink) is ever opened. */
static int create_temp(struct outfile *o, mode_t mode, struct error *err)
{
	size_t keep = strlen(o->base);
	char suffix[8];

	if (keep > NAME_MAX - 8)
		keep = NAME_MAX - 8;
	o->tmp = malloc(keep + 9);
	if (!o->tmp)
		return error_set(err, "cannot create %s: out of memory", o->path);
	for (int i = 0; i < TEMP_TRIES; i++) {
		random_suffix(suffix, 6);
		snprintf(o->tmp, keep + 9, ".%.*s.%s", (int)keep, o->base, suffix);
		o->pending = pending_add(o->dirfd, o->tmp);
		o->fd = openat(o->dirfd, o->tmp,
			       O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
		if (o->fd >= 0)
			break;
		pending_drop(&o->pending);	/* not ours: never removed */
		if (errno != EEXIST)
			break;
	}
	if (o->fd < 0) {
		error_set(err, "cannot create %s: %s (check that its directory is writable)",
			  o->path, strerror(errno));
		free(o->tmp);
		o->tmp = NULL;
		return -1;
	}
	o->is_file = true;
	return 0;
}

static int open_path(struct outfile *o, mode_t mode, struct error *err)
{
	struct stat lst, st;

	if (split_path(o, err) < 0)
		return -1;
	if (fstatat(o->dirfd, o->base, &lst, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno != ENOENT)
			return error_set(err, "cannot create %s: %s", o->path, strerror(errno));
		return create_temp(o, mode, err);
	}
	if (S_ISLNK(lst.st_mode) && trusted_link(&lst) &&
	    fstatat(o->dirfd, o->base, &st, 0) == 0) {
		if (S_ISDIR(st.st_mode))
			lst = st;
		else if (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode) ||
			 (S_ISREG(st.st_mode) && proc_link(o)))
			return open_stream(o, true, err);
	}
	if (S_ISDIR(lst.st_mode))
		return error_set(err, "cannot write %s: it is a directory (give a file name)",
				 o->path);
	if (S_ISFIFO(lst.st_mode) || S_ISCHR(lst.st_mode))
		return open_stream(o, false, err);
	if (S_ISBLK(lst.st_mode) || S_ISSOCK(lst.st_mode))
		return error_set(err, "cannot write %s: it is a %s, not a file, FIFO or character device (choose another path)",
				 o->path, S_ISBLK(lst.st_mode) ? "block device" : "socket");
	return create_temp(o, mode, err);	/* a file or a link: replaced */
}

struct outfile *outfile_open(const char *path, mode_t mode, unsigned flags, struct error *err)
{
	struct outfile *o;
	int ret;

	if (!path || !*path) {
		error_set(err, "empty output path (give a file name, or - for stdout)");
		return NULL;
	}
	o = outfile_new(path, flags);
	if (!o) {
		error_set(err, "cannot create %s: out of memory", path);
		return NULL;
	}
	ret = strcmp(path, "-") == 0 ? open_stdout(o, err) : open_path(o, mode, err);
	if (ret < 0) {
		outfile_abandon(o);
		return NULL;
	}
	return o;
}

int outfile_fd(const struct outfile *o)
{
	return o->fd;
}

const char *outfile_path(const struct outfile *o)
{
	return o->path;
}

const char *outfile_name(const struct outfile *o)
{
	return name_of(o->path);
}

bool outfile_is_file(const struct outfile *o)
{
	return o->is_file;
}

/* The target as it is now goes to NAME.old (what is there: a file or a
 * link, never what a link points to). */
static int keep_old(struct outfile *o, struct error *err)
{
	size_t len = strlen(o->base);
	char old[NAME_MAX + 1];
	struct stat st;

	if (fstatat(o->dirfd, o->base, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return 0;	/* nothing to keep */
	if (S_ISDIR(st.st_mode))
		return error_set(err, "cannot write %s: it is a directory now (give a file name)",
				 o->path);
	if (len + strlen(OLD_SUFFIX) > NAME_MAX)
		return error_set(err, "cannot keep the previous %s as %s" OLD_SUFFIX ": the name is too long (use --force to replace it)",
				 o->path, o->path);
	memcpy(old, o->base, len);
	memcpy(old + len, OLD_SUFFIX, sizeof(OLD_SUFFIX));
	if (renameat(o->dirfd, o->base, o->dirfd, old) < 0 && errno != ENOENT)
		return error_set(err, "cannot keep the previous %s as %s" OLD_SUFFIX ": %s (use --force to replace it)",
				 o->path, o->path, strerror(errno));
	return 0;
}

static int rename_error(struct outfile *o, struct error *err)
{
	return error_set(err, "cannot write %s: renaming the new file into place failed: %s",
			 o->path, strerror(errno));
}

/* Without replacing what is there (RENAME_NOREPLACE): when another run
 * put its file under the name meanwhile, that one goes to NAME.old too,
 * rather than vanish.  File systems without it get rename and .old. */
static int move_into_place(struct outfile *o, struct error *err)
{
	for (int i = 0; i < TEMP_TRIES; i++) {
		if (renameat2(o->dirfd, o->tmp, o->dirfd, o->base, RENAME_NOREPLACE) == 0)
			return 0;
		if (errno == EINVAL || errno == ENOSYS) {
			if (keep_old(o, err) < 0)
				return -1;
			return renameat(o->dirfd, o->tmp, o->dirfd, o->base) < 0 ?
				rename_error(o, err) : 0;
		}
		if (errno != EEXIST)
			return rename_error(o, err);
		if (keep_old(o, err) < 0)
			return -1;
	}
	return error_set(err, "cannot write %s: other programs keep creating it (try again)",
			 o->path);
}

int outfile_publish(struct outfile *o, struct error *err)
{
	if (o->published)
		return 0;
	/* a signal now leaves the temporary (or the published file) in place:
	 * never the target's name removed */
	pending_drop(&o->pending);
	if (o->flags & OUTFILE_FORCE) {
		if (renameat(o->dirfd, o->tmp, o->dirfd, o->base) < 0)
			return rename_error(o, err);
	} else if (move_into_place(o, err) < 0) {
		return -1;
	}
	o->published = true;
	free(o->tmp);
	o->tmp = NULL;
	return 0;
}

void outfile_set_mtime(struct outfile *o, uint64_t realtime_ns)
{
	struct timespec t[2] = {
		{ .tv_nsec = UTIME_OMIT },
		{ .tv_sec = (time_t)(realtime_ns / 1000000000u),
		  .tv_nsec = (long)(realtime_ns % 1000000000u) },
	};

	if (o->is_file && realtime_ns)
		futimens(o->fd, t);
}

int outfile_close(struct outfile *o, struct error *err)
{
	int ret = 0;

	if (close(o->fd) < 0 && errno != EINTR)
		ret = outfile_write_error(o, errno, err);
	o->fd = -1;
	if (ret == 0)
		ret = outfile_publish(o, err);
	if (ret < 0) {
		outfile_abandon(o);
		return -1;
	}
	outfile_free(o);
	return 0;
}

void outfile_abandon(struct outfile *o)
{
	if (!o)
		return;
	if (!o->published && o->tmp)
		unlinkat(o->dirfd, o->tmp, 0);
	outfile_free(o);
}

int outfile_path_write_error(const char *path, int errnum, struct error *err)
{
	const char *name = name_of(path);

	switch (errnum) {
	case EPIPE:
		return error_set(err, "cannot write %s: the reading end of the pipe was closed (keep the reader running to the end; nothing is wrong with the disk)",
				 name);
	case ENOSPC:
	case EDQUOT:
		return error_set(err, "cannot write %s: %s (free some space, or write elsewhere with -o)",
				 name, strerror(errnum));
	case EFBIG:
		return error_set(err, "cannot write %s: %s (the file system's or ulimit -f's size limit; write elsewhere with -o)",
				 name, strerror(errnum));
	default:
		return error_set(err, "cannot write %s: %s (check the device and its permissions)",
				 name, strerror(errnum));
	}
}

int outfile_write_error(const struct outfile *o, int errnum, struct error *err)
{
	return outfile_path_write_error(o->path, errnum, err);
}
