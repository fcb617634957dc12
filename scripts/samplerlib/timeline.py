"""The timeline of one profile for sampler-plot: per-sample series (power
of every energy/power channel, rate of every counter, CPU in use) and the
function of every thread-sample, as numpy arrays, and their time bins.
"""

from __future__ import annotations

import numpy as np

from . import blockagg, csvprof, fileio
from .cli import SamplerError
from .textview import unescape


class Timeline:
    """Per-sample series of one profile (numpy arrays, one value per sample)
    and the function of every thread-sample."""

    def __init__(self, prof: csvprof.Profile) -> None:
        self.prof = prof
        self.energy = prof.channels_of(csvprof.ENERGY_LIKE)
        self.counters = prof.channels_of(("counter",))
        self.name_field = "symbol" if prof.symbol_col is not None else "pc"
        self.names: list[bytes] = []  # function names (escaped bytes), by id
        self._ids: dict[bytes, int] = {}
        self._parts: dict[str, list[np.ndarray]] = {
            "time": [],
            "wall": [],
            "sample": [],
            "func": [],
            "cpu": [],
        }
        self._power: list[list[np.ndarray]] = [[] for _ in self.energy]
        self._rates: list[list[np.ndarray]] = [[] for _ in self.counters]
        self.count = 0

    def add(self, block: np.ndarray) -> None:
        sm = blockagg.Samples(block, self.prof.exit_kind)
        if not sm.count:
            return
        wall = sm.wall
        pos = wall > 0
        self._parts["time"].append(sm.time)
        self._parts["wall"].append(wall)
        self._parts["cpu"].append(np.bincount(sm.sid, sm.cpu, sm.count))
        for ch, parts in zip(self.energy, self._power):
            if ch.kind == "power" and not ch.energy_cells:
                parts.append(block[ch.field][sm.rows][sm.first] * ch.scale)
            else:
                _, es = sm.energy(block, ch)
                parts.append(np.where(pos, es / np.where(pos, wall, 1.0), np.nan))
        for ch, parts in zip(self.counters, self._rates):
            v = np.nan_to_num(block[ch.field][sm.rows] * ch.scale)
            total = np.bincount(sm.sid, v, sm.count)
            parts.append(np.where(pos, total / np.where(pos, wall, 1.0), np.nan))
        names, inv = np.unique(block[self.name_field][sm.rows], return_inverse=True)
        ids = np.array([self._id(bytes(n)) for n in names], dtype=np.int64)
        self._parts["func"].append(ids[inv.ravel()])
        self._parts["sample"].append(sm.sid + self.count)
        self.count += sm.count

    def _id(self, name: bytes) -> int:
        k = self._ids.get(name)
        if k is None:
            k = self._ids[name] = len(self.names)
            self.names.append(name)
        return k

    def finish(self) -> None:
        cat = {k: np.concatenate(v) for k, v in self._parts.items()}
        self.time, self.wall = cat["time"], cat["wall"]
        self.sample, self.func = cat["sample"], cat["func"]
        self.cpu = cat["cpu"]  # per sample: CPU time of all its threads (s)
        self.power = [np.concatenate(p) for p in self._power]
        self.rates = [np.concatenate(r) for r in self._rates]

    def bins(self, nbins: int) -> tuple[np.ndarray, np.ndarray]:
        """(bin of every sample, bin centres) over the run."""
        t0 = self.time[0] - self.wall[0]
        span = (self.time[-1] - t0) or 1.0
        b = np.minimum(nbins - 1, ((self.time - t0) / span * nbins).astype(np.int64))
        return np.maximum(b, 0), t0 + (np.arange(nbins) + 0.5) * span / nbins


def read_timeline(path: str, prog: str) -> Timeline:
    """The Timeline of one profile (a pipe is copied to a file first)."""
    if fileio.is_pipe(path):
        fileio.check_readable(path)
        with fileio.Spool(path) as spool:
            return _read_timeline(spool.path, path, prog)
    return _read_timeline(path, path, prog)


def _read_timeline(path: str, name: str, prog: str) -> Timeline:
    prof = csvprof.Profile(path, name=name)
    tl = Timeline(prof)
    for block in blockagg.sample_blocks(prof, prog):
        tl.add(block)
    if not tl.count:
        raise SamplerError("%s: the profile holds no samples (record a longer run)" % name)
    tl.finish()
    return tl


def binned_series(tl: Timeline, series: np.ndarray, nbins: int) -> tuple[np.ndarray, np.ndarray]:
    """Time-weighted mean of series per bin (a line of at most nbins points)."""
    b, xs = tl.bins(nbins)
    ok = ~np.isnan(series)
    w = np.where(tl.wall > 0, tl.wall, 1e-12)[ok]
    num = np.bincount(b[ok], series[ok] * w, nbins)
    den = np.bincount(b[ok], w, nbins)
    has = den > 0
    return xs[has], num[has] / den[has]


def function_band(tl: Timeline, top: int, nbins: int) -> tuple[np.ndarray, list[str], np.ndarray]:
    """(bin centres, labels, shares per label and bin): the top functions by
    thread-samples, the rest as "other"."""
    total = np.bincount(tl.func, minlength=len(tl.names))
    hot = np.argsort(-total, kind="stable")[:top]
    slot = np.full(len(tl.names), len(hot))
    slot[hot] = np.arange(len(hot))
    b, xs = tl.bins(nbins)
    counts = np.bincount(
        slot[tl.func] * nbins + b[tl.sample], minlength=(len(hot) + 1) * nbins
    ).reshape(len(hot) + 1, nbins)
    sums = counts.sum(axis=0)
    shares = 100.0 * counts / np.where(sums > 0, sums, 1)
    labels = [unescape(tl.names[h]) for h in hot]
    if shares[-1].any():
        labels.append("other")
    return xs, labels, shares[: len(labels)]


def cpu_in_use(tl: Timeline) -> np.ndarray:
    """Per sample: the CPU in use (cores), its threads' CPU time over its
    interval; NaN for an interval of 0."""
    return np.where(tl.wall > 0, tl.cpu / np.where(tl.wall > 0, tl.wall, 1.0), np.nan)
