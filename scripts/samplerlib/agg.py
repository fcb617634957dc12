"""Aggregation of thread-samples per (pid, tid, dso, symbol), and from
there per function, DSO, thread or process, over one or several runs
(runagg.RunAgg: the sums and their layout).

One pass over the CSV rows, in blocks of numpy arrays; a sample's rows are
consecutive (same time_ns).  For every key the accumulator holds sums (see
runagg for their layout), so every grouping and every statistic is computed from it
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

from __future__ import annotations

import hashlib
import json
import math
import os
import copy
from typing import Callable, Sequence

from . import VERSION, fileio, tools
from .cli import SamplerError
from .fileio import Spool, check_readable, is_pipe
from .runagg import CACHE_FORMAT, Key, RunAgg


def _cache_dir() -> str:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "sampler", "report")


def _cache_key(path: str, symbols: bool, extra_args: Sequence[str] = ()) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    h.update(("|%s|%d|%d|%s" % (VERSION, CACHE_FORMAT, symbols, " ".join(extra_args))).encode())
    for flag, peer in zip(extra_args, list(extra_args)[1:]):
        if flag == "--node-peer":  # its samples are read too
            st = os.stat(peer)
            h.update(("|%d|%d" % (st.st_size, st.st_mtime_ns)).encode())
    try:  # a rebuilt exporter may symbolize differently
        st = os.stat(tools.find_program("sampler-export"))
        h.update(("|%d|%d" % (st.st_size, int(st.st_mtime))).encode())
    except (SamplerError, OSError):
        pass
    return h.hexdigest()


def load(
    path: str,
    prog: str,
    symbols: bool = True,
    use_cache: bool = True,
    extra_args: Sequence[str] = (),
) -> RunAgg:
    """Aggregate one profile, through the cache when allowed.  A pipe
    ("-" or a FIFO) is first copied to a temporary file: the exporter reads
    a profile twice.  extra_args: more options of the exporter."""
    check_readable(path)
    if is_pipe(path):
        with Spool(path) as spool:
            return _load(spool.path, path, prog, symbols, use_cache, extra_args)
    return _load(path, path, prog, symbols, use_cache, extra_args)


def _load(
    path: str,
    name: str,
    prog: str,
    symbols: bool,
    use_cache: bool,
    extra_args: Sequence[str] = (),
) -> RunAgg:
    cache_file = None
    if use_cache and os.environ.get("SAMPLER_NO_CACHE") is None:
        key = _cache_key(path, symbols, extra_args)
        cache_file = os.path.join(_cache_dir(), key + ".json")
        try:
            with open(cache_file, "r", encoding="utf-8") as f:
                data = json.load(f)
            if data.get("format") == CACHE_FORMAT and data.get("version") == VERSION:
                return RunAgg.from_json(data, name)
        except (OSError, ValueError, KeyError, TypeError):
            pass
    from . import blockagg, colprof  # numpy: only when the cache cannot answer

    repairs = tools.repairs_told()
    profile = colprof.open_profile(path, symbols=symbols, name=name, extra_args=extra_args)
    run = blockagg.aggregate(profile, prog)
    if cache_file and tools.repairs_told() == repairs:  # else warn again next time
        _store(cache_file, run)
    return run


def _store(cache_file: str, run: RunAgg) -> None:
    """Best effort: a cache that cannot be written only costs speed."""
    tmp = "%s.tmp%d" % (cache_file, os.getpid())
    try:
        os.makedirs(os.path.dirname(cache_file), exist_ok=True)
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(run.to_json(), f, separators=(",", ":"))
        os.replace(tmp, cache_file)
    except (OSError, ValueError):
        fileio.remove_quietly(tmp)  # a full disk leaves no half entry


def check_same_channels(runs: Sequence[RunAgg]) -> None:
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


def _ordinals(run: RunAgg) -> tuple[dict[int, int], dict[tuple[int, int], int]]:
    """pid -> process ordinal, (pid, tid) -> thread ordinal, by first
    appearance; they name threads and processes across runs."""
    procs: dict[int, int] = {}
    threads: dict[tuple[int, int], int] = {}
    per_comm: dict[str, int] = {}  # processes so far of each name
    per_pid: dict[int, int] = {}  # threads so far of each process
    for pid, tid, _, _ in run.keys:
        if pid not in procs:
            comm = run.comm(pid)
            procs[pid] = per_comm[comm] = per_comm.get(comm, 0) + 1
        if (pid, tid) not in threads:
            threads[(pid, tid)] = per_pid[pid] = per_pid.get(pid, 0) + 1
    return procs, threads


def is_address(symbol: str) -> bool:
    """An unresolved name: the exporter's 0x hex address."""
    return symbol.startswith("0x") and len(symbol) > 2 and all(
        c in "0123456789abcdefABCDEF" for c in symbol[2:]
    )


def dso_frame(dso: str) -> str:
    """The name of the code of dso without a symbol, as the call tree's
    frames have it: [libfoo.so], or [unknown] outside every mapping."""
    if not dso or dso.startswith("["):
        return dso or "[unknown]"
    return "[%s]" % os.path.basename(dso)


def group(
    run: RunAgg, by: str, single: bool, addresses: bool = False
) -> tuple[dict[Key, list[float]], dict[Key, tuple[str, str]]]:
    """{group key: accumulator}, {group key: (label, dso)} for one run.

    Thread and process keys are run-independent (comm and ordinals) so that
    several runs line up; a single run is labelled with its real ids.  By
    function, the unresolved addresses of one DSO are one row named as the
    tree names them ([libfoo.so]; addresses: one row each): a stripped
    library's addresses differ from run to run, its name does not."""
    procs, threads = _ordinals(run)
    groups: dict[Key, list[float]] = {}
    labels: dict[Key, tuple[str, str]] = {}
    gk: Key
    for (pid, tid, dso, symbol), acc in run.keys.items():
        if by == "function":
            if not addresses and is_address(symbol):
                symbol = dso_frame(dso)
            gk = (dso, symbol)
            label = (symbol, dso)
        elif by == "dso":
            gk = (dso,)
            label = (dso, "")
        elif by == "thread":
            comm = run.thread_comm(pid, tid)
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


def select(run: RunAgg, keep: Callable[[RunAgg, Key], bool]) -> RunAgg:
    """run with only the (pid, tid, dso, symbol) keys keep accepts: the
    report's filters (filters.py), applied before any grouping."""
    out = copy.copy(run)
    out.keys = {k: v for k, v in run.keys.items() if keep(run, k)}
    return out


def totals(run: RunAgg) -> list[float]:
    tot = [0.0] * run.width
    for acc in run.keys.values():
        for i, v in enumerate(acc):
            tot[i] += v
    return tot


def safe_div(a: float, b: float) -> float:
    return a / b if b else 0.0


def nan_if_zero(a: float, b: float) -> float:
    return a / b if b else math.nan
