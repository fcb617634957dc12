"""Contract 2: a profile read through `sampler-export --format csv --symbols`.

    # sampler csv v2
    # host hostname=.. realtime_ns=.. monotonic_ns=.. start_ns=.. ...
    # channel index=0 name=package-0 source=rapl unit=uJ scale=1e-06 kind=energy scope=sample
    # process pid=.. ppid=.. comm=.. argv=..
    time_ns,pid,tid,kind,pc,cpu_delta_ns,wall_delta_ns,<channel>...[,dso,symbol]
    ...
    # stats wall=.. samples=.. thread_samples=.. totals=..

kind is `sample` for a thread-sample, `cpu` for where a clock sample found
a thread running (read as `exit`), and `exit` for the tail a thread ran
after its last sample (CPU time and counters only).  Version 1 has no kind
column: every row is a thread-sample.  Names and values are escaped by the
one rule of textview (no comma, blank or '=' inside a field), so a row is
split at every comma.

A path may name a profile (either format, plain or bzip2: the exporter is
run on it) or such a CSV file itself (plain or bzip2: read directly).

Rows are read in blocks of a few MB into numpy record arrays (numpy's C
parser; one block in memory at a time), in a thread of their own so that
reading, decompressing or the exporter overlap the aggregation.
"""

from __future__ import annotations

import io
import os
import queue
import subprocess
import sys
import threading
from typing import Any, Container, Iterator, Mapping, Sequence

import numpy as np

from . import fileio, tools
from .cli import SamplerError, warn
from .fileio import Progress
from .textview import parse_fields, split_words, to_text, unescape

MAGICS = {"# sampler csv v1": 1, "# sampler csv v2": 2}
FIXED = {
    1: ("time_ns", "pid", "tid", "pc", "cpu_delta_ns", "wall_delta_ns"),
    2: ("time_ns", "pid", "tid", "kind", "pc", "cpu_delta_ns", "wall_delta_ns"),
}
ENERGY_LIKE = ("energy", "power")  # channels that give energy per function
READINGS = ("current", "voltage")  # channels reported as mean readings
BLOCK = 4 << 20  # bytes of CSV text parsed at once
LINE_MAX = 16 << 20  # a longer line is damage, not data
NAME_WIDTH = 64  # first guess of the dso/symbol width (grows)
STACK_WIDTH = 256  # and of the stack column's
_TYPES = {
    "time_ns": "i8",
    "pid": "i8",
    "tid": "i8",
    "kind": "S8",
    "pc": "S24",
    "cpu_delta_ns": "f8",
    "wall_delta_ns": "f8",
}


def _ms(text: str | None) -> float | None:
    try:
        return float(text) if text is not None else None
    except ValueError:
        return None


class Channel:
    def __init__(self, fields: Mapping[str, str], path: str) -> None:
        try:
            self.index = int(fields.get("index", -1))
            self.name = fields["name"]
            self.scale = float(fields.get("scale", "1") or 1)
        except (KeyError, ValueError):
            raise SamplerError(
                "%s: bad channel line (re-export it with a matching sampler-export)" % path
            )
        self.source = fields.get("source", "")
        self.unit = fields.get("unit", "")
        self.kind = fields.get("kind", "")
        self.scope = fields.get("scope", "sample")
        # the meter's timing as its plug-in was told it (scpi's update_ms=,
        # delay_ms=), None when not declared
        self.update_ms = _ms(fields.get("update_ms"))
        self.delay_ms = _ms(fields.get("delay_ms"))
        self.column: int | None = None  # index in the row
        self.field: Any = None  # field name in the record arrays
        # a power channel whose cells hold each row's energy (W s), by the
        # exporter's rule (its `# meter` line), not the readings
        self.energy_cells = False
        # the record field of its model variance (the exporter's
        # `<name>:var` column, docs/ENERGY.md), None when absent
        self.var_field: Any = None

    @property
    def si_unit(self) -> str:
        return {"energy": "J", "power": "W", "current": "A", "voltage": "V"}.get(self.kind, "")


