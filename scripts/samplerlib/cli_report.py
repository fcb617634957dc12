"""sampler-report - flat profile of one or several sampler profiles."""

import functools
import operator
import os
from typing import Sequence

from . import (agg, callpaths, callread, callrows, cli, filters, job, metrics, reduce,
               runagg, stats, table)
from .escape import display_lines

PROG = "sampler-report"

DESCRIPTION = """\
Flat profile per function (default), DSO, thread or process: samples and
their share of all thread-samples (blocked threads included: where the
threads were), CPU time and its share, and for every energy or power channel
the energy (J), energy share and mean power (W) while in that function.
Rows are ordered by --weight: CPU time by default, as perf; samples orders
by thread-samples (the wall view).  A stripped library's unresolved
addresses are one row per library, [libfoo.so] (--addresses: one each).

Confidence intervals (--confidence, default 95%): the sample share uses the
Wilson score interval of a binomial proportion (k of n thread-samples); the
energy share (and the CPU-time share, --csv/--json) uses the normal interval
of the ratio estimator sum(e_i in f)/sum(e_i), whose variance is
sum e_i^2 (1[f]-s)^2 / (sum e_i)^2 (the binomial interval again when all
samples carry equal energy).

Several PROFILEs of the same program aggregate into one: each value is the
mean across runs, with its standard deviation (sd) across runs; intervals
are computed from the pooled samples.

The profiles of one parallel job (one per rank: sampler -o app.%r.prof
under mpirun or srun) report per rank, host or profile with --by rank|host|
profile, and any view of them says the job, its load imbalance (max/mean of
the ranks' CPU time and energy) and its slowest rank.  Ranks on one host
share its energy counters: each host's energy is counted once and split
between its ranks by CPU time.

PROFILE is a sampler profile (native or original layout, plain or .bz2) or a
CSV written by `sampler-export --format csv --symbols`.  Results are cached
per profile content under ~/.cache/sampler/report (--no-cache to skip).

Profiles recorded with -g: --tree prints the call tree, each call path
with its inclusive share (samples, CPU time, energy; intervals as above)
and self share, heaviest in --weight (or --sort) first; --callers FUNC the
paths that lead to FUNC (FUNC at the top, its callers below it), --callees
FUNC what FUNC calls (merged over every call of FUNC; a recursion counts
once).  Several profiles (the ranks of a job) make one tree; --by rank|
host|profile puts a frame naming each first.  Paths below --min-share
(default 1% here) are left out."""


