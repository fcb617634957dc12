"""sampler-plot - power/counter timeline and per-function distributions."""

import bz2
import io
import os
import sys
from typing import Sequence

from . import agg, callpaths, callread, cli, fileio, flame, job, metrics

PROG = "sampler-plot"
FORMATS = ("png", "svg", "pdf")

DESCRIPTION = """\
--kind timeline (default, one PROFILE): power over the run (energy per
sample interval / interval, or the power reading) for every energy/power
channel, the rate of every counter (events/s), and below them the hottest
functions as a stacked band (share of thread-samples per time bin).
With several PROFILEs (the ranks of a job: sampler -o app.%r.prof), the
CPU in use by each rank over time, all on one time axis: each profile's
times are placed by its realtime anchor, so ranks that started at
different moments (or on different hosts) line up.

--kind bars | violin (one or more PROFILEs, runs of one program): CPU time
and energy of the hottest functions across runs; bars show the mean with
the standard deviation as error bars, violins the distribution.  The
profiles of one job (its ranks: the same job id) are one run, their CPU
time added up and each host's node energy counted once, as sampler-report
and sampler-compare count them.

--kind flame (PROFILEs recorded with -g): a flame graph, every call path
as wide as its share of --weight: cpu (default), samples (thread-samples,
blocked threads included), or energy (the first energy channel;
energy:CHANNEL names one).  Several profiles (the ranks of a job) make one
graph; --by rank|host|profile puts a frame naming each first.  In SVG
each frame shows its name, value and share when the pointer rests on it;
in a browser a click zooms into a frame and Search gives the share of the
names matched.

--kind diff BASE NEW (two profiles recorded with -g): a differential flame
graph, as Brendan Gregg's difffolded.pl draws one: NEW's flame graph (its
frames as wide as their share of --weight in NEW), each frame red when its
call path's share grew from BASE, blue when it shrank, the deeper the
colour the larger the change; its tip gives both shares.

The output format follows the name: .png, .svg or .pdf (.bz2 appended:
compressed)."""


