"""Per-group metrics over one or several runs: the rows that sampler-report
prints and sampler-compare compares.

Row fields (shares in %, times in s, energy in J, power in W):
  name, dso, samples, share, share_lo, share_hi, cpu_s, cpu_share, cpu_share_lo, cpu_share_hi,
  <ch>_J, <ch>_share, <ch>_share_lo, <ch>_share_hi, <ch>_W   per energy/power channel
  <ch>_A / <ch>_V                                               mean current/voltage reading
  <ch>                                                          counter events
and for several runs <field>_sd, the standard deviation across runs.
row["_var"][field] is the variance of the (mean) value, for comparisons:
across runs when there are several, else from the sampling statistics.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

from . import agg, runagg, stats
from .runagg import Channel, Key, RunAgg

Row = dict[str, Any]


def channel_fields(
    runs: Sequence[RunAgg],
) -> tuple[list[Channel], list[Channel], list[Channel]]:
    first = runs[0]
    return first.energy, first.readings, first.counters


def _per_run_values(acc: Sequence[float], tot: Sequence[float], run: RunAgg) -> dict[str, float]:
    """Plain values of one group in one run (0 when absent)."""
    v = {}
    v["samples"] = acc[runagg.N]
    v["share"] = 100 * agg.safe_div(acc[runagg.N], tot[runagg.N])
    v["cpu_s"] = acc[runagg.CPU]
    v["cpu_share"] = 100 * agg.safe_div(acc[runagg.CPU], tot[runagg.CPU])
    for j, ch in enumerate(run.energy):
        off = runagg.BASE + runagg.PER_ENERGY * j
        name = ch["name"]
        v[name + "_J"] = acc[off + runagg.E]
        v[name + "_share"] = 100 * agg.safe_div(acc[off + runagg.E], tot[off + runagg.E])
        v[name + "_W"] = agg.nan_if_zero(acc[off + runagg.SE], acc[off + runagg.SW])
    for k, ch in enumerate(run.readings):
        off = run.off_reading(k)
        v["%s_%s" % (ch["name"], ch["unit"])] = agg.nan_if_zero(acc[off], acc[off + 1])
    for m, ch in enumerate(run.counters):
        v[ch["name"]] = acc[run.off_counter(m)]
    return v


def _sampling_var(acc: Sequence[float], run: RunAgg) -> dict[str, float]:
    """Variance of one run's totals from the sampling (compound Poisson)."""
    var = {"samples": acc[runagg.N], "cpu_s": acc[runagg.CPU2]}
    for j, ch in enumerate(run.energy):
        off = runagg.BASE + runagg.PER_ENERGY * j
        var[ch["name"] + "_J"] = acc[off + runagg.E2] + acc[off + runagg.EV]
        sw = acc[off + runagg.SW]
        if sw > 0:
            p = acc[off + runagg.SE] / sw
            num = (
                acc[off + runagg.SE2]
                - 2 * p * acc[off + runagg.SEW]
                + p * p * acc[off + runagg.SW2]
            )
            var[ch["name"] + "_W"] = max(0.0, num) / (sw * sw)
        else:
            var[ch["name"] + "_W"] = math.nan
    return var


def rows(
    runs: Sequence[RunAgg], by: str, confidence: float, addresses: bool = False
) -> list[Row]:
    """The rows for runs (all of the same program), sorted by samples."""
    z = stats.z_of(confidence)
    single = len(runs) == 1
    grouped = [agg.group(run, by, single, addresses) for run in runs]
    tots = [agg.totals(run) for run in runs]
    width = runs[0].width
    keys: dict[Key, tuple[str, str]] = {}
    for groups, labels in grouped:
        for gk in groups:
            keys.setdefault(gk, labels[gk])
    zero = [0.0] * width
    pooled_tot = [sum(t[i] for t in tots) for i in range(width)]
    out = []
    for gk, (name, dso) in keys.items():
        accs = [g[0].get(gk, zero) for g in grouped]
        per_run = [_per_run_values(acc, tot, run) for acc, tot, run in zip(accs, tots, runs)]
        pooled = [sum(a[i] for a in accs) for i in range(width)]
        row: Row = {"name": name, "dso": dso}
        var: dict[str, float] = {}
        for field in per_run[0]:
            vals = [
                v[field]
                for v in per_run
                if not (isinstance(v[field], float) and math.isnan(v[field]))
            ]
            m, sd = stats.mean_sd(vals) if vals else (math.nan, None)
            row[field] = m
            if not single:
                row[field + "_sd"] = sd
                var[field] = (sd * sd / len(vals)) if sd is not None else math.nan
        if single:
            var = _sampling_var(accs[0], runs[0])
        row["_var"] = var
        lo, hi = stats.wilson(pooled[runagg.N], pooled_tot[runagg.N], z)
        row["share_lo"], row["share_hi"] = 100 * lo, 100 * hi
        _, lo, hi = stats.ratio_share(
            pooled[runagg.CPU],
            pooled[runagg.CPU2],
            pooled_tot[runagg.CPU],
            pooled_tot[runagg.CPU2],
            z,
        )
        row["cpu_share_lo"], row["cpu_share_hi"] = 100 * lo, 100 * hi
        for j, ch in enumerate(runs[0].energy):
            off = runagg.BASE + runagg.PER_ENERGY * j
            _, lo, hi = stats.ratio_share(
                pooled[off + runagg.E],
                pooled[off + runagg.E2],
                pooled_tot[off + runagg.E],
                pooled_tot[off + runagg.E2],
                z,
                pooled[off + runagg.EV],
            )
            row[ch["name"] + "_share_lo"], row[ch["name"] + "_share_hi"] = 100 * lo, 100 * hi
        out.append(row)
    out.sort(key=lambda r: (-r["samples"], r["name"]))
    return out


def total_row(runs: Sequence[RunAgg]) -> Row:
    """Whole-profile totals (mean over runs) for the table's last line."""
    vals = [_per_run_values(agg.totals(run), agg.totals(run), run) for run in runs]
    row: Row = {"name": "total", "dso": ""}
    for field in vals[0]:
        row[field] = sum(v[field] for v in vals) / len(vals)
    return row