def parse_args(argv):
    p = cli.Parser(
        prog=PROG,
        description=DESCRIPTION,
        formatter_class=cli.argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("profiles", nargs="+", metavar="PROFILE")
    p.add_argument(
        "--by",
        type=by_kinds,
        default=None,
        metavar="KIND[,KIND]",
        help="group by function (default), dso, thread or process; rank, host or profile "
        "(the profiles of a job); or one of each, e.g. rank,function; or process or "
        "thread, then function or dso, e.g. process,function",
    )
    filters.add_options(p)
    tree = p.add_mutually_exclusive_group()
    tree.add_argument("--tree", action="store_true", help="call tree (profiles recorded with -g)")
    tree.add_argument("--callers", metavar="FUNC", help="the call paths that lead to FUNC")
    tree.add_argument("--callees", metavar="FUNC", help="what FUNC calls, merged over its calls")
    p.add_argument(
        "--min-share",
        "--percent-limit",
        dest="min_share",
        type=cli.percent,
        default=None,
        metavar="PCT",
        help="hide rows whose sample, CPU-time and energy shares are all below PCT %% "
        "(--percent-limit: perf's name; the report says how many it hid)",
    )
    p.add_argument("--top", type=cli.positive_int, metavar="N", help="show only the first N rows")
    cli.add_weight_option(p, "the rows' order")
    p.add_argument(
        "--sort",
        default=None,
        metavar="KEY",
        help="samples, cpu, energy, power, name, or a column name of --csv "
        "such as package-0_J (numbers sort descending; default: --weight's)",
    )
    p.add_argument(
        "--addresses",
        action="store_true",
        help="one row per unresolved address (default: one per library, [libfoo.so])",
    )
    cli.add_demangle_option(p)
    cli.add_energy_options(p)
    p.add_argument(
        "--accuracy",
        action="store_true",
        help="per energy channel: the meter's update interval and delay, the share of "
        "intervals without an update, and the expected bias (docs/ENERGY.md)",
    )
    cli.add_table_options(p)
    p.add_argument(
        "-j",
        "--jobs",
        type=cli.positive_int,
        default=None,
        metavar="N",
        help="read the profiles in N processes (default: one per CPU)",
    )
    p.add_argument(
        "--mpi",
        action="store_true",
        help="one process of an MPI program (mpirun -np K sampler-report --mpi ...; "
        "the default under mpirun): each reads its share of the profiles, rank 0 prints",
    )
    p.add_argument(
        "--verbose",
        action="store_true",
        help="the profiles of a job one line each in the header (default: the job's summary)",
    )
    p.add_argument(
        "--confidence",
        type=cli.confidence,
        default=0.95,
        metavar="LEVEL",
        help="confidence level of the intervals (default 0.95)",
    )
    args = p.parse_args(argv)
    if args.by is None:  # the default: by function, or the tree as it is
        tree = args.tree or args.callers is not None or args.callees is not None
        args.by = (None, None) if tree else by_kinds("function")
    args.job_by, args.row_by = args.by[:2]
    args.split_by = args.by[2] if len(args.by) > 2 else None
    args.by = ",".join(k for k in args.by if k)
    args.hidden = 0
    if args.sort is None:
        args.sort = args.weight
    return args


SPLIT_KINDS = ("process", "thread")  # --by process,function: a flat profile of each


def by_kinds(text):
    """--by: (job kind or None, row kind or None[, process or thread])."""
    job_by = row_by = None
    parts = text.split(",")
    if len(parts) == 2 and parts[0] in SPLIT_KINDS and parts[1] in ("function", "dso"):
        return None, parts[1], parts[0]
    for k in parts:
        if k in job.JOB_KINDS and job_by is None:
            job_by = k
        elif k in agg.BY_KINDS and row_by is None:
            row_by = k
        else:
            break
    else:
        if len(parts) <= 2:
            return job_by, row_by
    raise cli.argparse.ArgumentTypeError(
        "%r: give one of %s, or one of %s, or one of each (e.g. rank,function), "
        "or process or thread then function or dso (e.g. process,function)"
        % (text, ", ".join(agg.BY_KINDS), ", ".join(job.JOB_KINDS))
    )


def sort_rows(rows, key, runs):
    energy = runs[0].channel_names()
    aliases = {"cpu": "cpu_s", "time": "cpu_s"}
    if energy:
        aliases["energy"] = energy[0] + "_J"
        aliases["power"] = energy[0] + "_W"
    field = aliases.get(key, key)
    if field.startswith("energy:"):
        field = field[7:] + "_J"
    if field == "name":
        rows.sort(key=lambda r: r["name"])
        return rows
    if field not in rows[0]:
        known = ["samples", "cpu", "name"] + (["energy", "power"] if energy else [])
        known += [f for f in rows[0] if f not in known and f not in ("name", "dso", "_var")]
        known = ", ".join(known)
        raise cli.SamplerError("unknown sort key %r (use one of: %s)" % (key, known))
    rows.sort(key=lambda r: (-_sortable(r[field]), r["name"]))
    return rows


def _sortable(v):
    """v for ordering: NaN and None last; 12 significant digits, so that
    equal sums added in another order (CSV or columns) tie, and the name
    decides."""
    if v is None or v != v:
        return -1e300
    return float("%.12g" % v)


def filter_rows(rows, args, runs):
    """The rows --min-share (--percent-limit) and --top keep; args.hidden
    counts those the share limit hid."""
    shares = ["share", "cpu_share"] + [c + "_share" for c in runs[0].channel_names()]
    kept = [r for r in rows if max(r[s] for s in shares) >= (args.min_share or 0.0)]
    args.hidden += len(rows) - len(kept)
    return kept[: args.top] if args.top else kept


def filter_lines(args):
    """The header lines of the filters and the share limit."""
    lines = [args.filtered] if args.filtered else []
    if args.hidden:
        lines.append(
            "# %d rows below %g%% hidden (--percent-limit, --min-share)"
            % (args.hidden, args.min_share)
        )
    return "".join(line + "\n" for line in lines)


def fields_of(runs, by, several):
    energy, readings, counters = metrics.channel_fields(runs)
    fields = ["name"] + (["dso"] if by == "function" else [])
    fields += [
        "samples",
        "share",
        "share_lo",
        "share_hi",
        "cpu_s",
        "cpu_share",
        "cpu_share_lo",
        "cpu_share_hi",
    ]
    for ch in energy:
        n = ch["name"]
        fields += [n + "_J", n + "_share", n + "_share_lo", n + "_share_hi", n + "_W"]
    fields += ["%s_%s" % (ch["name"], ch["unit"]) for ch in readings]
    fields += [ch["name"] for ch in counters]
    if several:
        fields += [
            f + "_sd"
            for f in fields
            if f not in ("name", "dso") and not f.endswith(("_lo", "_hi"))
        ]
    return fields


def _pm(field, fmt, several):
    """Format "mean" or "mean±sd" for several runs."""

    def show(row):
        text = fmt % row[field]
        sd = row.get(field + "_sd")
        if several and sd is not None:
            text += "±" + (fmt % sd).strip()
        return text

    return show


def _ci(lo, hi):
    return lambda row: "%.1f-%.1f" % (row[lo], row[hi])


def text_columns(runs, by, several, confidence):
    energy, readings, counters = metrics.channel_fields(runs)
    ci = "%g%%ci" % (100 * confidence)
    heading = {"function": "function", "dso": "dso", "thread": "thread", "process": "process"}[by]
    cols = [("name", heading, "%s")]
    cols += [
        ("samples", "samples", _pm("samples", "%.0f", several)),
        ("share", "share%", _pm("share", "%.1f", several)),
        ("share_lo", ci, _ci("share_lo", "share_hi")),
        ("cpu_s", "cpu s", _pm("cpu_s", "%.3f", several)),
        ("cpu_share", "cpu%", _pm("cpu_share", "%.1f", several)),
    ]
    for ch in energy:
        n = ch["name"]
        tag = (n + " ") if len(energy) > 1 else ""  # one channel: its name heads the J column only
        cols += [
            (n + "_J", n + " J", _pm(n + "_J", "%.3f", several)),
            (n + "_share", tag + "E%", _pm(n + "_share", "%.1f", several)),
            (n + "_share_lo", tag + "E" + ci, _ci(n + "_share_lo", n + "_share_hi")),
            (n + "_W", tag + "W", _pm(n + "_W", "%.2f", several)),
        ]
    for ch in readings:
        f = "%s_%s" % (ch["name"], ch["unit"])
        cols.append((f, "%s %s" % (ch["name"], ch["unit"]), _pm(f, "%.3f", several)))
    for ch in counters:
        cols.append((ch["name"], ch["name"], _pm(ch["name"], "%.0f", several)))
    if by == "function":
        cols.append(("dso", "dso", lambda r: os.path.basename(r["dso"]) or r["dso"]))
    return cols


def header_lines(runs, args):
    lines = []
    each = args.verbose or not job.is_job(runs)  # a job: its summary, not a list
    for run in runs if each else ():
        st = run.stats
        wall = (
            "wall %.3f s" % (float(st["wall"]) * 1e-9)
            if st.get("wall")
            else "truncated (no end statistics)"
        )
        lines.append(
            "# %s: %d samples, %d thread-samples, %s, host %s"
            % (
                run.path,
                run.samples,
                sum(a[runagg.N] for a in run.keys.values()),
                wall,
                run.host.get("hostname", "?"),
            )
        )
        for name, n in sorted(run.refused.items()):
            lines.append(
                "# %s: %s: %d meter readings refused, not counted (docs/PLUGINS.md)"
                % (run.path, name, n)
            )
    if job.is_job(runs):
        lines += job.header_lines(runs)
        refused: dict[str, int] = {}
        for run in runs if not each else ():
            for name, n in run.refused.items():
                refused[name] = refused.get(name, 0) + n
        for name, n in sorted(refused.items()):
            lines.append(
                "# %s: %d meter readings refused over the job, not counted (docs/PLUGINS.md; "
                "--verbose: by profile)" % (name, n)
            )
    if job.is_job(runs) and args.row_by:
        within = ""
        if args.job_by:
            within = " within each %s: shares are of the %s" % (args.job_by, args.job_by)
        lines.append("# the job's profiles add up" + within)
    elif len(runs) > 1 and not args.job_by:
        lines.append("# %d runs aggregated: values are means, ±sd across runs" % len(runs))
    lines.append(
        "# share intervals: %g%% (Wilson for samples, ratio estimator for energy)"
        % (100 * args.confidence)
    )
    return "\n".join(lines) + "\n" + filter_lines(args)


def report_job(args, runs):
    """--by rank|host|profile: one row each, sums over the job."""
    rows = job.rows(runs, args.job_by)
    table.emit(
        args,
        job.fields(runs),
        rows,
        lambda: {
            "profiles": args.profiles,
            "by": args.by,
            "imbalance": job.imbalance(runs) if job.is_job(runs) else None,
        },
        lambda: header_lines(runs, args)
        + table.text(job.text_columns(runs, args.job_by), rows, args=args),
    )
    return 0


def tree_sort_key(key, channels):
    """The node sum --sort (or --weight) orders the tree by."""
    if key == "name":
        return "name"
    if key in ("cpu", "time", "cpu_s"):
        return "cpu"
    if key in ("samples", "share"):
        return "samples"
    if key == "energy" and channels:
        return channels[0]["name"]
    for ch in channels:
        if key in (ch["name"], ch["name"] + "_J", "energy:" + ch["name"]):
            return ch["name"]
    known = ", ".join(["cpu", "samples", "name"] + (["energy"] if channels else []))
    known += "".join(", " + ch["name"] for ch in channels)
    raise cli.SamplerError("unknown sort key %r for a tree (use one of: %s)" % (key, known))


def run_tree(args):
    """--tree, --callers, --callees: the call paths of one profile, or of
    several (a job; --by rank|host|profile: a frame naming each first)."""
    if args.row_by:
        raise cli.SamplerError(
            "--tree, --callers and --callees take --by rank, host or profile only"
        )
    got = callread.load_job(
        args.profiles,
        PROG,
        by=args.job_by,
        extra_args=cli.export_args(args),
        jobs=args.jobs,
        mpi=args.mpi,
    )
    if got is None:  # an MPI process but rank 0: its part is sent
        return 0
    root, channels = got
    key = tree_sort_key(args.sort, channels)
    if args.callers is not None:
        root, what = callpaths.callers(root, args.callers), "callers of " + args.callers
    elif args.callees is not None:
        root, what = callpaths.callees(root, args.callees), "callees of " + args.callees
    else:
        what = "call tree"
    if (args.callers or args.callees) and not root.children:
        raise cli.SamplerError(
            "%s: no stack holds the function %r (names as sampler-report lists them)"
            % (" ".join(args.profiles), args.callers or args.callees)
        )
    min_share = 0.01 if args.min_share is None else args.min_share / 100
    rows = callrows.rows_of(root, channels, stats.z_of(args.confidence), min_share, key)
    if args.top:
        rows = rows[: args.top]
    total = root.incl.get("samples", 0)
    table.emit(
        args,
        callrows.fields_of(channels),
        rows,
        lambda: {
            "profiles": args.profiles,
            "view": what,
            "confidence": args.confidence,
            "channels": channels,
            "thread_samples": total,
        },
        lambda: "# %s: %s, %d thread-samples; shares of all of them (%g%% intervals)\n"
        % (" ".join(args.profiles), what, total, 100 * args.confidence)
        + callrows.text_of(rows, channels, args.confidence),
    )
    return 0


def meta(args, first, **extra):
    """The JSON document's fields besides the rows (first: a run)."""
    doc = {
        "profiles": args.profiles,
        "by": args.by,
        "confidence": args.confidence,
        "channels": first.energy + first.readings + first.counters,
        "filters": filters.describe(args) or None,
        "hidden_rows": args.hidden,
    }
    doc.update(extra)
    return doc


def split_groups(run, by):
    """(label, run of one process or thread), in order of first appearance."""
    seen = {}
    for pid, tid, _, _ in run.keys:
        k = (pid,) if by == "process" else (pid, tid)
        if k not in seen:
            name = run.comm(pid) if by == "process" else run.thread_comm(pid, tid)
            seen[k] = "%s %s" % (k[-1], name)
    return [
        (label, agg.select(run, lambda r, key, k=k: tuple(key[: len(k)]) == k))
        for k, label in seen.items()
    ]


def grouped_rows(groups, args):
    """Each (label, run) group's own flat rows, sorted and filtered, one
    group after the other, each row labelled with its group."""
    rows = []
    for label, run in groups:
        part = metrics.rows([run], args.row_by, args.confidence, args.addresses)
        for r in filter_rows(sort_rows(part, args.sort, [run]), args, [run]):
            r["group"] = label
            rows.append(r)
    return rows


def report_split(args, runs):
    """--by process,function (thread,dso ...): each process's (thread's)
    own flat profile, one after the other, shares of that process."""
    if job.is_job(runs):
        runs = [job.combine(runs)]
    if len(runs) > 1:
        raise cli.SamplerError(
            "--by %s takes one profile (or the profiles of one job)" % args.by
        )
    rows = grouped_rows(split_groups(runs[0], args.split_by), args)
    fields = ["group"] + fields_of(runs, args.row_by, False)
    table.emit(
        args,
        fields,
        rows,
        lambda: meta(args, runs[0]),
        lambda: header_lines(runs, args)
        + "# shares within each %s\n" % args.split_by
        + table.text(
            [("group", args.split_by, "%s")]
            + text_columns(runs, args.row_by, False, args.confidence),
            rows,
            args=args,
        ),
    )
    return 0


def report_cross(args, runs):
    """--by rank,function (a job kind and a row kind): each rank's (host's,
    profile's) own flat profile, one after the other."""
    rows = grouped_rows(job.groups(runs, args.job_by), args)
    fields = ["group"] + fields_of(runs, args.row_by, False)
    table.emit(
        args,
        fields,
        rows,
        lambda: meta(
            args, runs[0], imbalance=job.imbalance(runs) if job.is_job(runs) else None
        ),
        lambda: header_lines(runs, args)
        + table.text(
            [("group", args.job_by, "%s")]
            + text_columns(runs, args.row_by, False, args.confidence),
            rows,
            args=args,
        ),
    )
    return 0


def _load_runs(paths, use_cache, extra_args):
    return [agg.load(p, PROG, use_cache=use_cache, extra_args=extra_args) for p in paths]


def run(argv: Sequence[str]) -> int:
    args = parse_args(argv)
    args.mpi = args.mpi or reduce.under_mpirun()
    if args.accuracy:
        from . import energy

        for p in args.profiles:
            print(display_lines(energy.text(p, cli.export_args(args))), end="")
        return 0
    if args.tree or args.callers is not None or args.callees is not None:
        if filters.active(args):
            raise cli.SamplerError(
                "--tree, --callers and --callees take no %s" % filters.describe(args)
            )
        return run_tree(args)
    read = functools.partial(
        _load_runs, use_cache=not args.no_cache, extra_args=tuple(cli.export_args(args))
    )
    runs = reduce.map_reduce(read, operator.add, args.profiles, jobs=args.jobs, mpi=args.mpi)
    if runs is None:  # an MPI process but rank 0: its part is sent
        return 0
    agg.check_same_channels(runs)
    runs = job.load_split(runs, PROG, not args.no_cache, cli.export_args(args))
    runs, args.filtered = filters.apply(runs, args)
    if args.split_by:
        return report_split(args, runs)
    if args.job_by and args.row_by:
        return report_cross(args, runs)
    if args.job_by:
        return report_job(args, runs)
    shown = runs
    if job.is_job(runs):  # the ranks of one job add up; they are no repeated runs
        runs = [job.combine(runs)]
    several = len(runs) > 1
    rows = metrics.rows(runs, args.row_by, args.confidence, args.addresses)
    rows = filter_rows(sort_rows(rows, args.sort, runs), args, runs)
    fields = fields_of(runs, args.row_by, several)
    table.emit(
        args,
        fields,
        rows,
        lambda: meta(
            args,
            runs[0],
            runs=len(runs),
            job=job.is_job(shown),
            total=table.clean_nan(metrics.total_row(runs)),
        ),
        lambda: header_lines(shown, args)
        + table.text(
            text_columns(runs, args.row_by, several, args.confidence),
            rows,
            footer=metrics.total_row(runs),
            args=args,
        ),
    )
    return 0


def main() -> int:
    return cli.run_main(PROG, run)
