"""Plain and bzip2 files, pipes, and progress on a terminal.

Input is bzip2 when its content says so (magic "BZh"), whatever its name;
output is bzip2 when its name ends in ".bz2".  Decompression is bounded:
no reader here holds more than a block of decompressed data, whatever the
compression ratio (a few KB of bzip2 can hold GBs of zeros).
"""

from __future__ import annotations

import bz2
import errno
import io
import os
import shutil
import stat
import sys
import tempfile
import time
from typing import IO, Any, BinaryIO

from .cli import SamplerError

BZ2_MAGIC = b"BZh"
HEAD_MAX_COMPRESSED = 2 << 20  # bzip2 blocks are < 1 MB compressed


def _kind(mode: int) -> str | None:
    """What a non-regular file is, in words, or None for a regular file/FIFO."""
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return None


def check_readable(path: str, what: str = "profile") -> None:
    """One clear error line unless path is a readable input: a non-empty
    regular file or a pipe ("-" is standard input).  what names the kind
    of file expected there ("profile", "meter CSV"), for the advice."""
    if path == "-":
        return
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise SamplerError("%s: no such file (check the path)" % path)
    except OSError as e:
        raise SamplerError(
            "%s: cannot access: %s (check the path and its permissions)" % (path, e.strerror)
        )
    if stat.S_ISDIR(st.st_mode):
        raise SamplerError("%s: is a directory (give a %s file)" % (path, what))
    kind = _kind(st.st_mode)
    if kind:
        raise SamplerError(
            "%s: is %s, not a %s (give a %s file or a pipe)" % (path, kind, what, what)
        )
    if not os.access(path, os.R_OK):
        raise SamplerError("%s: permission denied (make it readable)" % path)
    if stat.S_ISREG(st.st_mode) and st.st_size == 0:
        raise SamplerError("%s: empty file (the run wrote nothing; record it again)" % path)


def is_pipe(path: str) -> bool:
    """True for "-" and named pipes: content that can be read only once."""
    if path == "-":
        return True
    try:
        return stat.S_ISFIFO(os.stat(path).st_mode)
    except OSError:
        return False


class Spool:
    """A pipe's content copied to a private temporary file, so that it can
    be read again (the exporter reads a profile twice) and hashed for the
    cache.  Use as a context manager; the file is removed at exit."""

    def __init__(self, path: str) -> None:
        self.source = path
        self.dir = tempfile.mkdtemp(prefix="sampler-pipe.")
        self.path = os.path.join(self.dir, "input")
        try:
            src = sys.stdin.buffer if path == "-" else open(path, "rb")
            with open(self.path, "wb") as out:
                shutil.copyfileobj(src, out, 1 << 20)
            if src is not sys.stdin.buffer:
                src.close()
        except BaseException:
            self.close()
            raise
        if os.path.getsize(self.path) == 0:
            self.close()
            raise SamplerError(
                "%s: the pipe gave no data (check what writes into it)"
                % ("standard input" if path == "-" else path)
            )

    def close(self) -> None:
        shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self) -> Spool:
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        self.close()


def head_bytes(path: str, n: int = 64) -> bytes:
    """The first n bytes of the content (decompressed when bzip2), reading
    and decompressing no more than it takes to get them."""
    with open(path, "rb") as f:
        raw = f.read(4096)
        if not raw.startswith(BZ2_MAGIC):
            return raw[:n]
        dec = bz2.BZ2Decompressor()
        out = b""
        used = len(raw)
        try:
            while len(out) < n and not dec.eof:
                out += dec.decompress(raw, max_length=n - len(out))
                raw = b""
                if dec.needs_input:
                    raw = f.read(65536)
                    used += len(raw)
                    if not raw or used > HEAD_MAX_COMPRESSED:
                        break
        except (OSError, EOFError, ValueError):
            pass
        return out[:n]


def open_bytes_in(path: str, what: str = "profile") -> IO[bytes]:
    """Open a file (a what: check_readable), plain or bzip2, for reading
    bytes (decompressed in bounded steps)."""
    check_readable(path, what)
    with open(path, "rb") as f:
        magic = f.read(3)
    if magic == BZ2_MAGIC:
        return bz2.open(path, "rb")
    return open(path, "rb")


def open_text_in(path: str, what: str = "profile") -> io.TextIOWrapper:
    """Open a text file (a what), plain or bzip2, for reading (any byte is
    kept: undecodable ones as surrogate escapes)."""
    return io.TextIOWrapper(
        open_bytes_in(path, what), encoding="utf-8", errors="surrogateescape", newline=""
    )


