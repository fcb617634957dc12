"""The scripts' binary input: `sampler-export --format columns --symbols`
(docs/EXPORT.md, "Columns").  The exporter is the one reader of the profile
format; this module only lays its fixed-width records onto numpy arrays.

    # sampler columns v4
    # host ... / # channel ...                     (as in the CSV)
    # records size=.. channels=.. symbols=0|1 stacks=0|1 frame=.. [model_var=I,..]
    # rows
    frames: u32 count (little-endian), then count records of whole samples;
            count 0 ends them
    # process ...                                   (as in the CSV)
    # symbol id=.. dso=.. symbol=..                  (one per id the rows use)
    # stack id=.. stack=..                           (profiles with stacks)
    # stats ...
    # end

A record: time_ns i64, pid u32, tid u32, pc u64, cpu_delta_ns u64,
wall_delta_ns u64, kind u8 (0 sample, 1 exit), 3 bytes padding, symbol u32
(an id of a `# symbol` line; 0xffffffff without symbols), key u32 (one id
per (pid, tid, symbol), or (pid, tid, pc) without symbols, numbered from 0 in
order of first appearance), stack u32 (an id of a `# stack` line: the CSV's
stack column; 0xffffffff in a profile without stacks), then one f64 per
channel (NaN: no reading; a power channel's: the row's energy, W s, by
the exporter's rule), then one f64 per channel index in model_var:
that channel's model variance (the CSV's `<channel>:var`).  A frame
becomes one record array without a copy; frames are read ahead by a
thread, at most two at a time.
"""

from __future__ import annotations

import struct
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from . import csvprof, fileio, tools
from .fileio import Progress
from .textview import parse_fields, split_words, to_text

MAGIC = "# sampler columns v4"
FIXED_SIZE = 56
FRAME_MAX = 1 << 23  # rows; 65536 unless a sample has more threads
NO_SYMBOL = 0xFFFFFFFF
NO_STACK = 0xFFFFFFFF
EXIT = 1  # kind of an exit row
CPU = 2  # kind of a cpu row (a clock sample: CPU time at a place, read as an exit row)


def _cpu_as_exit(arr: np.ndarray) -> np.ndarray:
    """cpu rows (CPU time where a clock sample found a thread, no wall
    interval, no energy) are summed as exit rows are: kind EXIT."""
    cpu = arr["kind"] == CPU
    if not cpu.any():
        return arr
    arr = arr.copy()
    arr["kind"][cpu] = EXIT
    return arr


_FIXED = [
    ("time_ns", "<i8"),
    ("pid", "<u4"),
    ("tid", "<u4"),
    ("pc", "<u8"),
    ("cpu_delta_ns", "<u8"),
    ("wall_delta_ns", "<u8"),
    ("kind", "u1"),
    ("pad", "V3"),
    ("sym", "<u4"),
    ("key", "<u4"),
    ("stack", "<u4"),
]


def open_profile(
    path: str,
    symbols: bool = True,
    name: str | None = None,
    stacks: bool = False,
    extra_args: Sequence[str] = (),
) -> csvprof.Profile:
    """A CSV file is read as CSV; anything else is given to the exporter
    and read through its columns.  stacks: the CSV's stack column is
    parsed too (the columns always carry their stack ids).  extra_args:
    more options of the exporter (--no-demangle)."""
    fileio.check_readable(path)
    if fileio.head_bytes(path, 17).startswith(b"# sampler csv v"):
        return csvprof.Profile(path, symbols=symbols, name=name, stacks=stacks)
    return Profile(path, symbols=symbols, name=name, extra_args=extra_args)


