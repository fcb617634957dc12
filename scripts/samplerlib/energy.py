"""sampler-report --accuracy: what the energy per function rests on, per
energy or power channel (docs/ACCURACY.md).

The exporter divides each meter reading by the trapezoid rule and says, in
its `# meter` lines, the meter's update interval (measured from how often
the readings change, or assumed), the delay it used, and how many sample
intervals saw no update.  From those: how far from where it belongs the
rule may place a reading's energy in time.  A misplacement of d seconds
moves |P_a - P_b| * d joules at each change from code a to code b, i.e.
a bias of about d / (the function's run length) of its energy.
"""

import math
from typing import Any, Sequence

from . import colprof


def meters(
    path: str, extra_args: Sequence[str] = ()
) -> tuple[dict[int, Any], list[dict[str, str]]]:
    """(channels by index, the `# meter` lines' fields) of a profile."""
    profile = colprof.open_profile(path, symbols=False, extra_args=extra_args)
    try:
        return {ch.index: ch for ch in profile.channels}, getattr(profile, "meters", [])
    finally:
        close = getattr(profile, "_close_quietly", None)
        if close:
            close()


def rows(path: str, extra_args: Sequence[str] = ()) -> list[dict[str, Any]]:
    """One dict per energy or power channel of the profile at path."""
    channels, lines = meters(path, extra_args)
    out = []
    for m in lines:
        ch = channels.get(int(m.get("index", -1)))
        update = float(m.get("update_ms", "nan"))
        delay = float(m.get("delay_ms", "0"))
        intervals = int(m.get("intervals", "0"))
        no_update = int(m.get("no_update", "0"))
        measured = m.get("measured") == "1"
        delay_measured = m.get("delay_measured") == "1"
        out.append(
            {
                "channel": ch.name if ch else m.get("index"),
                "update_ms": update,
                "update_measured": measured,
                "delay_ms": delay,
                "delay_measured": delay_measured,
                "intervals": intervals,
                "no_update_pct": 100.0 * no_update / intervals if intervals else math.nan,
                # random, per update: where in its interval it fell
                "placement_sd_ms": update / math.sqrt(12),
                # systematic: an assumed interval may be off by half itself
                "placement_bias_ms": 0.0 if measured else update / 2,
            }
        )
    return out


def text(path: str, extra_args: Sequence[str] = ()) -> str:
    found = rows(path, extra_args)
    if not found:
        return "%s: no energy or power channel (record with -p rapl or another meter)\n" % path
    lines = [
        "# %s: energy accuracy (docs/ACCURACY.md; rule trapezoid)" % path,
        "%-16s %10s %9s %9s %9s %9s %10s %12s %12s"
        % ("channel", "update_ms", "measured", "delay_ms", "delay_is", "intervals",
           "no_update%", "place_sd_ms", "place_bias_ms"),
    ]
    for r in found:
        lines.append(
            "%-16s %10.3f %9s %9.3f %9s %9d %10.1f %12.3f %12.3f"
            % (r["channel"], r["update_ms"], "yes" if r["update_measured"] else "assumed",
               r["delay_ms"], "fitted" if r["delay_measured"] else "given/0", r["intervals"],
               r["no_update_pct"], r["placement_sd_ms"], r["placement_bias_ms"])
        )
    lines.append(
        "# expected bias of a function's energy: about place_bias_ms (plus any error in "
        "delay_ms) / its run length in ms, times |P_before - P_after| / P"
    )
    return "\n".join(lines) + "\n"