def new_file_beside(path: str) -> tuple[BinaryIO, str]:
    """(binary file object, its name): a new file in path's directory, made
    with O_CREAT|O_EXCL|O_NOFOLLOW under an unpredictable name (a link
    planted by another user is never followed) and the mode a new file
    gets under the umask.  The caller renames it over path, or removes it."""
    fd, tmp = tempfile.mkstemp(
        dir=os.path.dirname(path) or ".", prefix=".%s." % os.path.basename(path)
    )
    umask = os.umask(0o22)
    os.umask(umask)
    os.fchmod(fd, 0o666 & ~umask)
    return os.fdopen(fd, "wb"), tmp


def cannot_write(path: str, e: OSError) -> SamplerError:
    """The one line for an output that could not be written (the C tools'
    words where they have the same case)."""
    if e.errno == errno.EISDIR:
        return SamplerError("cannot write %s: it is a directory (give a file name)" % path)
    if e.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG):
        fix = "free space on its file system or write elsewhere"
    else:
        fix = "check the directory exists and is writable"
    return SamplerError("cannot write %s: %s (%s)" % (path, e.strerror or e, fix))


def is_device(path: str) -> bool:
    """A character device or FIFO (-o /dev/null, -o >(...)): written to,
    not replaced by a new file (that would put a file in /dev)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return stat.S_ISCHR(mode) or stat.S_ISFIFO(mode)


def remove_quietly(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


class Output:
    """A text output: stdout for None or "-", bzip2 for names ending .bz2.

    Written to a new temporary file (new_file_beside) and renamed at close,
    so a failed run never leaves half a file under the requested name.  Text
    holding bytes that are not UTF-8 (surrogate escapes) is written as those
    bytes."""

    def __init__(self, path: str | None) -> None:
        self.path = path if path not in (None, "-") else None
        self.f: Any  # a text file (sys.stdout may be one of pytest's)
        self.raw: BinaryIO
        self.tmp: str | None
        if self.path is None:
            self.f = sys.stdout
            try:
                self.f.reconfigure(errors="surrogateescape")
            except (AttributeError, ValueError):
                pass
            return
        try:
            if is_device(self.path):  # /dev/null, a FIFO: written in place, never replaced
                self.raw, self.tmp = open(self.path, "wb"), None
            else:
                self.raw, self.tmp = new_file_beside(self.path)
        except OSError as e:
            raise cannot_write(self.path, e)
        out = bz2.BZ2File(self.raw, "wb") if self.path.endswith(".bz2") else self.raw
        self.f = io.TextIOWrapper(out, encoding="utf-8", errors="surrogateescape", newline="")

    def write(self, text: str) -> None:
        try:
            self.f.write(text)
        except OSError as e:
            raise cannot_write(self.path or "the standard output", e)

    def close(self, ok: bool = True) -> None:
        """Rename the file over path (ok), else remove it: on every path,
        a failed write included, no temporary stays behind."""
        if self.path is None:
            try:
                self.f.flush()
            except OSError as e:
                raise cannot_write("the standard output", e)
            return
        renamed = False
        try:
            try:
                self.f.close()  # a full disk fails here, at the last flush
            finally:
                self.raw.close()  # (a BZ2File leaves the file it was given open)
            if ok and self.tmp:
                os.replace(self.tmp, self.path)
            renamed = ok
        except OSError as e:
            if ok:
                raise cannot_write(self.path, e)
            # (not ok: the error that brought us here is the one to tell)
        finally:
            if not renamed and self.tmp:
                remove_quietly(self.tmp)

    def __enter__(self) -> Output:
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        self.close(ok=exc_type is None)


class Progress:
    """Progress of long work on stderr, only when stderr is a terminal:
    from one second after the start, at most 4 times a second."""

    def __init__(self, prog: str, what: str, total: int | None = None) -> None:
        self.enabled = sys.stderr.isatty()
        self.prog = prog
        self.what = what
        self.total = total
        self.start = time.monotonic()
        self.last = self.start + 0.75
        self.shown = False

    def update(self, count: int) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self.last < 0.25:
            return
        self.last = now
        self.shown = True
        if self.total:
            text = "%s: %d of %d (%.0f%%)" % (
                self.what,
                count,
                self.total,
                100.0 * count / self.total,
            )
        else:
            text = "%s: %d" % (self.what, count)
        sys.stderr.write("\r%s: %s" % (self.prog, text))
        sys.stderr.flush()

    def done(self) -> None:
        if self.shown:
            sys.stderr.write("\r\033[K")
            sys.stderr.flush()
