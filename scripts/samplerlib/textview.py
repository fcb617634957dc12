"""Contract 1: the text view of a profile, one record per line.

    sample time=NS nthreads=2 values=1.5,nan

`sampler-profile dump FILE` prints it; `sampler-profile build OUT` reads it
and writes a real profile.  This module only formats and parses lines and
runs those two commands; the binary format stays in C.
"""

import os
import re
import subprocess

from . import tools
from .cli import SamplerError

_ESCAPES = {" ": "%20", "%": "%25", "\n": "%0A", "=": "%3D", ",": "%2C", "\t": "%09", "\r": "%0D"}
_ESCAPE_RE = re.compile("[ %\n=,\t\r]")
_UNESCAPE_RE = re.compile("%([0-9A-Fa-f]{2})")


def escape(value):
    return _ESCAPE_RE.sub(lambda m: _ESCAPES[m.group(0)], str(value))


def unescape(value):
    if "%" not in value:
        return value
    return _UNESCAPE_RE.sub(lambda m: chr(int(m.group(1), 16)), value)


def parse_fields(words):
    """["k=v", ...] -> {k: unescaped v}."""
    fields = {}
    for word in words:
        key, sep, value = word.partition("=")
        if sep:
            fields[key] = unescape(value)
    return fields


def parse_line(line):
    """"type k=v ..." -> (type, {k: v}) with values unescaped."""
    words = line.split()
    if not words:
        return None, {}
    return words[0], parse_fields(words[1:])


def format_line(kind, fields):
    """(type, [(k, v), ...] or dict) -> "type k=v ..." (values escaped)."""
    items = fields.items() if isinstance(fields, dict) else fields
    return " ".join([kind] + ["%s=%s" % (k, escape(v)) for k, v in items]) + "\n"


def format_number(value):
    """A float as the text view writes it: shortest exact form, nan for NaN."""
    if value != value:
        return "nan"
    if value == int(value) and abs(value) < 1e15:
        return "%d" % value
    return repr(float(value))


def dump(path):
    """Yield the lines of `sampler-profile dump path` (without the final
    `truncated` line; a truncated profile is read up to its last good record)."""
    proc = tools.start("sampler-profile", ["dump", path])
    for raw in proc.stdout:
        line = raw.decode("utf-8", "replace")
        if line.startswith("truncated "):
            continue
        yield line
    tools.check_finished(proc, "sampler-profile dump", ok=(0, 2))


class Builder:
    """Pipe text-view lines into `sampler-profile build [--format F] OUT`.

    The profile is built under a temporary name (same suffix, so .bz2 still
    compresses) and renamed by finish(); abort() leaves nothing behind."""

    def __init__(self, out, fmt=None):
        self.out = out
        d, base = os.path.split(out)
        self.tmp = os.path.join(d, ".%s.tmp%d%s" % (base, os.getpid(), ".bz2" if out.endswith(".bz2") else ""))
        args = ["build"] + (["--format", fmt] if fmt else []) + [self.tmp]
        self.proc = tools.start("sampler-profile", args, stdin=subprocess.PIPE,
                                stdout=subprocess.DEVNULL)

    def write(self, line):
        try:
            self.proc.stdin.write(line.encode("utf-8"))
        except BrokenPipeError:
            self.finish()  # reports the builder's own error line
            raise SamplerError("sampler-profile build stopped reading its input")

    def finish(self):
        try:
            self.proc.stdin.close()
        except BrokenPipeError:
            pass
        try:
            tools.check_finished(self.proc, "sampler-profile build")
        except SamplerError:
            self._remove()
            raise
        try:
            os.replace(self.tmp, self.out)
        except OSError as e:
            self._remove()
            raise SamplerError("cannot write %s: %s (check the directory is writable)" % (self.out, e.strerror))

    def abort(self):
        try:
            self.proc.kill()
            self.proc.wait()
        except OSError:
            pass
        self._remove()

    def _remove(self):
        try:
            os.unlink(self.tmp)
        except OSError:
            pass
