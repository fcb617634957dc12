"""Aggregation of thread-samples per (pid, tid, dso, symbol), and from
there per function, DSO, thread or process, over one or several runs.

One pass over the CSV rows, in blocks of numpy arrays; a sample's rows are
consecutive (same time_ns).  For every key the accumulator holds sums (see
the layout below), so every grouping and every statistic is computed from it
without a second pass.  Sample counts and the sampling statistics count
thread-samples (CSV v2 kind `sample`); CPU time and counters add the `exit`
rows too (what threads ran after their last sample), so that their totals
are the profile's stats totals.
The per-profile result is cached under ~/.cache/sampler/report, keyed by
the SHA-256 of the profile's bytes (and the exporter used), so a second
report, compare or plot of the same profile skips export and symbolization.

Energy of a function, per channel:
  energy channels  the exporter's attributed energy of each thread-sample;
  power channels   reading * interval (wall_delta), attributed to the
                   sample's threads by the same rule the exporter uses for
                   energy (by CPU-time share; equally when none ran).
Mean power while in a function: the energy of the sample intervals that
ended in it divided by their duration (time-weighted mean system power).
"""

import hashlib
import json
import math
import os

import numpy as np

from . import VERSION, csvprof, tools
from .cli import SamplerError
from .fileio import Progress, Spool, check_readable, is_pipe
from .textview import unescape

# Accumulator layout: base fields, then 7 per energy-like channel, then 2
# per reading channel, then 1 per counter channel.
N, CPU, CPU2, WALL = range(4)
BASE = 4
E, E2, SE, SE2, SEW, SW, SW2 = range(7)
PER_ENERGY = 7
CACHE_FORMAT = 2  # 2: CSV v2 exit rows in the CPU and counter sums


class RunAgg:
    """One profile, aggregated per (pid, tid, dso, symbol)."""

    def __init__(self):
        self.path = None
        self.host = {}
        self.processes = {}
        self.stats = {}
        self.energy = []  # [{name, kind, unit}] energy/power channels
        self.readings = []  # current/voltage channels
        self.counters = []  # counter channels
        self.energy_channels = self.reading_channels = self.counter_channels = []
        self.keys = {}  # (pid, tid, dso, symbol) -> accumulator
        self.samples = 0
        self.width = BASE

    def off_reading(self, k):
        return BASE + PER_ENERGY * len(self.energy) + 2 * k

    def off_counter(self, m):
        return BASE + PER_ENERGY * len(self.energy) + 2 * len(self.readings) + m

    def to_json(self):
        return {
            "format": CACHE_FORMAT,
            "version": VERSION,
            "host": self.host,
            "processes": {str(k): v for k, v in self.processes.items()},
            "stats": self.stats,
            "energy": self.energy,
            "readings": self.readings,
            "counters": self.counters,
            "samples": self.samples,
            "keys": [[list(k), v] for k, v in self.keys.items()],
        }

    @classmethod
    def from_json(cls, data, path):
        run = cls()
        run.path = path
        run.host = data["host"]
        run.processes = {int(k): v for k, v in data["processes"].items()}
        run.stats = data["stats"]
        run.energy, run.readings, run.counters = data["energy"], data["readings"], data["counters"]
        run.samples = data["samples"]
        run.keys = {tuple(k): v for k, v in data["keys"]}
        run.width = run.off_counter(len(run.counters))
        return run

    def channel_names(self):
        return [c["name"] for c in self.energy]

    def comm(self, pid):
        p = self.processes.get(int(pid))
        return p.get("comm", "?") if p else "?"


def _describe(ch):
    return {"name": ch.name, "kind": ch.kind, "unit": ch.si_unit}