def parse_args(argv):
    p = cli.Parser(
        prog=PROG,
        description=DESCRIPTION,
        formatter_class=cli.argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("profiles", nargs="+", metavar="PROFILE")
    p.add_argument(
        "-o", "--output", required=True, metavar="FILE", help="FILE.png, FILE.svg or FILE.pdf"
    )
    p.add_argument(
        "--kind", choices=("timeline", "bars", "violin", "flame", "diff"), default="timeline"
    )
    cli.add_weight_option(p, "the flame graph's frames")
    p.add_argument(
        "--by",
        choices=("rank", "host", "profile"),
        help="flame of several profiles (a job): one outermost frame per rank, host or profile",
    )
    cli.add_demangle_option(p)  # flame, bars, violin
    p.add_argument(
        "--top",
        type=cli.positive_int,
        default=8,
        metavar="N",
        help="number of functions shown (default 8)",
    )
    p.add_argument(
        "--bins",
        type=cli.positive_int,
        default=100,
        metavar="N",
        help="time bins of the function band (default 100)",
    )
    p.add_argument("--title", help="plot title (default: the profiled command)")
    cli.add_cache_option(p)
    args = p.parse_args(argv)
    name = args.output[:-4] if args.output.endswith(".bz2") else args.output
    args.format = os.path.splitext(name)[1].lstrip(".").lower()
    if args.format not in FORMATS:
        raise cli.SamplerError(
            "%s: unknown image format (name it .png, .svg or .pdf)" % args.output
        )
    if args.kind == "diff" and len(args.profiles) != 2:
        raise cli.SamplerError("--kind diff draws two profiles: BASE NEW (recorded with -g)")
    if args.by and args.kind != "flame":
        raise cli.SamplerError("--by is an option of --kind flame")
    return args


def pyplot():
    try:
        import matplotlib

        matplotlib.use("Agg")
        matplotlib.rcParams["svg.fonttype"] = "none"  # SVG text stays text (searchable)
        import matplotlib.pyplot as plt
    except ImportError:
        if cli.missing_package() is not None:
            raise  # matplotlib needs numpy: run_main names what is missing
        raise cli.SamplerError(
            "matplotlib is not available to %s (apt-get install python3-matplotlib)"
            % sys.executable
        )
    return plt


def command_of(profile_or_run):
    procs = profile_or_run.processes
    if procs:
        first = procs[min(procs)]
        return first.get("argv") or first.get("comm") or "?"
    return "?"


# ---- timeline ------------------------------------------------------------


def legend(ax, artists, labels, **kw):
    """A legend naming every artist.  matplotlib leaves out labels that
    start with '_' (`__sin_fma`), even given explicitly: the legend is made
    with stand-in labels and its texts then set to the names."""
    made = ax.legend(artists, ["x" + label for label in labels], fontsize="small", **kw)
    for text, label in zip(made.get_texts(), labels):
        text.set_text(label)
    return made


def plot_timeline(args, plt):
    from . import timeline  # numpy: imported by the command that needs it

    tl = timeline.read_timeline(args.profiles[0], PROG)
    npanels = (1 if tl.energy else 0) + len(tl.counters) + 1
    heights = [2] * (npanels - 1) + [3]
    fig, axes = plt.subplots(
        npanels,
        1,
        sharex=True,
        figsize=(10, 2.2 * npanels + 1.5),
        gridspec_kw={"height_ratios": heights},
        squeeze=False,
    )
    axes = [a[0] for a in axes]
    line_bins = min(tl.count, 1000)
    i = 0
    if tl.energy:
        ax = axes[i]
        lines, labels = [], []
        for ch, series in zip(tl.energy, tl.power):
            xs, ys = timeline.binned_series(tl, series, line_bins)
            lines += ax.plot(xs, ys, linewidth=1)
            labels.append("%s (%s)" % (ch.name, ch.kind))
        ax.set_ylabel("power (W)")
        ax.set_title("Power over the run")
        legend(ax, lines, labels, loc="upper right")
        ax.grid(alpha=0.3)
        i += 1
    for ch, series in zip(tl.counters, tl.rates):
        ax = axes[i]
        xs, ys = timeline.binned_series(tl, series, line_bins)
        lines = ax.plot(xs, ys, linewidth=1, color="tab:purple")
        ax.set_ylabel("%s (1/s)" % ch.name)
        ax.set_title("%s rate" % ch.name)
        legend(ax, lines, [ch.name], loc="upper right")
        ax.grid(alpha=0.3)
        i += 1
    ax = axes[i]
    xs, labels, shares = timeline.function_band(tl, args.top, min(args.bins, tl.count))
    bands = ax.stackplot(xs, shares, step="mid")
    ax.set_ylim(0, 100)
    ax.set_ylabel("share of samples (%)")
    ax.set_xlabel("time since start (s)")
    ax.set_title("Hottest functions (share of thread-samples per time bin)")
    legend(
        ax, bands, [short(name) for name in labels], loc="center left", bbox_to_anchor=(1.0, 0.5)
    )
    fig.suptitle(args.title or "sampler profile: %s" % command_of(tl.prof))
    return fig


def realtime_start(tl):
    """When the profile's sampling began, in realtime seconds (its anchor)."""
    h = tl.prof.host
    try:
        return (int(h["start_ns"]) - int(h["monotonic_ns"]) + int(h["realtime_ns"])) * 1e-9
    except (KeyError, ValueError):
        raise cli.SamplerError(
            "%s: no realtime anchor in its host record (a profile of the original "
            "layout cannot be placed on a common time axis)" % tl.prof.path
        )


def rank_label(tl):
    h = tl.prof.host
    rank = h.get("rank", "")
    where = h.get("hostname", "?")
    return "rank %s (%s)" % (rank, where) if rank else "%s (%s)" % (tl.prof.path, where)


def plot_ranks(args, plt):
    """Several profiles (the ranks of a job): CPU in use per rank on one axis."""
    from . import timeline

    tls = [timeline.read_timeline(p, PROG) for p in args.profiles]
    starts = [realtime_start(tl) for tl in tls]
    t0 = min(starts)
    fig, ax = plt.subplots(1, 1, figsize=(10, 4.5))
    lines, labels = [], []
    for tl, start in sorted(zip(tls, starts), key=lambda x: rank_label(x[0])):
        xs, ys = timeline.binned_series(tl, timeline.cpu_in_use(tl), min(args.bins, tl.count))
        lines += ax.plot(xs + (start - t0), ys, linewidth=1)
        labels.append(rank_label(tl))
    ax.set_ylabel("CPU in use (cores)")
    ax.set_xlabel("time since the first profile began (s; aligned by realtime anchors)")
    ax.set_title("Ranks on one time axis")
    ax.grid(alpha=0.3)
    legend(ax, lines, labels, loc="center left", bbox_to_anchor=(1.0, 0.5))
    fig.suptitle(args.title or "sampler job: %d profiles" % len(tls))
    return fig


def short(name, width=40):
    return name if len(name) <= width else name[: width - 1] + "…"


# ---- distributions across runs -------------------------------------------


def labels_of(rows):
    """Function names, with the DSO where a name occurs twice ([unknown], main)."""
    count = {}
    for r in rows:
        count[r["name"]] = count.get(r["name"], 0) + 1
    return [
        short(r["name"], 30)
        + (" (%s)" % os.path.basename(r["dso"]) if count[r["name"]] > 1 else "")
        for r in rows
    ]


def plot_distribution(args, plt):
    runs = [
        agg.load(p, PROG, use_cache=not args.no_cache, extra_args=cli.export_args(args))
        for p in args.profiles
    ]
    agg.check_same_channels(runs)
    runs = job.split_jobs(runs)  # a job's ranks are one run, not repeated runs
    every = metrics.rows(runs, "function", 0.95)
    per_run = [metrics.rows([run], "function", 0.95) for run in runs]
    lookup = [{(r["name"], r["dso"]): r for r in rr} for rr in per_run]
    quantities = [("cpu_s", "CPU time (s)")]
    if runs[0].energy:
        ch = runs[0].energy[0]["name"]
        quantities.append((ch + "_J", "%s energy (J)" % ch))
    nrows = min(args.top, len(every))
    fig, axes = plt.subplots(
        1, len(quantities), figsize=(6 * len(quantities), 1.2 + 0.45 * nrows + 1), squeeze=False
    )
    for ax, (field, label) in zip(axes[0], quantities):
        # each panel shows the top functions by its own quantity, largest first
        rows = sorted(every, key=lambda r: (-_number(r[field]), r["name"]))[: args.top]
        data = [[lk.get((r["name"], r["dso"]), {}).get(field, 0.0) for lk in lookup] for r in rows]
        pos = list(range(len(rows)))[::-1]
        if args.kind == "violin" and len(runs) > 1:
            ax.violinplot(data, positions=pos, vert=False, showmeans=True)
        else:
            means = [sum(d) / len(d) for d in data]
            sds = [metrics.stats.mean_sd(d)[1] or 0.0 for d in data]
            bars = ax.barh(
                pos,
                means,
                xerr=sds if len(runs) > 1 else None,
                capsize=3,
                color="tab:blue" if field == "cpu_s" else "tab:orange",
            )
            legend(ax, [bars], ["mean of %d run(s)" % len(runs)], loc="lower right")
        ax.set_yticks(pos)
        ax.set_yticklabels(labels_of(rows))
        ax.set_xlabel(label)
        ax.set_title("%s per function" % label.split(" (")[0])
        ax.grid(axis="x", alpha=0.3)
    fig.suptitle(args.title or "sampler: %d run(s) of %s" % (len(runs), command_of(runs[0])))
    return fig


def _number(v):
    return v if isinstance(v, (int, float)) and v == v else float("-inf")


def save(fig, args, plt):
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format=args.format, dpi=100, bbox_inches="tight")
    plt.close(fig)
    save_bytes(buf.getvalue(), args)


