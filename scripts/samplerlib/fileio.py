"""Plain and bzip2 files, and progress on a terminal.

Input is bzip2 when its content says so (magic "BZh"), whatever its name;
output is bzip2 when its name ends in ".bz2".
"""

import bz2
import io
import os
import sys
import time

from .cli import SamplerError

BZ2_MAGIC = b"BZh"


def check_readable(path):
    if not os.path.exists(path):
        raise SamplerError("%s: no such file (check the path)" % path)
    if os.path.isdir(path):
        raise SamplerError("%s: is a directory (give a profile file)" % path)
    if not os.access(path, os.R_OK):
        raise SamplerError("%s: permission denied (make it readable)" % path)
    if os.path.getsize(path) == 0:
        raise SamplerError("%s: empty file (the run wrote nothing; record it again)" % path)


def head_bytes(path, n=64):
    """The first n bytes of the content (decompressed when bzip2)."""
    with open(path, "rb") as f:
        raw = f.read(4096)
    if raw.startswith(BZ2_MAGIC):
        try:
            return bz2.BZ2Decompressor().decompress(raw)[:n]
        except (OSError, EOFError, ValueError):
            return b""
    return raw[:n]


def open_text_in(path):
    """Open a text file, plain or bzip2, for reading."""
    check_readable(path)
    with open(path, "rb") as f:
        magic = f.read(3)
    if magic == BZ2_MAGIC:
        return io.TextIOWrapper(bz2.open(path, "rb"), encoding="utf-8", errors="replace", newline="")
    return open(path, "r", encoding="utf-8", errors="replace", newline="")


class Output:
    """A text output: stdout for None or "-", bzip2 for names ending .bz2.

    Written to a temporary name and renamed at close, so a failed run never
    leaves half a file under the requested name."""

    def __init__(self, path):
        self.path = path if path not in (None, "-") else None
        if self.path is None:
            self.f = sys.stdout
            return
        self.tmp = "%s.tmp%d" % (self.path, os.getpid())
        try:
            if self.path.endswith(".bz2"):
                self.f = io.TextIOWrapper(bz2.open(self.tmp, "wb"), encoding="utf-8", newline="")
            else:
                self.f = open(self.tmp, "w", encoding="utf-8", newline="")
        except OSError as e:
            raise SamplerError("cannot write %s: %s (check the directory exists and is writable)"
                               % (self.path, e.strerror))

    def write(self, text):
        self.f.write(text)

    def close(self, ok=True):
        if self.path is None:
            self.f.flush()
            return
        self.f.close()
        if ok:
            os.replace(self.tmp, self.path)
        else:
            os.unlink(self.tmp)

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        self.close(ok=exc_type is None)
        return False


class Progress:
    """Progress on stderr, only when stderr is a terminal, at most 4 Hz."""

    def __init__(self, prog, what):
        self.enabled = sys.stderr.isatty()
        self.prog = prog
        self.what = what
        self.last = 0.0
        self.shown = False

    def update(self, count):
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self.last < 0.25:
            return
        self.last = now
        self.shown = True
        sys.stderr.write("\r%s: %s: %d" % (self.prog, self.what, count))
        sys.stderr.flush()

    def done(self):
        if self.shown:
            sys.stderr.write("\r\033[K")
            sys.stderr.flush()