class Samples:
    """The thread-samples of a block of rows, grouped into samples
    (consecutive rows with the same time_ns), as numpy arrays:

      rows   indices of the block's thread-sample rows (not `exit` rows)
      sid    the sample (0..count-1) of each of them
      first  whether each is the first row of its sample
      cpu    CPU time of each (s)
      wall   each sample's interval (s), from its first row
      frac   each row's part of its sample's energy: the exporter's rule,
             by CPU-time share, equally among the threads when none ran
    """

    def __init__(self, block, has_kind):
        if has_kind:
            self.rows = np.flatnonzero(block["kind"] != b"exit")
        else:
            self.rows = np.arange(len(block))
        t = block["time_ns"][self.rows]
        self.first = np.ones(len(t), bool)
        self.first[1:] = t[1:] != t[:-1]
        self.sid = np.cumsum(self.first) - 1
        self.count = int(self.sid[-1]) + 1 if len(t) else 0
        self.time = t[self.first] * 1e-9
        self.cpu = block["cpu_delta_ns"][self.rows] * 1e-9
        self.wall = block["wall_delta_ns"][self.rows][self.first] * 1e-9
        cpu_sum = np.bincount(self.sid, self.cpu, self.count)
        threads = np.bincount(self.sid, minlength=self.count)
        ran = cpu_sum[self.sid] > 0
        self.frac = np.where(
            ran,
            self.cpu / np.where(ran, cpu_sum[self.sid], 1.0),
            1.0 / np.maximum(threads[self.sid], 1),
        )

    def energy(self, block, ch):
        """(energy of each row, energy of each sample) of an energy or
        power channel in J; NaN for samples whose reading is missing."""
        v = block[ch.field][self.rows] * ch.scale
        if ch.kind == "power":
            es = v[self.first] * self.wall
            return es[self.sid] * self.frac, es
        missing = np.bincount(self.sid, np.isnan(v), self.count) > 0
        es = np.bincount(self.sid, np.nan_to_num(v), self.count)
        es[missing] = np.nan
        return np.where(missing[self.sid], np.nan, v), es


def last_sample_start(block, has_kind):
    """Index of the first row of the block's last sample (it may go on in
    the next block), or len(block) when the block has no thread-sample."""
    if has_kind:
        rows = np.flatnonzero(block["kind"] != b"exit")
    else:
        rows = np.arange(len(block))
    if not len(rows):
        return len(block)
    t = block["time_ns"][rows]
    other = np.flatnonzero(t != t[-1])
    return int(rows[other[-1] + 1]) if len(other) else int(rows[0])


def _factorize(block, names):
    """(first row of each distinct key, key index of every row); the key is
    (pid, tid) and the byte fields names.  A 64-bit hash groups the rows and
    is then checked field by field, so that a collision costs time, never a
    wrong result."""
    n = len(block)
    raw = np.ascontiguousarray(block).view(np.uint8).reshape(n, -1)
    h = block["pid"].astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    h ^= block["tid"].astype(np.uint64)
    for name in names:
        off = block.dtype.fields[name][1]
        width = block.dtype[name].itemsize
        words = raw[:, off : off + width - width % 8].view(np.uint64)
        h = h * np.uint64(0xBF58476D1CE4E5B9) + words.dot(_multipliers(words.shape[1]))
        if width % 8:
            tail = raw[:, off + width - width % 8 : off + width].astype(np.uint64)
            h = h * np.uint64(0x94D049BB133111EB) + tail.dot(_multipliers(width % 8))
    h ^= h >> np.uint64(29)
    _, first, inv = np.unique(h, return_index=True, return_inverse=True)
    rep = first[inv]
    same = (block["pid"][rep] == block["pid"]) & (block["tid"][rep] == block["tid"])
    for name in names:
        same &= block[name][rep] == block[name]
    if not same.all():
        _, first, inv = np.unique(
            block[["pid", "tid"] + list(names)], return_index=True, return_inverse=True
        )
    return first, inv.ravel()


def _multipliers(count):
    """count odd 64-bit multipliers of the key hash, one per word of a name."""
    odd = np.arange(1, 2 * count, 2, dtype=np.uint64)
    return (odd * np.uint64(0x9E3779B97F4A7C15)) | np.uint64(1)


class _Accumulator:
    """Sums per key in one growing 2-D array; keys in a dict."""

    def __init__(self, width):
        self.index = {}
        self.sums = np.zeros((64, width))

    def rows_of(self, keys):
        out = np.empty(len(keys), np.intp)
        for i, key in enumerate(keys):
            k = self.index.get(key)
            if k is None:
                k = self.index[key] = len(self.index)
            out[i] = k
        if len(self.index) > len(self.sums):
            grown = np.zeros((2 * len(self.index), self.sums.shape[1]))
            grown[: len(self.sums)] = self.sums
            self.sums = grown
        return out


