"""sampler-report --accuracy: what the energy per function rests on, per
energy or power channel (docs/ENERGY.md).

The exporter divides each meter reading by the trapezoid rule and says, in
its `# meter` lines, the meter's update interval (measured from how often
the readings change, or assumed), the delay it used, and how many sample
intervals saw no update.  From those: how far from where it belongs the
rule may place a reading's energy in time.  A misplacement of d seconds
moves |P_a - P_b| * d joules at each change from code a to code b, i.e.
a bias of about d / (the function's run length) of its energy.

Beside the meters: how long each function runs at a time, in sampling
intervals (a run: consecutive samples of one thread in it).  Where the
code changes within an interval the rule knows only that it changed, not
where; a function whose runs average under SHORT_RUN intervals has its
energy mostly from such intervals, and no rule resolves it at that rate.
A function whose runs are shorter than a meter's update interval and
under COARSE_RUN sampling intervals is marked coarse: a reading then covers
several runs whose ends are each known to a sampling interval, and the
powers fitted per code are pulled toward each other, its energy with them,
beyond its interval (docs/ENERGY.md).

A power meter's reading stands for its last period only: where the
sampler's intervals were longer than the meter's update, the updates
before the last one in each reached no reading (missed%), and their
energy is the fitted powers' estimate.  Above MISSED_PCT the report says
to poll the meter (scpi's poll_hz=) or read its energy count.

A long interval (the recorder got no CPU for many sampling intervals) is
no single change of code: the rule gives its middle's energy to the
profile's mix of code, and the report says how many and how long.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

from . import colprof

SHORT_RUN = 2.0  # sampling intervals: below, a function's energy is not resolved
# sampling intervals: a run shorter than the meter's update and than this
# may have its fitted power pulled toward its neighbours' (simulated 0.5 ms
# phases on a 1 ms RAPL, the change points shaped: gamma +4.8% at 2.3
# intervals a run, +2.4% at 5.5; docs/ENERGY.md, "Runs of a few
# intervals")
COARSE_RUN = 10.0
LISTED_SHARE = 1.0  # % of the samples: functions below it are not listed
# % of a power meter's updates no reading saw: above, the report says to
# poll it (t2120's meter under two busy loops, 10 runs: 1-26% missed, and
# the runs with 17-20% were those 4-9% off)
MISSED_PCT = 5.0


def rows(profile: Any) -> list[dict[str, Any]]:
    """One dict per energy or power channel of an open profile (its head's
    `# meter` lines)."""
    channels = {ch.index: ch for ch in profile.channels}
    out = []
    for m in getattr(profile, "meters", []):
        ch = channels.get(int(m.get("index", -1)))
        update = float(m.get("update_ms", "nan"))
        delay = float(m.get("delay_ms", "0"))
        intervals = int(m.get("intervals", "0"))
        no_update = int(m.get("no_update", "0"))
        measured = m.get("measured") == "1"
        delay_measured = m.get("delay_measured") == "1"
        # taken from the plug-in's declaration (not an export option's)
        update_declared = not measured and ch is not None and ch.update_ms == update
        delay_declared = not delay_measured and ch is not None and ch.delay_ms == delay
        out.append(
            {
                "channel": ch.name if ch else m.get("index"),
                "update_ms": update,
                "update_measured": measured,
                "update_declared": update_declared,
                "delay_ms": delay,
                "delay_measured": delay_measured,
                "delay_declared": delay_declared,
                "intervals": intervals,
                "no_update_pct": 100.0 * no_update / intervals if intervals else math.nan,
                "missed_pct": 100.0 * float(m.get("missed", "0")),
                "long": int(m.get("long", "0")),
                "long_ms": float(m.get("long_ms", "0")),
                "longest_ms": float(m.get("longest_ms", "nan")),
                "placed_pct": 100.0 * float(m.get("placed", "0")),
                "ran_pct": 100.0 * float(m.get("ran", "0")),
                "power": ch is not None and ch.kind == "power",
                # random, per update: where in its interval it fell
                "placement_sd_ms": update / math.sqrt(12),
                # systematic: an assumed interval may be off by half itself
                "placement_bias_ms": 0.0 if measured or update_declared else update / 2,
            }
        )
    return out


def runs(profile: Any) -> list[dict[str, Any]] | None:
    """Per function (dso, symbol) of an open profile, read to its end: its
    samples, its runs and their mean length in sampling intervals in which
    the thread ran (a thread that waits for a CPU is sampled at its PC,
    and those samples resolve nothing) and in ms of wall time, most
    samples first; None for a CSV without symbols (a PC changes at nearly
    every sample)."""
    fields, exit_kind = profile.key_fields, profile.exit_kind
    if fields == ("pc",):
        return None
    last: dict[int, tuple] = {}  # tid -> its function at its last sample
    seen: dict[tuple, list] = {}  # function -> [samples, runs, wall ns, samples it ran]
    # tid -> the counts of its last sample, until a row says it ran: with
    # clock samples a thread-sample keeps only the CPU time they did not
    # take (often 0), the rest comes in the cpu rows right after it, which
    # the readers give the exit kind
    unran: dict[int, list] = {}
    for arr in profile.blocks():
        keys = list(zip(*(arr[f].tolist() for f in fields)))
        kinds = arr["kind"].tolist() if exit_kind is not None else [None] * len(arr)
        for tid, key, kind, wall, cpu in zip(
            arr["tid"].tolist(), keys, kinds, arr["wall_delta_ns"].tolist(),
            arr["cpu_delta_ns"].tolist()
        ):
            if exit_kind is not None and kind == exit_kind:
                s = unran.pop(tid, None)  # a clock sample, or the thread's tail
                if s is not None and cpu > 0:
                    s[3] += 1
                elif s is not None:
                    unran[tid] = s
                continue
            s = seen.setdefault(key, [0, 0, 0.0, 0])
            s[0] += 1
            s[2] += wall
            if cpu > 0:
                s[3] += 1
                unran.pop(tid, None)
            else:
                unran[tid] = s
            if last.get(tid) != key:
                s[1] += 1
                last[tid] = key
    total = sum(s[0] for s in seen.values()) or 1
    out = []
    for key, (samples, count, wall, ran) in seen.items():
        dso, function = profile.key_names(key)
        out.append(
            {
                "dso": dso,
                "function": function,
                "samples": samples,
                "share": 100.0 * samples / total,
                "runs": count,
                "mean_run": ran / count,
                "mean_run_ms": wall * 1e-6 / count,
            }
        )
    return sorted(out, key=lambda r: -r["samples"])


def runs_line(meter: dict[str, Any]) -> str:
    """Whether the profile says where in its intervals the threads ran,
    and how much of them that was (docs/ENERGY.md, "Where in its
    interval a thread ran")."""
    if meter["placed_pct"] <= 0:
        return (
            "# where: the profile does not say where in its intervals the threads "
            "ran (recorded with --stop-all or by an older sampler): their CPU time "
            "is spread over each interval, which leans on a loaded machine "
            "(docs/ENERGY.md)"
        )
    return (
        "# where: %.1f%% of the CPU time placed where its threads ran in their "
        "intervals (their switches); they ran in %.0f%% of those intervals' time%s"
        % (meter["placed_pct"], meter["ran_pct"],
           " (the rest they waited: for a CPU on a loaded machine, or blocked)"
           if meter["ran_pct"] < 90 else "")
    )


def text(path: str, extra_args: Sequence[str] = ()) -> str:
    """The report of one profile, opened once: its meters from the head,
    its functions' runs from the rows."""
    profile = colprof.open_profile(path, symbols=True, extra_args=extra_args)
    try:
        return _text(path, profile)
    finally:
        close = getattr(profile, "_close_quietly", None)
        if close:
            close()


def _text(path: str, profile: Any) -> str:
    found = rows(profile)
    if not found:
        return "%s: no energy or power channel (record with -p rapl or another meter)\n" % path
    lines = [
        "# %s: energy accuracy (docs/ENERGY.md; rule trapezoid)" % path,
        "%-16s %10s %9s %9s %9s %9s %10s %12s %12s %8s"
        % ("channel", "update_ms", "measured", "delay_ms", "delay_is", "intervals",
           "no_update%", "place_sd_ms", "place_bias_ms", "missed%"),
    ]
    for r in found:
        update_is = "declared" if r["update_declared"] else "assumed"
        delay_is = "declared" if r["delay_declared"] else "given/0"
        lines.append(
            "%-16s %10.3f %9s %9.3f %9s %9d %10.1f %12.3f %12.3f %8s"
            % (r["channel"], r["update_ms"], "yes" if r["update_measured"] else update_is,
               r["delay_ms"], "fitted" if r["delay_measured"] else delay_is, r["intervals"],
               r["no_update_pct"], r["placement_sd_ms"], r["placement_bias_ms"],
               "%.1f" % r["missed_pct"] if r["power"] else "-")
        )
    lines.append(
        "# expected bias of a function's energy: about place_bias_ms (plus any error in "
        "delay_ms) / its run length in ms, times |P_before - P_after| / P"
    )
    for r in found:
        if r["power"] and r["missed_pct"] > MISSED_PCT:
            lines.append(
                "# missed: %.1f%% of %s's updates reached no reading (the sampling "
                "intervals were longer than its update, %.3f ms): their energy is the "
                "fitted powers' estimate; poll the meter (-p scpi:...,poll_hz=N, N at "
                "least twice its rate) or read its energy count (docs/PLUGINS.md)"
                % (r["missed_pct"], r["channel"], r["update_ms"])
            )
    if found[0]["long"]:
        one = found[0]["long"] == 1
        lines.append(
            "# long: %d sampling %s, the longest %.1f ms: the recorder got no CPU "
            "for that long (a loaded or stolen CPU; it runs at a real-time priority "
            "when permitted); the energy of %.1f ms in the middle of %s went to the "
            "profile's mix of code, not to the code at %s ends (docs/ENERGY.md)"
            % (found[0]["long"], "interval" if one else "intervals",
               found[0]["longest_ms"], found[0]["long_ms"], "it" if one else "them",
               "its" if one else "their")
        )
    lines.append(runs_line(found[0]))
    found_runs = runs(profile)
    if found_runs is None:
        lines.append("# runs per function: this CSV has no symbols (export it with --symbols)")
        return "\n".join(lines) + "\n"
    listed = [r for r in found_runs if r["share"] >= LISTED_SHARE]
    update_ms = max((r["update_ms"] for r in found if r["update_ms"] > 0), default=0.0)
    lines.append(
        "%-24s %9s %7s %8s %10s %12s"
        % ("function", "samples", "share%", "runs", "mean_run", "mean_run_ms")
    )
    short, coarse = [], []
    for r in listed:
        flags = ""
        if r["mean_run"] < SHORT_RUN:
            short.append(r["function"])
            flags += "  short"
        if r["mean_run_ms"] < update_ms and r["mean_run"] < COARSE_RUN:
            coarse.append(r["function"])
            flags += "  coarse"
        lines.append(
            "%-24s %9d %7.1f %8d %10.2f %12.3f%s"
            % (r["function"], r["samples"], r["share"], r["runs"], r["mean_run"],
               r["mean_run_ms"], flags)
        )
    if short:
        lines.append(
            "# short: %s %s under %g sampling intervals at a time: where in an interval "
            "the code changed is unknown, so %s energy is not resolved at this rate; "
            "record with a higher -f (docs/ENERGY.md)"
            % (", ".join(short), _verb(short), SHORT_RUN, _their(short))
        )
    if coarse:
        lines.append(
            "# coarse: %s %s shorter than the meter's update (%.3f ms) and under %g "
            "sampling intervals at a time: a reading covers several runs, the fitted "
            "powers are pulled toward each other, and %s energy may be off by more than "
            "%s interval; record with a higher -f or a faster meter (docs/ENERGY.md)"
            % (", ".join(coarse), _verb(coarse), update_ms, COARSE_RUN, _their(coarse),
               _their(coarse))
        )
    return "\n".join(lines) + "\n"


def _verb(names: list[str]) -> str:
    return "runs" if len(names) == 1 else "run"


def _their(names: list[str]) -> str:
    return "its" if len(names) == 1 else "their"
