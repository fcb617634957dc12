"""sampler-compare - per-function change in time, energy and power."""

import math
import os
import sys
from typing import Sequence

from . import agg, calldiff, callread, cli, gate, job, metrics, stats, table

PROG = "sampler-compare"

DESCRIPTION = """\
Compare a base profile with a new one: per function (or --by dso, thread,
process) the change in CPU time (s), energy (J) and mean power (W) of every
energy or power channel, absolute and relative.

A change is flagged (+ for an increase, - for a decrease) when it lies
beyond the confidence interval of the difference AND is at least
--min-change percent.  With one run per side the interval comes from the
sampling statistics (compound-Poisson variance: sum of squares of the
per-sample CPU time or energy; ratio-estimator variance for power); with
several runs per side from the run-to-run spread (Welch, Student t).

Several NEW profiles are runs of the new build; --base-runs N makes the
first N profiles runs of the base (e.g. --base-runs 3 a1 a2 a3 b1 b2 b3).

The profiles of a parallel job (one per rank: sampler -o app.%r.prof) are
one run together: give them all, e.g. --base-runs 4 old.*.prof new.*.prof.
On each side the ranked profiles of one job id add up (each host's node
energy counted once and split between its ranks by CPU time); profiles of
several jobs on one side are runs of it.

--tree (one BASE and one NEW, recorded with -g): the same per call path,
inclusive: the CPU time and energy spent in each path and everything it
calls, base and new, the change and its flag; paths below --min-share
(default 1% here) of the samples in both are left out.

--fail-on cpu|energy (a CI job's gate): exit status 3, and one line on
stderr per regression, when a function's (--tree: a call path's) share of
CPU time or of a channel's energy grew beyond the --confidence intervals
of both profiles (the new interval lies above the base's), by at least
--min-change percent, to at least --min-share percent (default 1) of it
in the new profile.  Exit status: 0 no regression (or no --fail-on), 3 a
regression, 1 an error (as every sampler script), 2 a missing package."""

METRICS = (("cpu_s", "time", "s", "%.3f"),)