class Profile(csvprof.Profile):
    """csvprof.Profile's facts and blocks, from the exporter's columns.
    Blocks have fields time_ns, pid, tid, kind (EXIT for exit rows), pc,
    cpu_delta_ns, wall_delta_ns, sym, key, stack, c0, c1, ...; stack is
    an id that stack_text() names once the blocks are read."""

    exit_kind = EXIT
    whole_samples = True  # a frame never cuts a sample

    def __init__(
        self,
        path: str,
        symbols: bool = True,
        name: str | None = None,
        extra_args: Sequence[str] = (),
    ) -> None:
        self.path = name or path
        self.host = {}
        self.channels = []
        self.processes = {}
        self.threads = {}
        self.stats = {}
        self.version = 2  # rows have kinds, as CSV v2
        self.symbols: dict[int, tuple[str, str]] = {}  # id -> (dso, symbol)
        self.stacks: dict[int, str] = {}  # id -> stack text (profiles with stacks)
        # stack_sink(id, text), if set, takes each stack text instead of
        # self.stacks: a reader that interns the frames holds no texts
        self.stack_sink: Callable[[int, str], None] | None = None
        self._stack_lines = 0
        self._top_stack_line = -1
        self._with_stacks = False
        self.dso_col = self.symbol_col = None
        self._line = 0
        self._ended = False
        self.truncated = False
        fileio.check_readable(path)
        args = ["--format", "columns"] + (["--symbols"] if symbols else []) + list(extra_args)
        args += [path, "-o", "-"]
        self._proc = tools.start("sampler-export", args)
        self._f = self._proc.stdout
        self._read_head()

    def _cut(self, where):
        self._finish_export()  # the exporter's own error, if it failed
        self._bad("the exporter's output ends %s (the stream is cut short)" % where)

    def _read_head(self):
        first = to_text(self._readline()).rstrip("\n")
        if not first:
            self._finish_export()  # nothing written: the exporter's own error
            self._bad("the exporter wrote nothing")
        if first != MAGIC:
            self._bad(
                "not a sampler columns stream (first line %r; expected %r)" % (first[:40], MAGIC)
            )
        while True:
            line = self._readline()
            if not line.endswith(b"\n"):  # (a line cut short is no line)
                self._cut("in its head")
            text = to_text(line).rstrip("\n")
            if text == "# rows":
                break
            if text.startswith("# records "):
                self._records(parse_fields(split_words(text[2:])[1:]))
            elif text.startswith("#"):
                self._comment(text)
            else:
                self._bad(
                    "line %d: %r in the head (the stream is damaged)" % (self._line, text[:40])
                )
        if not hasattr(self, "_dtype"):
            self._bad("no records line in the head (the stream is damaged)")

    def _records(self, fields):
        try:
            size, nch = int(fields["size"]), int(fields["channels"])
            self._with_symbols = fields["symbols"] == "1"
            self._with_stacks = fields["stacks"] == "1"
            listed = fields.get("model_var")
            var_of = [int(i) for i in listed.split(",")] if listed else []
        except (KeyError, ValueError):
            self._bad("bad records line (the stream is damaged)")
        if any(not 0 <= i < nch for i in var_of):
            self._bad("bad model_var channels in the records line (the stream is damaged)")
        if nch != len(self.channels) or size != FIXED_SIZE + 8 * (nch + len(var_of)):
            self._bad(
                "records of %d bytes and %d channels, expected %d and %d "
                "(the stream is damaged)"
                % (size, nch, FIXED_SIZE + 8 * len(self.channels), len(self.channels))
            )
        for k, ch in enumerate(self.channels):
            ch.field = "c%d" % k
            # the exporter divides a power reading too: its cells are energy
            ch.energy_cells = ch.kind == "power" and ch.scope == "sample"
        for i in var_of:
            self.channels[i].var_field = "v%d" % i
        self._dtype = np.dtype(
            _FIXED
            + [(ch.field, "<f8") for ch in self.channels]
            + [(self.channels[i].var_field, "<f8") for i in var_of]
        )
        if self._with_symbols:
            self.dso_col = self.symbol_col = True

    @property
    def has_stacks(self) -> bool:
        return self._with_stacks

    def stack_text(self, value: Any) -> str:
        """The frames, joined by ';', of a row's stack field."""
        return self.stacks[int(value)]

    @property
    def key_fields(self) -> tuple[str, ...]:
        return ("sym",) if self._with_symbols else ("pc",)

    def key_names(self, tail: Sequence[Any]) -> tuple[str, str]:
        """(dso, symbol) of a key's tail (key_fields values)."""
        if self._with_symbols:
            return self.symbols[tail[0]]
        return ("[unknown]", "0x%x" % tail[0])

    def blocks(self, progress: Progress | None = None) -> Iterator[np.ndarray]:
        rows = 0
        top = top_stack = -1
        keys = 0  # key ids so far: a new block's are below keys + its rows
        ok = False
        reader = csvprof._read_ahead(self._f, read=self._frame)
        try:
            for data in _checked(reader, self):
                arr = np.frombuffer(data, self._dtype)
                if arr["kind"].max() > CPU:
                    bad = int(arr["kind"][np.argmax(arr["kind"] > CPU)])
                    self._bad(
                        "row %d: kind %d (expected 0, 1 or 2; the stream is damaged)"
                        % (rows + int(np.argmax(arr["kind"] > CPU)) + 1, bad)
                    )
                arr = _cpu_as_exit(arr)
                if self._with_symbols and len(arr):
                    top = max(top, int(arr["sym"].max()))
                if self._with_stacks and len(arr):
                    top_stack = max(top_stack, int(arr["stack"].max()))
                last = int(arr["key"].max()) if len(arr) else -1
                if last >= keys + len(arr):
                    self._bad("row keys beyond their count (the stream is damaged)")
                keys = max(keys, last + 1)
                rows += len(arr)
                if progress is not None:
                    progress.update(rows)
                yield arr
            self._read_tail(top, top_stack)
            ok = True
        finally:
            reader.close()
            if ok:
                self._finish_export()
            else:
                self._close_quietly()
            self._f.close()

    def _frame(self, f):
        """The next frame's records as bytes; b"" after the last."""
        head = f.read(4)
        if len(head) < 4:
            raise _Damage("before its end mark", cut=True)
        (count,) = struct.unpack("<I", head)
        if count > FRAME_MAX:
            raise _Damage(
                "a frame of %d rows (at most %d; the stream is damaged)" % (count, FRAME_MAX)
            )
        size = count * self._dtype.itemsize
        data = f.read(size)
        if len(data) < size:
            raise _Damage("inside a frame", cut=True)
        return data  # b"" for the end mark, a frame of 0 rows

    def _read_tail(self, top, top_stack):
        while True:
            line = self._readline()
            if not line:
                self._cut("before its end line")
            text = to_text(line).rstrip("\n")
            if text == "# end":
                break
            words = split_words(text[1:]) if text.startswith("#") else []
            if words and words[0] == "symbol":
                fields = parse_fields(words[1:])
                try:
                    self.symbols[int(fields["id"])] = (fields["dso"], fields["symbol"])
                except (KeyError, ValueError):
                    self._bad("bad symbol line %r (the stream is damaged)" % text[:60])
            elif words and words[0] == "stack":
                fields = parse_fields(words[1:])
                try:
                    sid, stack = int(fields["id"]), fields["stack"]
                except (KeyError, ValueError):
                    self._bad("bad stack line %r (the stream is damaged)" % text[:60])
                if self.stack_sink is not None:
                    self.stack_sink(sid, stack)
                else:
                    self.stacks[sid] = stack
                self._stack_lines += 1
                self._top_stack_line = max(self._top_stack_line, sid)
            elif words:
                self._comment(text)
            else:
                self._bad("%r after the rows (the stream is damaged)" % text[:40])
        if top >= len(self.symbols) or any(i >= len(self.symbols) for i in self.symbols):
            self._bad(
                "a row names symbol %d of %d symbol lines (the stream is damaged)"
                % (top, len(self.symbols))
            )
        if max(top_stack, self._top_stack_line) >= self._stack_lines:
            self._bad(
                "a row names stack %d of %d stack lines (the stream is damaged)"
                % (top_stack, self._stack_lines)
            )


class _Damage(Exception):
    def __init__(self, why, cut=False):
        Exception.__init__(self, why)
        self.cut = cut


def _checked(reader, profile):
    """The frames of reader; damage becomes one clear error."""
    try:
        for data in reader:
            yield data
    except _Damage as e:
        if e.cut:
            profile._cut(str(e))
        profile._bad(str(e))