def save_bytes(data, args):
    if args.output.endswith(".bz2"):
        data = bz2.compress(data)
    tmp = None
    try:
        if fileio.is_device(args.output):  # /dev/null: written, never replaced
            with open(args.output, "wb") as f:
                f.write(data)
            return
        f, tmp = fileio.new_file_beside(args.output)
        with f:
            f.write(data)
        os.replace(tmp, args.output)
    except OSError as e:
        if tmp:
            fileio.remove_quietly(tmp)
        raise fileio.cannot_write(args.output, e)


# ---- flame graph ---------------------------------------------------------


def plot_flame(args, plt):
    """The flame graph: SVG text of our own (interactive), or a figure."""
    root, channels = callread.load(
        args.profiles, PROG, by=args.by, extra_args=cli.export_args(args)
    )
    key, unit, label = callpaths.weight_key(args.weight, channels)
    names = " ".join(os.path.basename(p) for p in args.profiles)
    title = args.title or "%s of %s" % (label, names)
    if args.format == "svg":
        return flame.flame_svg(root, key, title, unit).encode("utf-8")
    return flame.flame_plot(root, key, title, unit, plt)


def plot_diff(args, plt):
    """The differential flame graph of NEW against BASE."""
    base, base_channels = callread.load(args.profiles[0], PROG, extra_args=cli.export_args(args))
    new, channels = callread.load(args.profiles[1], PROG, extra_args=cli.export_args(args))
    key, unit, label = callpaths.weight_key(args.weight, channels)
    callpaths.weight_key(args.weight, base_channels)  # BASE has it too
    names = [os.path.basename(p) for p in args.profiles]
    title = args.title or "%s of %s against %s: red grew, blue shrank" % (
        label,
        names[1],
        names[0],
    )
    paint = flame.diff_paint(base, new, key)
    if args.format == "svg":
        return flame.flame_svg(new, key, title, unit, paint=paint).encode("utf-8")
    return flame.flame_plot(new, key, title, unit, plt, paint=paint)


def run(argv: Sequence[str]) -> int:
    args = parse_args(argv)
    if args.kind in ("flame", "diff"):
        draw = plot_flame if args.kind == "flame" else plot_diff
        out = draw(args, None if args.format == "svg" else pyplot())
        if isinstance(out, bytes):
            save_bytes(out, args)
        else:
            save(out, args, pyplot())
        return 0
    plt = pyplot()
    if args.kind != "timeline":
        fig = plot_distribution(args, plt)
    elif len(args.profiles) > 1:
        fig = plot_ranks(args, plt)
    else:
        fig = plot_timeline(args, plt)
    save(fig, args, plt)
    return 0


def main() -> int:
    return cli.run_main(PROG, run)