def _add_block(block, run, profile, names, acc):
    """Add one block of whole samples to acc; returns its sample count."""
    first, inv = _factorize(block, names)
    nkeys = len(first)
    keys = [
        (int(block["pid"][r]), int(block["tid"][r])) + tuple(bytes(block[f][r]) for f in names)
        for r in first
    ]
    local = np.zeros((nkeys, run.width))
    sm = Samples(block, profile.has_kind)
    ks = inv[sm.rows]

    def add(col, weights, where=ks):
        local[:, col] += np.bincount(where, weights, nkeys)

    local[:, N] = np.bincount(ks, minlength=nkeys)
    add(CPU, block["cpu_delta_ns"] * 1e-9, inv)  # exit rows too: the stats totals
    add(CPU2, sm.cpu * sm.cpu)
    wall = sm.wall[sm.sid]
    add(WALL, wall)
    for j, ch in enumerate(run.energy_channels):
        off = BASE + PER_ENERGY * j
        e, es = sm.energy(block, ch)
        ok = ~np.isnan(e)
        e = np.where(ok, e, 0.0)
        es = np.where(ok, es[sm.sid], 0.0)
        w = np.where(ok, wall, 0.0)
        add(off + E, e)
        add(off + E2, e * e)
        add(off + SE, es)
        add(off + SE2, es * es)
        add(off + SEW, es * w)
        add(off + SW, w)
        add(off + SW2, w * w)
    for k, ch in enumerate(run.reading_channels):
        off = run.off_reading(k)
        v = block[ch.field][sm.rows] * ch.scale
        ok = ~np.isnan(v)
        add(off, np.where(ok, v, 0.0))
        add(off + 1, ok.astype(float))
    for m, ch in enumerate(run.counter_channels):  # exit rows too: the stats totals
        add(run.off_counter(m), np.nan_to_num(block[ch.field] * ch.scale), inv)
    rows = acc.rows_of(keys)  # (may grow acc.sums)
    acc.sums[rows] += local
    return sm.count


def aggregate(profile, prog):
    """Read every row of profile into a RunAgg, block by block."""
    run = RunAgg()
    run.path = profile.path
    run.host = profile.host
    run.processes = profile.processes
    run.energy_channels = profile.channels_of(csvprof.ENERGY_LIKE)
    run.reading_channels = profile.channels_of(csvprof.READINGS)
    run.counter_channels = profile.channels_of(("counter",))
    run.energy = [_describe(c) for c in run.energy_channels]
    run.readings = [_describe(c) for c in run.reading_channels]
    run.counters = [_describe(c) for c in run.counter_channels]
    run.width = run.off_counter(len(run.counters))
    symbols = profile.dso_col is not None and profile.symbol_col is not None
    names = ("dso", "symbol") if symbols else ("pc",)
    acc = _Accumulator(run.width)
    progress = Progress(prog, "thread-samples read")
    nsamples = 0
    pending = None
    try:
        for block in profile.blocks(progress):
            if pending is not None:
                block = np.concatenate([pending, block])
            cut = last_sample_start(block, profile.has_kind)
            if cut:
                nsamples += _add_block(block[:cut], run, profile, names, acc)
            pending = block[cut:]
        if pending is not None and len(pending):
            nsamples += _add_block(pending, run, profile, names, acc)
    finally:
        progress.done()
    run.samples = nsamples
    run.stats = profile.stats
    keys = {}
    for key, k in acc.index.items():
        pid, tid = key[:2]
        if symbols:
            key = (pid, tid, unescape(key[2]), unescape(key[3]))
        else:
            key = (pid, tid, "[unknown]", unescape(key[2]))
        old = keys.get(key)
        keys[key] = (
            acc.sums[k].tolist() if old is None else [a + b for a, b in zip(old, acc.sums[k])]
        )
    run.keys = keys
    if not nsamples:
        why = (
            "it was cut short before its first complete sample"
            if profile.truncated
            else "the run was too short; raise -f or run longer"
        )
        raise SamplerError("%s: the profile holds no samples (%s)" % (profile.path, why))
    return run


def _cache_dir():
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "sampler", "report")


