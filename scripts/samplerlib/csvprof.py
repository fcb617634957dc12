"""Contract 2: a profile read through `sampler-export --format csv --symbols`.

    # sampler csv v1
    # host hostname=.. realtime_ns=.. monotonic_ns=.. start_ns=.. ...
    # channel index=0 name=package-0 source=rapl unit=uJ scale=1e-06 kind=energy scope=sample
    # process pid=.. ppid=.. comm=.. argv=..
    time_ns,pid,tid,pc,cpu_delta_ns,wall_delta_ns,<channel>...[,dso,symbol]
    ...
    # stats wall=.. samples=.. thread_samples=.. totals=..

A path may name a profile (either format, plain or bzip2: the exporter is
run on it) or such a CSV file itself (plain or bzip2: read directly).
"""

import csv
import io
import os
import sys

from . import fileio, tools
from .cli import SamplerError, warn
from .textview import parse_fields, unescape

MAGIC = "# sampler csv v1"
FIXED = ("time_ns", "pid", "tid", "pc", "cpu_delta_ns", "wall_delta_ns")
ENERGY_LIKE = ("energy", "power")  # channels that give energy per function
READINGS = ("current", "voltage")  # channels reported as mean readings

csv.field_size_limit(1 << 24)


class Channel:
    def __init__(self, fields, path):
        try:
            self.index = int(fields.get("index", -1))
            self.name = fields["name"]
            self.scale = float(fields.get("scale", "1") or 1)
        except (KeyError, ValueError):
            raise SamplerError("%s: bad channel line (re-export it with a matching sampler-export)" % path)
        self.source = fields.get("source", "")
        self.unit = fields.get("unit", "")
        self.kind = fields.get("kind", "")
        self.scope = fields.get("scope", "sample")
        self.column = None

    @property
    def si_unit(self):
        return {"energy": "J", "power": "W", "current": "A", "voltage": "V"}.get(self.kind, "")


class Profile:
    """Header facts of one profile and an iterator over its rows.

    samples() yields each sample's rows.  After it is exhausted, stats
    holds the `# stats` fields (or {})."""

    def __init__(self, path, symbols=True):
        self.path = path
        self.host = {}
        self.channels = []
        self.processes = {}
        self.stats = {}
        self.header = None
        self.col = {}
        self._proc = None
        self.truncated = False
        fileio.check_readable(path)
        if fileio.head_bytes(path, len(MAGIC)).decode("latin-1") == MAGIC:
            self._f = fileio.open_text_in(path)
        else:
            args = ["--format", "csv"] + (["--symbols"] if symbols else []) + [path, "-o", "-"]
            self._proc = tools.start("sampler-export", args)
            self._f = io.TextIOWrapper(self._proc.stdout, encoding="utf-8", errors="replace", newline="")
        self._reader = csv.reader(self._f)
        self._read_head()

    def _bad(self, why):
        self._close_quietly()
        raise SamplerError("%s: %s" % (self.path, why))

    def _read_head(self):
        first = True
        for row in self._reader:
            line = ",".join(row)
            if first:
                first = False
                if line != MAGIC:
                    self._finish_export()
                    self._bad("not a sampler profile or sampler CSV (first line %r; expected %r)"
                              % (line[:40], MAGIC))
                continue
            if line.startswith("#"):
                self._comment(line)
                continue
            self._set_header(row)
            return
        self._finish_export()
        self._bad("no header row (the file is cut short; export or record it again)")

    def _comment(self, line):
        words = line[1:].split()
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
        elif words[0] == "stats":
            self.stats = fields

    def _set_header(self, row):
        if tuple(row[:len(FIXED)]) != FIXED:
            self._bad("wrong columns %r (expected %s,...)" % (",".join(row[:6])[:60], ",".join(FIXED)))
        row = [unescape(c) for c in row]  # names are %-escaped like the comments
        self.header = row
        self.col = {name: i for i, name in enumerate(row)}
        for ch in self.channels:
            if ch.name not in self.col:
                self._bad("channel %r has no column (the header and the channel lines disagree)" % ch.name)
            ch.column = self.col[ch.name]
        self.dso_col = self.col.get("dso")
        self.symbol_col = self.col.get("symbol")

    def channels_of(self, kinds):
        return [ch for ch in self.channels if ch.kind in kinds]

    def samples(self, progress=None):
        """Yield each sample's rows (lists of strings; a sample's rows are
        consecutive and share time_ns), in time order."""
        width = len(self.header)
        line = len(self.channels) + len(self.processes) + 3
        buf, cur, count = None, None, 0
        for row in self._reader:
            line += 1
            if len(row) != width:
                if row and row[0].startswith("#"):
                    self._comment(",".join(row))
                    continue
                if not row:
                    continue
                self._bad("line %d: %d fields, expected %d (the file is damaged)" % (line, len(row), width))
            if row[0] == cur:
                buf.append(row)
                continue
            if buf is not None:
                yield buf
                count += 1
                if progress is not None and not count & 0x3fff:
                    progress.update(count)
            buf, cur = [row], row[0]
        if buf is not None:
            yield buf
        self._finish_export()
        self._f.close()

    def _finish_export(self):
        if self._proc is not None:
            proc, self._proc = self._proc, None
            proc.stdout.close()
            if tools.check_finished(proc, "sampler-export", ok=(0, 2)) == 2:
                self.truncated = True
                warn(os.path.basename(sys.argv[0]), "%s is truncated: using the samples before the cut" % self.path)

    def _close_quietly(self):
        if self._proc is not None:
            try:
                self._proc.kill()
                self._proc.wait()
            except OSError:
                pass
            self._proc = None


def comm_of(profile, pid):
    p = profile.processes.get(pid)
    return p.get("comm", "?") if p else "?"


def number(text, what, path):
    try:
        return float(text)
    except ValueError:
        raise SamplerError("%s: %s is not a number: %r (the file is damaged)" % (path, what, text[:30]))
