"""Aggregation of a profile's CSV rows with numpy, block by block: the
sums per (pid, tid, dso, symbol) of runagg.RunAgg (see runagg for their
layout, agg for their meaning).  Imported only when a profile is read, not
for a cached one.  Also what every reader of a profile's rows shares: the
rows in blocks of whole samples (sample_blocks) and a block's samples
(Samples), for the call-path tree (callread) and the timeline (timeline).

A block holds whole lines; a sample cut by a block boundary waits for the
next block.  Rows are grouped by key with a 64-bit hash that is checked
field by field afterwards, and summed with numpy.bincount.
"""

from __future__ import annotations

from typing import Any, Iterator, Sequence

import numpy as np

from . import csvprof
from .cli import SamplerError
from .fileio import Progress
from .runagg import BASE, CPU, CPU2, E, E2, EV, N, PER_ENERGY, SE, SE2, SEW, SW, SW2, WALL, RunAgg


def _refused(profile: csvprof.Profile) -> dict[str, int]:
    """The stats line's refused=N,N,... by channel index, by channel name."""
    try:
        counts = [int(n) for n in profile.stats.get("refused", "").split(",") if n]
    except ValueError:
        raise SamplerError("%s: bad refused= in the stats line" % profile.path)
    return {
        ch.name: counts[ch.index]
        for ch in profile.channels
        if 0 <= ch.index < len(counts) and counts[ch.index]
    }


def _describe(ch: csvprof.Channel) -> dict[str, str]:
    return {"name": ch.name, "kind": ch.kind, "unit": ch.si_unit}


class Samples:
    """The thread-samples of a block of rows, grouped into samples
    (consecutive rows with the same time_ns), as numpy arrays:

      rows   the block's thread-sample rows (not `exit` rows): an index
      sid    the sample (0..count-1) of each of them
      first  whether each is the first row of its sample
      cpu    CPU time of each (s)
      wall   each sample's interval (s), from its first row
      frac   each row's part of its sample's energy by CPU-time share,
             equally among the threads when none ran: the end rule, for
             the power readings of a CSV file only (a profile's power cells
             come from the exporter's columns as each row's energy, by
             its rule: colprof)
    """

    def __init__(self, block: np.ndarray, exit_kind: Any) -> None:
        if exit_kind is not None:
            exits = block["kind"] == exit_kind
            self.rows: np.ndarray | slice = np.flatnonzero(~exits) if exits.any() else slice(None)
        else:
            self.rows = slice(None)
        t = block["time_ns"][self.rows]
        self.first = np.ones(len(t), bool)
        self.first[1:] = t[1:] != t[:-1]
        self.sid = np.cumsum(self.first) - 1
        self.count = int(self.sid[-1]) + 1 if len(t) else 0
        self.time = t[self.first] * 1e-9
        self.cpu = block["cpu_delta_ns"][self.rows] * 1e-9
        self.wall = block["wall_delta_ns"][self.rows][self.first] * 1e-9
        self._frac: np.ndarray | None = None

    @property
    def frac(self) -> np.ndarray:
        """(computed when a power channel needs it)"""
        if self._frac is None:
            cpu_sum = np.bincount(self.sid, self.cpu, self.count)
            threads = np.bincount(self.sid, minlength=self.count)
            ran = cpu_sum[self.sid] > 0
            self._frac = np.where(
                ran,
                self.cpu / np.where(ran, cpu_sum[self.sid], 1.0),
                1.0 / np.maximum(threads[self.sid], 1),
            )
        return self._frac

    def energy(self, block: np.ndarray, ch: csvprof.Channel) -> tuple[np.ndarray, np.ndarray]:
        """(energy of each row, energy of each sample) of an energy or
        power channel in J; NaN for samples whose reading is missing."""
        v = block[ch.field][self.rows] * ch.scale
        if ch.kind == "power" and not ch.energy_cells:  # (a CSV file's readings)
            es = v[self.first] * self.wall
            return es[self.sid] * self.frac, es
        missing = np.bincount(self.sid, np.isnan(v), self.count) > 0
        es = np.bincount(self.sid, np.nan_to_num(v), self.count)
        es[missing] = np.nan
        return np.where(missing[self.sid], np.nan, v), es

    def model_var(self, block: np.ndarray, ch: csvprof.Channel) -> np.ndarray:
        """The attribution model's variance of each row's energy (J^2;
        the exporter's `<channel>:var`, docs/ENERGY.md), 0 where the
        input has none."""
        if ch.var_field is None:
            return np.zeros(len(self.cpu))
        return np.nan_to_num(block[ch.var_field][self.rows]) * (ch.scale * ch.scale)


def last_sample_start(block: np.ndarray, exit_kind: Any) -> int:
    """Index of the first row of the block's last sample (it may go on in
    the next block), or len(block) when the block has no thread-sample.
    exit_kind: the kind of exit rows (None: every row is a sample)."""
    if exit_kind is not None:
        rows = np.flatnonzero(block["kind"] != exit_kind)
    else:
        rows = np.arange(len(block))
    if not len(rows):
        return len(block)
    t = block["time_ns"][rows]
    other = np.flatnonzero(t != t[-1])
    return int(rows[other[-1] + 1]) if len(other) else int(rows[0])