def _cache_key(path, symbols):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    h.update(("|%s|%d|%d" % (VERSION, CACHE_FORMAT, symbols)).encode())
    try:  # a rebuilt exporter may symbolize differently
        st = os.stat(tools.find_program("sampler-export"))
        h.update(("|%d|%d" % (st.st_size, int(st.st_mtime))).encode())
    except (SamplerError, OSError):
        pass
    return h.hexdigest()


def load(path, prog, symbols=True, use_cache=True):
    """Aggregate one profile, through the cache when allowed.  A pipe
    ("-" or a FIFO) is first copied to a temporary file: the exporter reads
    a profile twice."""
    check_readable(path)
    if is_pipe(path):
        with Spool(path) as spool:
            return _load(spool.path, path, prog, symbols, use_cache)
    return _load(path, path, prog, symbols, use_cache)


def _load(path, name, prog, symbols, use_cache):
    cache_file = None
    if use_cache and os.environ.get("SAMPLER_NO_CACHE") is None:
        cache_file = os.path.join(_cache_dir(), _cache_key(path, symbols) + ".json")
        try:
            with open(cache_file, "r", encoding="utf-8") as f:
                data = json.load(f)
            if data.get("format") == CACHE_FORMAT and data.get("version") == VERSION:
                return RunAgg.from_json(data, name)
        except (OSError, ValueError, KeyError, TypeError):
            pass
    run = aggregate(csvprof.Profile(path, symbols=symbols, name=name), prog)
    if cache_file:
        _store(cache_file, run)
    return run


def _store(cache_file, run):
    """Best effort: a cache that cannot be written only costs speed."""
    try:
        os.makedirs(os.path.dirname(cache_file), exist_ok=True)
        tmp = "%s.tmp%d" % (cache_file, os.getpid())
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(run.to_json(), f, separators=(",", ":"))
        os.replace(tmp, cache_file)
    except (OSError, ValueError):
        pass


def check_same_channels(runs):
    """Runs aggregated together must have the same energy channels."""
    first = runs[0].channel_names()
    for run in runs[1:]:
        if run.channel_names() != first:
            raise SamplerError(
                "%s has channels %s but %s has %s (compare profiles recorded with the same -p)"
                % (
                    run.path,
                    ",".join(run.channel_names()) or "none",
                    runs[0].path,
                    ",".join(first) or "none",
                )
            )


# ---- grouping ------------------------------------------------------------

BY_KINDS = ("function", "dso", "thread", "process")


def _ordinals(run):
    """pid -> process ordinal, (pid, tid) -> thread ordinal, by first
    appearance; they name threads and processes across runs."""
    procs, threads = {}, {}
    for pid, tid, _, _ in run.keys:
        if pid not in procs:
            procs[pid] = sum(1 for p in procs if run.comm(p) == run.comm(pid)) + 1
        if (pid, tid) not in threads:
            threads[(pid, tid)] = sum(1 for (p, _) in threads if p == pid) + 1
    return procs, threads


def group(run, by, single):
    """{group key: accumulator}, {group key: (label, dso)} for one run.

    Thread and process keys are run-independent (comm and ordinals) so that
    several runs line up; a single run is labelled with its real ids."""
    procs, threads = _ordinals(run)
    groups, labels = {}, {}
    for (pid, tid, dso, symbol), acc in run.keys.items():
        if by == "function":
            gk = (dso, symbol)
            label = (symbol, dso)
        elif by == "dso":
            gk = (dso,)
            label = (dso, "")
        elif by == "thread":
            comm = run.comm(pid)
            gk = (comm, procs[pid], threads[(pid, tid)])
            label = (
                "%s %s" % (tid, comm)
                if single
                else "%s#%d.%d" % (comm, procs[pid], threads[(pid, tid)]),
                "",
            )
        else:
            comm = run.comm(pid)
            gk = (comm, procs[pid])
            label = ("%s %s" % (pid, comm) if single else "%s#%d" % (comm, procs[pid]), "")
        g = groups.get(gk)
        if g is None:
            groups[gk] = list(acc)
            labels[gk] = label
        else:
            for i, v in enumerate(acc):
                g[i] += v
    return groups, labels


def totals(run):
    tot = [0.0] * run.width
    for acc in run.keys.values():
        for i, v in enumerate(acc):
            tot[i] += v
    return tot


def safe_div(a, b):
    return a / b if b else 0.0


def nan_if_zero(a, b):
    return a / b if b else math.nan