def parse_args(argv):
    p = cli.Parser(
        prog=PROG,
        description=DESCRIPTION,
        formatter_class=cli.argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("base", metavar="BASE")
    p.add_argument("new", nargs="+", metavar="NEW")
    p.add_argument(
        "--base-runs",
        type=cli.positive_int,
        default=1,
        metavar="N",
        help="the first N profiles are runs of the base (default 1)",
    )
    p.add_argument(
        "--by", choices=agg.BY_KINDS, default="function", help="group by (default function)"
    )
    p.add_argument(
        "--confidence",
        type=cli.confidence,
        default=0.95,
        metavar="LEVEL",
        help="confidence level for flagging (default 0.95)",
    )
    p.add_argument(
        "--min-change",
        type=float,
        default=5.0,
        metavar="PCT",
        help="flag only changes of at least PCT %% (default 5)",
    )
    p.add_argument(
        "--min-share",
        "--percent-limit",  # perf's name
        dest="min_share",
        type=cli.percent,
        default=None,
        metavar="PCT",
        help="hide functions below PCT %% of samples in both; --fail-on: gate only on "
        "those with PCT %% (default 1) of the quantity in NEW",
    )
    p.add_argument(
        "--fail-on",
        action="append",
        metavar="cpu|energy",
        help="exit status 3 when a function's share of CPU time or energy grew beyond "
        "both profiles' intervals (repeat, or cpu,energy)",
    )
    p.add_argument("--top", type=cli.positive_int, metavar="N", help="show only the first N rows")
    p.add_argument(
        "--sort",
        default="change",
        metavar="KEY",
        help="change (largest absolute time change, default), name, or a column name of --csv",
    )
    p.add_argument("--changed", action="store_true", help="show only flagged rows")
    p.add_argument(
        "--addresses",
        action="store_true",
        help="one row per unresolved address (default: one per library, [libfoo.so])",
    )
    cli.add_demangle_option(p)
    cli.add_energy_options(p)
    p.add_argument(
        "--tree", action="store_true", help="per call path, inclusive (profiles recorded with -g)"
    )
    cli.add_table_options(p)
    args = p.parse_args(argv)
    profiles = [args.base] + args.new
    if args.base_runs >= len(profiles):
        raise cli.SamplerError(
            "--base-runs %d leaves no NEW profile (give more profiles)" % args.base_runs
        )
    args.fail_on = gate.parse_kinds(args.fail_on)
    args.base_profiles = profiles[: args.base_runs]
    args.new_profiles = profiles[args.base_runs :]
    return args


def metric_list(runs):
    out = list(METRICS)
    for ch in runs[0].energy:
        out.append((ch["name"] + "_J", ch["name"] + " energy", "J", "%.3f"))
        out.append((ch["name"] + "_W", ch["name"] + " power", "W", "%.2f"))
    return out


def threshold(args, nbase, nnew):
    if nbase == 1 and nnew == 1:
        return stats.z_of(args.confidence)
    df = max(1, min(n for n in (nbase, nnew) if n > 1) - 1)
    return stats.t_quantile(args.confidence, df)


def compare_rows(base_rows, new_rows, mlist, args, thr):
    bmap = {(r["name"], r["dso"]): r for r in base_rows}
    nmap = {(r["name"], r["dso"]): r for r in new_rows}
    keys = list(bmap) + [k for k in nmap if k not in bmap]
    shares = ["cpu_share"] + [f[:-2] + "_share" for f, _, _, _ in mlist if f.endswith("_J")]
    out = []
    for key in keys:
        b, n = bmap.get(key), nmap.get(key)
        row = {
            "name": key[0],
            "dso": key[1],
            "base_share": b["share"] if b else 0.0,
            "new_share": n["share"] if n else 0.0,
        }
        for stem in shares:  # shares and their intervals, for --fail-on
            for end in ("", "_lo", "_hi"):
                row["base_" + stem + end] = b[stem + end] if b else 0.0
                row["new_" + stem + end] = n[stem + end] if n else 0.0
        changed = []
        for field, what, _, _ in mlist:
            bv = b[field] if b else 0.0
            nv = n[field] if n else 0.0
            bvar = b["_var"].get(field, math.nan) if b else 0.0
            nvar = n["_var"].get(field, math.nan) if n else 0.0
            row["base_" + field], row["new_" + field] = bv, nv
            delta = nv - bv if not (math.isnan(bv) or math.isnan(nv)) else math.nan
            row[field + "_delta"] = delta
            row[field + "_rel"] = 100 * delta / bv if bv and not math.isnan(delta) else math.nan
            flag = ""
            if not math.isnan(delta) and not math.isnan(bvar) and not math.isnan(nvar):
                rel = abs(row[field + "_rel"]) if bv else math.inf
                if stats.significant(bv, bvar, nv, nvar, thr) and rel >= args.min_change:
                    flag = "+" if delta > 0 else "-"
            row[field + "_flag"] = flag
            if flag:
                changed.append(what + flag)
        row["changed"] = " ".join(changed)
        out.append(row)
    return out


def fields_of(mlist, by):
    fields = ["name"] + (["dso"] if by == "function" else []) + ["base_share", "new_share"]
    for field, _, _, _ in mlist:
        fields += [
            "base_" + field,
            "new_" + field,
            field + "_delta",
            field + "_rel",
            field + "_flag",
        ]
    return fields + ["changed"]


def _rel(field):
    def show(row):
        rel = row[field + "_rel"]
        if rel != rel:
            return "new" if row["base_" + field] == 0 else "-"
        return "%+.1f%%" % rel

    return show


def text_columns(mlist, by):
    cols = [("name", by, "%s")]
    for field, _, unit, fmt in mlist:
        cols += [
            ("base_" + field, "base %s" % unit, fmt),
            ("new_" + field, "new %s" % unit, fmt),
            (field + "_delta", "Δ" + unit, fmt.replace("%", "%+")),
            (field + "_rel", "Δ%", _rel(field)),
            (field + "_flag", "!", "%s"),
        ]
    if by == "function":  # a function is (dso, symbol): an address means nothing without it
        cols.append(("dso", "dso", lambda r: os.path.basename(r["dso"]) or r["dso"]))
    return cols


def sort_rows(rows, key):
    if key == "change":
        rows.sort(key=lambda r: -abs(r["cpu_s_delta"]))
    elif key == "name":
        rows.sort(key=lambda r: r["name"])
    elif rows and key in rows[0]:
        rows.sort(
            key=lambda r: -(r[key] if isinstance(r[key], float) and r[key] == r[key] else -1e300)
        )
    else:
        raise cli.SamplerError(
            "unknown sort key %r (use change, name or a --csv column name)" % key
        )
    return rows


def _side(profiles, runs):
    if len(runs) < len(profiles):
        return "%s (%s)" % (" ".join(profiles), ", ".join(r.path for r in runs))
    return " ".join(profiles)


def text_header(args, base, new):
    nbase, nnew = len(base), len(new)
    return "# base: %s\n# new:  %s\n# ! = change beyond the %g%% interval (%s) and >= %g%%\n" % (
        _side(args.base_profiles, base),
        _side(args.new_profiles, new),
        100 * args.confidence,
        "sampling statistics" if nbase == nnew == 1 else "run-to-run spread",
        args.min_change,
    )


def run_tree(args):
    """--tree: inclusive changes per call path of two profiles."""
    if len(args.base_profiles) != 1 or len(args.new_profiles) != 1:
        raise cli.SamplerError("--tree compares one BASE with one NEW profile")
    extra = cli.export_args(args)
    base, channels = callread.load(args.base_profiles[0], PROG, extra_args=extra)
    new, new_channels = callread.load(args.new_profiles[0], PROG, extra_args=extra)
    if [c["name"] for c in channels] != [c["name"] for c in new_channels]:
        raise cli.SamplerError("the two profiles have different energy channels")
    quantities = ["cpu"] + [c["name"] for c in channels]
    min_share = 0.01 if args.min_share is None else args.min_share / 100
    rows = calldiff.compare(
        base,
        new,
        quantities,
        stats.z_of(args.confidence),
        args.min_change,
        min_share,
    )
    regressed = gate.regressions(
        rows, gate.quantities(args.fail_on, channels), True, 100 * min_share, args.min_change
    )
    if args.changed:
        rows = [r for r in rows if r["changed"]]
    if args.top:
        rows = rows[: args.top]
    fields = ["depth", "name", "path", "base_share", "new_share"]
    cols = [("name", "call path (inclusive)", lambda r: "  " * r["depth"] + r["name"])]
    for q in quantities:
        unit = "s" if q == "cpu" else "J"
        fields += ["base_" + q, "new_" + q, q + "_delta", q + "_rel", q + "_flag"]
        tag = "" if q == "cpu" else q + " "
        cols += [
            ("base_" + q, tag + "base " + unit, "%.3f"),
            ("new_" + q, tag + "new " + unit, "%.3f"),
            (q + "_delta", tag + "Δ" + unit, "%+.3f"),
            (q + "_rel", tag + "Δ%", _rel(q)),
            (q + "_flag", "!", "%s"),
        ]
    table.emit(
        args,
        fields + ["changed"],
        rows,
        lambda: {
            "base": args.base_profiles,
            "new": args.new_profiles,
            "view": "call tree",
            "confidence": args.confidence,
            "min_change": args.min_change,
        },
        # one profile, one run, per side
        lambda: text_header(args, args.base_profiles, args.new_profiles)
        + table.text(cols, rows, args=args),
    )
    return report(regressed, True)


def report(regressed, tree):
    """The gate's verdict: one line per regression on stderr, the status."""
    for reg in regressed:
        sys.stderr.write("%s: %s\n" % (PROG, gate.line(reg, tree)))
    return gate.STATUS if regressed else 0


def run(argv: Sequence[str]) -> int:
    args = parse_args(argv)
    if args.tree:
        return run_tree(args)
    extra = cli.export_args(args)
    base = [
        agg.load(p, PROG, use_cache=not args.no_cache, extra_args=extra)
        for p in args.base_profiles
    ]
    new = [
        agg.load(p, PROG, use_cache=not args.no_cache, extra_args=extra) for p in args.new_profiles
    ]
    agg.check_same_channels(base + new)
    base, new = job.split_jobs(base), job.split_jobs(new)
    mlist = metric_list(base)
    thr = threshold(args, len(base), len(new))
    rows = compare_rows(
        metrics.rows(base, args.by, args.confidence, args.addresses),
        metrics.rows(new, args.by, args.confidence, args.addresses),
        mlist,
        args,
        thr,
    )
    regressed = gate.regressions(
        rows,
        gate.quantities(args.fail_on, base[0].energy),
        False,
        1.0 if args.min_share is None else args.min_share,
        args.min_change,
    )
    rows = [
        r
        for r in sort_rows(rows, args.sort)
        if max(r["base_share"], r["new_share"]) >= (args.min_share or 0.0)
        and (r["changed"] or not args.changed)
    ]
    if args.top:
        rows = rows[: args.top]
    fields = fields_of(mlist, args.by)
    table.emit(
        args,
        fields,
        rows,
        lambda: {
            "base": args.base_profiles,
            "new": args.new_profiles,
            "by": args.by,
            "confidence": args.confidence,
            "min_change": args.min_change,
            "threshold": thr,
        },
        lambda: text_header(args, base, new)
        + table.text(text_columns(mlist, args.by), rows, args=args),
    )
    return report(regressed, False)


def main() -> int:
    return cli.run_main(PROG, run)
