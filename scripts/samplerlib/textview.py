"""Contract 1: the text view of a profile, one record per line.

    sample time=NS nthreads=2 values=1.5,nan

`sampler-profile dump FILE` prints it; `sampler-profile build OUT` reads it
and writes a real profile.  This module only formats and parses lines and
runs those two commands; the binary format stays in C.
"""

from __future__ import annotations

import os
import re
import subprocess
from typing import IO, Dict, Iterable, Iterator, Tuple, Union

from . import fileio, tools
from .escape import escape_text, to_bytes, to_text
from .cli import SamplerError

# The escape rule of the text form (docs/FORMAT.md): the one rule of every
# text output (escape.py) plus the separators space, '%', '=', ',' and '"'.
# Text is handled as str decoded from UTF-8 with errors="surrogateescape",
# so any byte round-trips.
TEXT_FORM_SEPARATORS = ' %=,"'
_UNESCAPE_RE = re.compile(rb"%([0-9A-Fa-f]{2})")

# A line's fields: a dict, or (key, value) pairs in order.
Fields = Union[Dict[str, object], Iterable[Tuple[str, object]]]


def escape(value: object) -> str:
    """The text form of one value: a str without blanks, commas or '='."""
    return escape_text(value, TEXT_FORM_SEPARATORS)


def unescape(value: str | bytes) -> str:
    """Undo escape(): str or bytes in, str out (bytes >= 0x80 kept)."""
    data = to_bytes(value)
    if b"%" in data:
        data = _UNESCAPE_RE.sub(lambda m: bytes([int(m.group(1), 16)]), data)
    return to_text(data)


def parse_fields(words: Iterable[str]) -> dict[str, str]:
    """["k=v", ...] -> {k: unescaped v}."""
    fields = {}
    for word in words:
        key, sep, value = word.partition("=")
        if sep:
            fields[key] = unescape(value)
    return fields


def split_words(line: str) -> list[str]:
    """A text-view line's words: escaped values hold no blank, so the
    words are separated by single spaces (str.split() would also cut at
    Unicode blanks such as U+00A0 inside a value)."""
    return [w for w in line.rstrip("\r\n").split(" ") if w]


def parse_line(line: str) -> tuple[str | None, dict[str, str]]:
    """ "type k=v ..." -> (type, {k: v}) with values unescaped."""
    words = split_words(line)
    if not words:
        return None, {}
    return words[0], parse_fields(words[1:])


def format_line(kind: str, fields: Fields) -> str:
    """(type, [(k, v), ...] or dict) -> "type k=v ..." (values escaped)."""
    items = fields.items() if isinstance(fields, dict) else fields
    return " ".join([kind] + ["%s=%s" % (k, escape(v)) for k, v in items]) + "\n"


def format_number(value: float) -> str:
    """A float as the text view writes it: shortest exact form, nan for NaN."""
    if value != value:
        return "nan"
    if value == int(value) and abs(value) < 1e15:
        return "%d" % value
    return repr(float(value))


def dump(path: str) -> Iterator[str]:
    """Yield the lines of `sampler-profile dump path` (without the final
    `truncated` line; a truncated profile is read up to its last good record)."""
    proc = tools.start("sampler-profile", ["dump", path])
    assert proc.stdout is not None  # (a pipe: tools.start's default)
    for raw in proc.stdout:
        line = to_text(raw)
        if line.startswith("truncated "):
            continue
        yield line
    tools.check_finished(proc, "sampler-profile dump", ok=(0, 2))


class Builder:
    """Pipe text-view lines into `sampler-profile build [--format F] OUT`.

    The profile is built under a temporary name (same suffix, so .bz2 still
    compresses) and renamed by finish(); abort() leaves nothing behind."""

    def __init__(self, out: str, fmt: str | None = None) -> None:
        self.out = out
        d, base = os.path.split(out)
        self.tmp = os.path.join(
            d, ".%s.tmp%d%s" % (base, os.getpid(), ".bz2" if out.endswith(".bz2") else "")
        )
        args = ["build"] + (["--format", fmt] if fmt else []) + [self.tmp]
        self.proc = tools.start(
            "sampler-profile", args, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL
        )
        assert self.proc.stdin is not None
        self.pipe: IO[bytes] = self.proc.stdin

    def write(self, line: str) -> None:
        try:
            self.pipe.write(to_bytes(line))
        except BrokenPipeError:
            self.finish()  # reports the builder's own error line
            raise SamplerError("sampler-profile build stopped reading its input")

    def finish(self) -> None:
        try:
            self.pipe.close()
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
            raise fileio.cannot_write(self.out, e)

    def abort(self) -> None:
        try:
            self.proc.kill()
            self.proc.wait()
        except OSError:
            pass
        self._remove()

    def _remove(self) -> None:
        try:
            os.unlink(self.tmp)
        except OSError:
            pass
