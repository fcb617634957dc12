"""External equipment data: `;`/`,` separated tables with `#` comments
(Lynsyn CSV exports, power-meter timelines) and the integral of a sampled
power timeline.
"""

from __future__ import annotations

import bisect
import math
from typing import IO, Sequence

from . import fileio
from .cli import SamplerError


class Table:
    """A delimited text table: header (lower-case names or None), rows."""

    def __init__(self, path: str, prog: str = "sampler-import") -> None:
        self.path = path
        self.prog = prog
        self.header: list[str] | None = None
        self.rows: list[list[str]] = []  # lists of stripped strings
        self.lines: list[int] = []  # source line number of each row
        with fileio.open_text_in(path, "meter CSV") as f:
            self._read(f)
        if not self.rows:
            raise SamplerError(
                "%s: no data rows (expected a header and one row per reading)" % path
            )

    def _read(self, f: IO[str]) -> None:
        sep = None
        progress = fileio.Progress(self.prog, "%s: lines read" % self.path)
        for number, line in enumerate(f, 1):
            if not number & 0xFFFF:
                progress.update(number)
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            if sep is None:
                sep = ";" if ";" in line else "," if "," in line else None
            cells = [c.strip() for c in (line.split(sep) if sep else line.split())]
            if self.header is None and not self.rows and not _numeric(cells[0]):
                self.header = [c.lower() for c in cells]
                continue
            width = (
                len(self.header) if self.header else len(self.rows[0]) if self.rows else len(cells)
            )
            if len(cells) != width:
                raise SamplerError(
                    "%s:%d: %d fields, expected %d (the file is damaged or mixes separators)"
                    % (self.path, number, len(cells), width)
                )
            self.rows.append(cells)
            self.lines.append(number)
        progress.done()

    def column(self, name: str) -> int | None:
        if self.header and name in self.header:
            return self.header.index(name)
        return None

    def floats(self, col: int, what: str) -> list[float]:
        """The column's values; a value that is not a finite number (inf,
        nan, 1e400: what a meter writes for overload or no data) is refused
        with its line."""
        out = []
        for cells, number in zip(self.rows, self.lines):
            try:
                v = float(cells[col])
            except ValueError:
                raise SamplerError(
                    "%s:%d: %s is not a number: %r" % (self.path, number, what, cells[col][:30])
                )
            if not math.isfinite(v):
                raise SamplerError(
                    "%s:%d: %s is not a finite number: %r (a meter's overload or no-data "
                    "value: remove the row or fix the export)"
                    % (self.path, number, what, cells[col][:30])
                )
            out.append(v)
        return out

    def check_power(self, watts: Sequence[float], what: str) -> None:
        """A power (or current times voltage) below 0 W is not a reading."""
        for w, number in zip(watts, self.lines):
            if w < 0:
                raise SamplerError(
                    "%s:%d: %s is %g W, below 0 (check the column, its sign and "
                    "--voltage)" % (self.path, number, what, w)
                )


def _numeric(text: str) -> bool:
    try:
        float(text)
        return True
    except ValueError:
        return False


def check_times(times: Sequence[float], path: str) -> None:
    for i in range(1, len(times)):
        if not times[i] >= times[i - 1]:
            raise SamplerError(
                "%s: time goes backwards at row %d (%g after %g; sort the file by time)"
                % (path, i + 1, times[i], times[i - 1])
            )


class Timeline:
    """A power timeline sampled at times t_i, linear between readings and
    held constant beyond the first and last one."""

    def __init__(self, times: Sequence[float], values: Sequence[float]) -> None:
        self.t = times
        self.v = values
        self.cum = [0.0]
        for i in range(1, len(times)):
            self.cum.append(
                self.cum[-1] + (values[i] + values[i - 1]) / 2 * (times[i] - times[i - 1])
            )

    def _antiderivative(self, x: float) -> float:
        t, v = self.t, self.v
        if x <= t[0]:
            return (x - t[0]) * v[0]
        if x >= t[-1]:
            return self.cum[-1] + (x - t[-1]) * v[-1]
        i = bisect.bisect_right(t, x) - 1
        dt = t[i + 1] - t[i]
        vx = v[i] + (v[i + 1] - v[i]) * (x - t[i]) / dt if dt > 0 else v[i]
        return self.cum[i] + (x - t[i]) * (v[i] + vx) / 2

    def integral(self, a: float, b: float) -> float:
        """Integral over [a, b]; NaN when [a, b] lies wholly outside the
        timeline (no reading covers it)."""
        if b < self.t[0] or a > self.t[-1]:
            return math.nan
        return self._antiderivative(b) - self._antiderivative(a)

    def total(self) -> float:
        return self.cum[-1]
