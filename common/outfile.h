/* outfile.h - every file the tools create (profile, perf.data, CSV).
 *
 * A path is never opened for writing as it stands: in a shared directory
 * another user may have planted a symlink there, and two runs writing the
 * same name would mix their bytes.  Instead:
 *
 *   "-"                stdout (a duplicate of fd 1, so the caller may point
 *                      fd 1 elsewhere afterwards);
 *   a FIFO or a character device (e.g. /dev/null), or a symlink to one
 *                      owned by us or root (/dev/stdout): opened as such.  A
 *                      FIFO is opened non-blocking first, so that one with no
 *                      reader is an error (after 2 s for a reader started just
 *                      before), never a hang; writes then block as usual;
 *   anything else      a new file under a temporary name in the target's
 *                      directory (".NAME.XXXXXX", O_CREAT|O_EXCL|O_NOFOLLOW,
 *                      with the caller's mode under the umask), renamed over
 *                      the target when published.  An existing target is
 *                      kept as NAME.old, as perf record does, unless
 *                      OUTFILE_FORCE.  A symlink not owned by us or root is
 *                      never followed: it is what gets replaced.
 *
 * Formats that are readable while being written (the native profile)
 * publish right after their header, so a killed writer leaves its profile
 * under the target name; the others publish when complete, so a failed
 * export never replaces the previous file.
 */
#ifndef SAMPLER_OUTFILE_H
#define SAMPLER_OUTFILE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "error.h"

enum outfile_flags {
	OUTFILE_FORCE = 1,		/* replace the target without keeping NAME.old */
};

struct outfile;

/* Open path as above; mode is the new file's (0666 or 0600; the umask
 * applies).  NULL with err set, naming the path and what to do. */
struct outfile *outfile_open(const char *path, mode_t mode, unsigned flags, struct error *err);

int outfile_fd(const struct outfile *o);

/* The path as given ("-" for stdout). */
const char *outfile_path(const struct outfile *o);

/* For messages: the path, or "stdout". */
const char *outfile_name(const struct outfile *o);

/* True when the output is a regular file (it can seek and be rewritten). */
bool outfile_is_file(const struct outfile *o);

/* Move the new file to the target's name (keeping the old one unless
 * forced).  Once only; a no-op for streams.  -1 with err set. */
int outfile_publish(struct outfile *o, struct error *err);

/* Set the modification time of a regular file output to realtime_ns (perf
 * shows it as "captured on").  Best effort. */
void outfile_set_mtime(struct outfile *o, uint64_t realtime_ns);

/* Publish (if not yet) and close; o is freed in any case.  -1 with err set
 * when closing failed (the data may be incomplete). */
int outfile_close(struct outfile *o, struct error *err);

/* Close and free; a file not yet published is removed, so the target stays
 * as it was.  NULL is fine. */
void outfile_abandon(struct outfile *o);

/* Remove every file not yet published, for a handler of a signal that
 * ends the process (async-signal-safe): an interrupted export leaves no
 * hidden temporary behind. */
void outfile_remove_pending(void);

/* The message for a failed write to o: errnum says whose fault it is (a
 * reader that went away is not a full disk).  Returns -1. */
int outfile_write_error(const struct outfile *o, int errnum, struct error *err);

/* The same for an output known only by name ("stdout" for "-"). */
int outfile_path_write_error(const char *path, int errnum, struct error *err);

#endif
