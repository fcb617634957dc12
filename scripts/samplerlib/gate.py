"""sampler-compare --fail-on: the regressions a CI job gates on.

A function (or call path) regressed in a quantity (CPU time, or the
energy of a channel) when its share of that quantity in the new profile
lies above the confidence interval of its share in the base, and the two
intervals (stats.wilson, stats.ratio_share: computed by metrics.rows and
callpaths.shares) do not overlap; it must also hold at least min_share
percent of the quantity in the new profile, and its share have grown by
at least min_change percent, so that noise in small functions does not
gate.  A share, not a total: two runs of one program last differently.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from .cli import SamplerError

KINDS = ("cpu", "energy")
STATUS = 3  # 1 and 2 are every script's errors (cli.py)


def parse_kinds(values: Sequence[str] | None) -> list[str]:
    """The kinds of --fail-on (repeated, or comma lists), in KINDS' order."""
    kinds = set()
    for value in values or ():
        for kind in value.split(","):
            kind = kind.strip()
            if kind not in KINDS:
                raise SamplerError(
                    "--fail-on %r: unknown quantity (use cpu, energy or cpu,energy)" % kind
                )
            kinds.add(kind)
    return [k for k in KINDS if k in kinds]


def quantities(kinds: Sequence[str], channels: Sequence[Mapping[str, str]]) -> list[str]:
    """The quantities gated: "cpu" and every energy channel's name."""
    out = ["cpu"] if "cpu" in kinds else []
    if "energy" in kinds:
        if not channels:
            raise SamplerError(
                "--fail-on energy: the profiles have no energy channel (record with -p, "
                "or gate on cpu only)"
            )
        out += [ch["name"] for ch in channels]
    return out


def share_fields(q: str, tree: bool) -> str:
    """The row fields' stem of q's share: cpu_share, package-0_share (the
    function rows of metrics.rows), cpu_sh, package-0_sh (calldiff's)."""
    return q + ("_sh" if tree else "_share")


def regressions(
    rows: Sequence[Mapping[str, Any]],
    qs: Sequence[str],
    tree: bool,
    min_share: float,
    min_change: float,
) -> list[dict[str, Any]]:
    """The regressions among compared rows, each with base_*, new_* rows'
    share (percent) and interval of the quantity.  min_share, min_change:
    percent."""
    out = []
    for row in rows:
        for q in qs:
            f = share_fields(q, tree)
            b, n = row.get("base_" + f), row.get("new_" + f)
            if b is None or n is None:
                continue
            b_hi, n_lo = row["base_%s_hi" % f], row["new_%s_lo" % f]
            if n < min_share or n_lo <= b_hi:
                continue
            if b > 0 and 100 * (n - b) / b < min_change:
                continue
            out.append({"row": row, "quantity": q, "field": f})
    return out


def line(reg: Mapping[str, Any], tree: bool) -> str:
    """One line naming a regression: what, where, the shares and intervals."""
    row, q, f = reg["row"], reg["quantity"], reg["field"]
    what = "CPU time" if q == "cpu" else q + " energy"
    where = row["path"] if tree else row["name"]
    if not tree and row.get("dso"):
        where += " (%s)" % row["dso"].rsplit("/", 1)[-1]
    return "regression: %s: %s share %.2f%% [%.2f, %.2f] -> %.2f%% [%.2f, %.2f]" % (
        where,
        what,
        row["base_" + f],
        row["base_%s_lo" % f],
        row["base_%s_hi" % f],
        row["new_" + f],
        row["new_%s_lo" % f],
        row["new_%s_hi" % f],
    )