def sample_blocks(profile: csvprof.Profile, prog: str) -> Iterator[np.ndarray]:
    """The rows of profile (csvprof.Profile or colprof.Profile) in blocks
    that hold whole samples, none empty: a sample cut by the end of a block
    is held back and given with the next one.  Shows prog's progress on a
    terminal while the rows are read."""
    progress = Progress(prog, "thread-samples read")
    pending = None
    try:
        for block in profile.blocks(progress):
            if profile.whole_samples:
                if len(block):
                    yield block
                continue
            if pending is not None:
                block = np.concatenate([pending, block])
            cut = last_sample_start(block, profile.exit_kind)
            if cut:
                yield block[:cut]
            pending = block[cut:]
        if pending is not None and len(pending):
            yield pending
    finally:
        progress.done()


def _factorize(block: np.ndarray, names: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """(first row of each distinct key, key index of every row); the key is
    (pid, tid) and the fields names (bytes or integers).  A 64-bit hash groups the rows and
    is then checked field by field, so that a collision costs time, never a
    wrong result."""
    n = len(block)
    raw = np.ascontiguousarray(block).view(np.uint8).reshape(n, -1)
    h = block["pid"].astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    h ^= block["tid"].astype(np.uint64)
    for name in names:
        if block.dtype[name].kind in "iu":
            h = h * np.uint64(0xBF58476D1CE4E5B9) + block[name].astype(np.uint64)
            continue
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


def _factorize_ids(ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """_factorize for rows that carry their key's id (the exporter's
    columns): no hashing, no sort.  Any row of a key represents it."""
    top = int(ids.max()) + 1
    rep = np.empty(top, np.intp)
    rep[ids] = np.arange(len(ids))
    present = np.bincount(ids, minlength=top) > 0
    local = np.cumsum(present) - 1
    return rep[present], local[ids]


def _multipliers(count: int) -> np.ndarray:
    """count odd 64-bit multipliers of the key hash, one per word of a name."""
    odd = np.arange(1, 2 * count, 2, dtype=np.uint64)
    return (odd * np.uint64(0x9E3779B97F4A7C15)) | np.uint64(1)


class _Accumulator:
    """Sums per key in one growing 2-D array; keys in a dict."""

    def __init__(self, width: int) -> None:
        self.index: dict[tuple[Any, ...], int] = {}
        self.sums = np.zeros((64, width))

    def rows_of(self, keys: Sequence[tuple[Any, ...]]) -> np.ndarray:
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


def _add_block(
    block: np.ndarray,
    run: RunAgg,
    profile: csvprof.Profile,
    names: Sequence[str],
    acc: _Accumulator,
) -> int:
    """Add one block of whole samples to acc; returns its sample count."""
    if "key" in block.dtype.names:
        first, inv = _factorize_ids(block["key"])
    else:
        first, inv = _factorize(block, names)
    nkeys = len(first)
    keys = [
        (int(block["pid"][r]), int(block["tid"][r])) + tuple(block[f][r].item() for f in names)
        for r in first
    ]
    local = np.zeros((nkeys, run.width))
    sm = Samples(block, profile.exit_kind)
    ks = inv[sm.rows]

    def add(col, weights, where=ks):
        local[:, col] += np.bincount(where, weights, nkeys)

    local[:, N] = np.bincount(ks, minlength=nkeys)
    # exit rows too: the stats totals
    # the CPU time of clock samples (read as exit rows) too: its variance
    # is theirs, the sum of their squares, when the profile has them
    cpu = sm.cpu if isinstance(sm.rows, slice) else block["cpu_delta_ns"] * 1e-9
    add(CPU, cpu, inv)
    add(CPU2, cpu * cpu, inv)
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
        add(off + EV, sm.model_var(block, ch))
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


def aggregate(profile: csvprof.Profile, prog: str) -> RunAgg:
    """Read every row of profile into a RunAgg, block by block."""
    run = RunAgg()
    run.path = profile.path
    run.host = profile.host
    run.processes = profile.processes
    run.threads = profile.threads
    run.energy_channels = profile.channels_of(csvprof.ENERGY_LIKE)
    run.reading_channels = profile.channels_of(csvprof.READINGS)
    run.counter_channels = profile.channels_of(("counter",))
    run.energy = [_describe(c) for c in run.energy_channels]
    run.readings = [_describe(c) for c in run.reading_channels]
    run.counters = [_describe(c) for c in run.counter_channels]
    run.width = run.off_counter(len(run.counters))
    names = profile.key_fields
    acc = _Accumulator(run.width)
    nsamples = 0
    for block in sample_blocks(profile, prog):
        nsamples += _add_block(block, run, profile, names, acc)
    run.samples = nsamples
    run.stats = profile.stats
    run.refused = _refused(profile)
    keys: dict[tuple[Any, ...], list[float]] = {}
    for key, k in acc.index.items():
        key = key[:2] + tuple(profile.key_names(key[2:]))
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