class Profile:
    """Header facts of one profile and an iterator over its rows.

    blocks() yields record arrays of rows (fields time_ns, pid, tid, kind,
    pc, cpu_delta_ns, wall_delta_ns, c0, c1, ... per channel, dso, symbol;
    kind is b"sample" or b"exit"; empty cells are NaN; with stacks=True also
    stack, of profiles recorded with -g: frames joined by ';', outermost
    first, %-escaped; has_stacks says whether the profile has them).  After
    it is exhausted, stats holds the `# stats` fields (or {})."""

    def __init__(
        self, path: str, symbols: bool = True, name: str | None = None, stacks: bool = False
    ) -> None:
        self.path = name or path
        self.host: dict[str, str] = {}
        self.channels: list[Channel] = []
        self.processes: dict[int, dict[str, str]] = {}
        self.threads: dict[tuple[int, int], str] = {}  # (pid, tid) -> last name
        self.stats: dict[str, str] = {}
        self.header = None
        self.version = 0  # of the CSV (MAGICS), once the head is read
        self.col: dict[str, int] = {}
        self.dso_col: Any = None
        self.symbol_col: Any = None
        self.stack_col: int | None = None
        self._want_stacks = stacks
        self._proc: subprocess.Popen[bytes] | None = None
        self._f: Any  # the CSV's bytes: a file or the exporter's pipe
        self._line = 0
        self.truncated = False
        fileio.check_readable(path)
        head = fileio.head_bytes(path, 17)
        if head.startswith(b"# sampler csv v"):
            self._f = fileio.open_bytes_in(path)
        else:
            args = ["--format", "csv"] + (["--symbols"] if symbols else []) + [path, "-o", "-"]
            self._proc = tools.start("sampler-export", args)
            self._f = self._proc.stdout
        self._read_head()

    def _bad(self, why):
        self._close_quietly()
        raise SamplerError("%s: %s" % (self.path, why))

    def _readline(self):
        line = self._f.readline(LINE_MAX + 1)
        if len(line) > LINE_MAX:
            self._bad(
                "line %d is longer than %d MiB (the file is damaged)"
                % (self._line + 1, LINE_MAX >> 20)
            )
        if line:
            self._line += 1
        return line

    def _read_head(self):
        first = self._readline()
        magic = to_text(first).rstrip("\r\n")
        self.version = MAGICS.get(magic)
        if self.version is None:
            self._finish_export()
            self._bad(
                "not a sampler profile or sampler CSV (first line %r; expected %r)"
                % (magic[:40], "# sampler csv v2")
            )
        while True:
            line = self._readline()
            if not line:
                self._finish_export()
                self._bad("no header row (the file is cut short; export or record it again)")
            text = to_text(line).rstrip("\r\n")
            if text.startswith("#"):
                self._comment(text)
                continue
            if text:
                self._set_header(text.split(","))
                return

    def _comment(self, line):
        words = split_words(line[1:])
        if not words:
            return
        fields = parse_fields(words[1:])
        if words[0] == "host":
            self.host = fields
        elif words[0] == "channel":
            self.channels.append(Channel(fields, self.path))
        elif words[0] == "process":
            try:
                self.processes[int(fields["pid"])] = fields
            except (KeyError, ValueError):
                self._bad("bad process line %r" % line[:60])
        elif words[0] == "thread":  # a thread renamed from its process's name
            try:
                self.threads[(int(fields["pid"]), int(fields["tid"]))] = fields["comm"]
            except (KeyError, ValueError):
                self._bad("bad thread line %r" % line[:60])
        elif words[0] == "stats":
            self.stats = fields
        elif words[0] == "meter":  # the energy estimate's (energy.py)
            self.meters = getattr(self, "meters", []) + [fields]
            for ch in self.channels:  # a power channel's cells may hold energy
                if str(ch.index) == fields.get("index"):
                    ch.energy_cells = fields.get("cells") == "energy"

    def _set_header(self, row):
        fixed = FIXED[self.version]
        if tuple(row[: len(fixed)]) != fixed:
            self._bad(
                "wrong columns %r (expected %s,...)"
                % (",".join(row[: len(fixed)])[:60], ",".join(fixed))
            )
        row = [unescape(c) for c in row]  # names are %-escaped like the comments
        self.header = row
        self.col = {name: i for i, name in enumerate(row)}
        for k, ch in enumerate(self.channels):
            if ch.name not in self.col:
                self._bad(
                    "channel %r has no column (the header and the channel lines disagree)"
                    % ch.name
                )
            ch.column = self.col[ch.name]
            ch.field = "c%d" % k
            if ch.name + ":var" in self.col:
                ch.var_field = "v%d" % k
        self.dso_col = self.col.get("dso")
        self.symbol_col = self.col.get("symbol")
        self.stack_col = self.col.get("stack")
        self._names = {}
        for i, name in enumerate(row):
            if i < len(fixed):
                self._names[i] = name
            elif i in (self.dso_col, self.symbol_col, self.stack_col):
                self._names[i] = name
        for ch in self.channels:
            self._names[ch.column] = ch.field
            if ch.var_field is not None:
                self._names[self.col[ch.name + ":var"]] = ch.var_field
        # The stack column is parsed only when asked for: it is long.
        self._usecols = [i for i in range(len(row)) if i != self.stack_col or self._want_stacks]
        self._width = NAME_WIDTH
        self._stack_width = STACK_WIDTH
        self._dtype = self._make_dtype()

    @property
    def has_stacks(self) -> bool:
        return self.stack_col is not None

    def stack_text(self, value: Any) -> str:
        """The frames, joined by ';', of a row's stack field."""
        return unescape(value)

    def _make_dtype(self):
        fields = []
        for i in self._usecols:
            name = self._names.get(i, "x%d" % i)
            if name in _TYPES:
                fields.append((name, _TYPES[name]))
            elif name in ("dso", "symbol"):
                fields.append((name, "S%d" % self._width))
            elif name == "stack":
                fields.append((name, "S%d" % self._stack_width))
            else:
                fields.append((name, "f8"))
        return np.dtype(fields)

    def channels_of(self, kinds: Container[str]) -> list[Channel]:
        return [ch for ch in self.channels if ch.kind in kinds]

    @property
    def has_kind(self) -> bool:
        return self.version >= 2

    whole_samples = False  # a block may end inside a sample

    @property
    def exit_kind(self) -> Any:
        """The kind of exit rows; None when rows have no kind (v1)."""
        return b"exit" if self.version >= 2 else None

    @property
    def key_fields(self) -> tuple[str, ...]:
        """The fields that name a row's place, after pid and tid."""
        if self.dso_col is not None and self.symbol_col is not None:
            return ("dso", "symbol")
        return ("pc",)

    def key_names(self, tail: Sequence[Any]) -> tuple[str, str]:
        """(dso, symbol) of a key's tail (key_fields values)."""
        if len(tail) == 2:
            return unescape(tail[0]), unescape(tail[1])
        return "[unknown]", unescape(tail[0])

    def blocks(self, progress: Progress | None = None) -> Iterator[np.ndarray]:
        """Yield record arrays of consecutive rows, in file order."""
        carry = b""
        rows = 0
        reader = _read_ahead(self._f, BLOCK)
        ok = False
        try:
            for chunk in reader:
                data = carry + chunk
                cut = data.rfind(b"\n") + 1
                if cut == 0:
                    if len(data) > LINE_MAX:
                        self._bad(
                            "line %d is longer than %d MiB (the file is damaged)"
                            % (self._line + 1, LINE_MAX >> 20)
                        )
                    carry = data
                    continue
                data, carry = data[:cut], data[cut:]
                arr = self._parse(data)
                if arr is not None and len(arr):
                    rows += len(arr)
                    if progress is not None:
                        progress.update(rows)
                    yield arr
            if carry:
                arr = self._parse(carry + b"\n")
                if arr is not None and len(arr):
                    yield arr
            ok = True
        finally:
            reader.close()
            if ok:
                self._finish_export()
            else:
                self._close_quietly()
            self._f.close()

    def _parse(self, data):
        """Rows of data (whole lines) as a record array; comment lines are
        taken in; empty cells become NaN."""
        first_line = self._line + 1
        text = data
        if text.startswith(b"#") or b"\n#" in text:
            text = self._take_comments(text)
        # (the dso and symbol columns are never empty: a last empty cell
        # is possible only without them)
        if b",," in text or (self.dso_col is None and (b",\n" in text or b",\r" in text)):
            text = text.replace(b",,", b",nan,").replace(b",,", b",nan,")
            text = text.replace(b",\n", b",nan\n").replace(b",\r", b",nan\r")
        if len(text) <= 1 and not text.strip():
            return None
        while True:
            try:
                arr = np.loadtxt(
                    io.BytesIO(text),
                    dtype=self._dtype,
                    delimiter=",",
                    comments=None,
                    encoding="latin-1",
                    ndmin=1,
                    usecols=self._usecols,
                )
            except ValueError:
                self._diagnose(data, first_line)
                raise
            cut = self._names_cut(arr)
            if not cut:
                self._check_kinds(arr, first_line)
                self._line += len(arr)  # (+ the comment lines, counted as taken)
                return arr
            # a longer name or stack than any so far: parse again, wider
            if "stack" in cut:
                self._stack_width *= 4
            if cut - {"stack"}:
                self._width *= 4
            self._dtype = self._make_dtype()

    def _check_kinds(self, arr, first_line):
        if self.version < 2:
            return
        bad = np.flatnonzero(
            (arr["kind"] != b"sample") & (arr["kind"] != b"exit") & (arr["kind"] != b"cpu")
        )
        if len(bad):
            self._bad(
                "line %d: kind %r (expected sample, exit or cpu; the file is damaged)"
                % (first_line + bad[0], to_text(arr["kind"][bad[0]]))
            )
        # cpu rows (CPU time where a clock sample found a thread, no wall
        # interval, no energy) are summed as exit rows are
        arr["kind"][arr["kind"] == b"cpu"] = b"exit"

    def _names_cut(self, arr):
        """The text columns (dso, symbol, stack) whose values may have been
        cut to the field width."""
        cut = set()
        for name in ("dso", "symbol", "stack"):
            if name in arr.dtype.names:
                last = np.ascontiguousarray(arr[name]).view(np.uint8).reshape(len(arr), -1)[:, -1]
                if last.any():
                    cut.add(name)
        return cut

    def _take_comments(self, data):
        kept = []
        for line in data.splitlines(keepends=True):
            if line.startswith(b"#"):
                self._line += 1
                self._comment(to_text(line).rstrip("\r\n"))
            else:
                kept.append(line)
        return b"".join(kept)

    def _diagnose(self, data, first_line):
        """Name the first bad line of data (numpy's parser failed on it)."""
        width = len(self.header)
        for n, line in enumerate(data.splitlines(), first_line):
            if not line.strip() or line.startswith(b"#"):
                continue
            cells = line.split(b",")
            if len(cells) != width:
                self._bad(
                    "line %d: %d fields, expected %d (the file is damaged)"
                    % (n, len(cells), width)
                )
            for k, i in enumerate(self._usecols):
                cell = cells[i]
                kind = self._dtype[k].kind
                if kind not in "if" or (kind == "f" and cell in (b"", b"nan")):
                    continue
                try:
                    int(cell) if kind == "i" else float(cell)
                except ValueError:
                    self._bad(
                        "line %d: bad number %r in column %s (the file is damaged)"
                        % (n, to_text(cell[:30]), self.header[i])
                    )
        self._bad(
            "lines %d-%d: unreadable rows (the file is damaged)"
            % (first_line, first_line + data.count(b"\n"))
        )

    def _finish_export(self):
        if self._proc is not None:
            proc, self._proc = self._proc, None
            proc.stdout.close()
            if tools.check_finished(proc, "sampler-export", ok=(0, 2)) == 2:
                self.truncated = True
                warn(
                    os.path.basename(sys.argv[0]),
                    "%s is truncated: using the samples before the cut" % self.path,
                )

    def _close_quietly(self):
        if self._proc is not None:
            try:
                self._proc.kill()
                self._proc.wait()
            except OSError:
                pass
            self._proc = None


def _read_ahead(f, size=BLOCK, read=None):
    """Yield f.read(size) chunks (or read(f)'s) until an empty one, read by
    a thread of their own (at most two chunks ahead, so memory stays flat)."""
    q = queue.Queue(maxsize=2)
    stop = threading.Event()

    def put(item):
        while not stop.is_set():
            try:
                q.put(item, timeout=0.1)
                return
            except queue.Full:
                pass

    def pump():
        try:
            while not stop.is_set():
                data = read(f) if read else f.read(size)
                put(data)
                if not data:
                    return
        except BaseException as e:  # handed to the consumer
            put(e)

    thread = threading.Thread(target=pump, name="csv-reader", daemon=True)
    thread.start()
    try:
        while True:
            item = q.get()
            if isinstance(item, BaseException):
                raise item
            if not item:
                return
            yield item
    finally:
        stop.set()
        thread.join()


def comm_of(profile: Profile, pid: int) -> str:
    p = profile.processes.get(pid)
    return p.get("comm", "?") if p else "?"


def number(text: str, what: str, path: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise SamplerError(
            "%s: %s is not a number: %r (the file is damaged)" % (path, what, text[:30])
        )
