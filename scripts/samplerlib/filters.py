"""perf report's filters for sampler-report: --comm, --pid, --tid, --dso,
--symbols (comma lists, as perf takes them).  They keep the thread-samples
of the matching (pid, tid, dso, symbol) keys before any grouping
(agg.select), so every view, total and share is of what they keep (perf's
--percentage relative); the report says how much that is of the whole."""

from __future__ import annotations

import argparse
import os
from typing import Any, Callable

from . import agg, runagg
from .cli import SamplerError
from .runagg import Key, RunAgg

# option, metavar, what it names (perf report's option names)
OPTIONS = (
    ("--comm", "COMM[,COMM]", "process names (comm) to keep"),
    ("--pid", "PID[,PID]", "process ids to keep"),
    ("--tid", "TID[,TID]", "thread ids to keep"),
    ("--dso", "DSO[,DSO]", "code files to keep (a path, or its base name: libc.so.6)"),
    ("--symbols", "SYM[,SYM]", "functions to keep (names as the report lists them)"),
)


def add_options(p: argparse.ArgumentParser) -> None:
    for opt, metavar, what in OPTIONS:
        p.add_argument(opt, type=_names, default=None, metavar=metavar, help=what)


def _names(text: str) -> list[str]:
    names = [t.strip() for t in text.split(",") if t.strip()]
    if not names:
        raise argparse.ArgumentTypeError("give at least one name: %r" % text)
    return names


def _ids(names: list[str] | None, what: str) -> set[int] | None:
    if names is None:
        return None
    try:
        return {int(n) for n in names}
    except ValueError:
        raise argparse.ArgumentTypeError("--%s takes numbers: %s" % (what, ",".join(names)))


def active(args: Any) -> bool:
    return any(getattr(args, o[0][2:]) is not None for o in OPTIONS)


def describe(args: Any) -> str:
    """The filters given, as on the command line."""
    return " ".join(
        "%s %s" % (o[0], ",".join(getattr(args, o[0][2:])))
        for o in OPTIONS
        if getattr(args, o[0][2:]) is not None
    )


def predicate(args: Any) -> Callable[[RunAgg, Key], bool]:
    """Does a (pid, tid, dso, symbol) key pass the filters of args?"""
    pids, tids = _ids(args.pid, "pid"), _ids(args.tid, "tid")
    comms = set(args.comm) if args.comm is not None else None
    dsos = set(args.dso) if args.dso is not None else None
    syms = set(args.symbols) if args.symbols is not None else None

    def keep(run: RunAgg, key: Key) -> bool:
        pid, tid, dso, symbol = key
        if pids is not None and int(pid) not in pids:
            return False
        if tids is not None and int(tid) not in tids:
            return False
        if comms is not None and not comms & {run.comm(pid), run.thread_comm(pid, tid)}:
            return False
        if dsos is not None and not dsos & {dso, os.path.basename(dso), agg.dso_frame(dso)}:
            return False
        if syms is not None:
            shown = agg.dso_frame(dso) if agg.is_address(symbol) else symbol
            if not syms & {symbol, shown}:
                return False
        return True

    return keep


def apply(runs: list[RunAgg], args: Any) -> tuple[list[RunAgg], str | None]:
    """runs holding only what the filters keep, and the header line that
    says how much of the whole that is (None without filters)."""
    if not active(args):
        return runs, None
    keep = predicate(args)
    whole = sum(a[runagg.N] for run in runs for a in run.keys.values())
    runs = [agg.select(run, keep) for run in runs]
    kept = sum(a[runagg.N] for run in runs for a in run.keys.values())
    if not kept:
        raise SamplerError(
            "%s: no thread-sample passes %s (check the names: sampler-report --by "
            "process, thread or dso lists them)" % (" ".join(r.path for r in runs), describe(args))
        )
    line = "# %s: %d of %d thread-samples kept (%.2f%%); shares are of those" % (
        describe(args),
        kept,
        whole,
        100.0 * kept / whole if whole else 0.0,
    )
    return runs, line
