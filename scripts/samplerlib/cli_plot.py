"""sampler-plot - power/counter timeline and per-function distributions."""

import bz2
import io
import os
import sys

from . import agg, cli, csvprof, metrics
from .fileio import Progress
from .textview import unescape

PROG = "sampler-plot"
FORMATS = ("png", "svg", "pdf")

DESCRIPTION = """\
--kind timeline (default, one PROFILE): power over the run (energy per
sample interval / interval, or the power reading) for every energy/power
channel, the rate of every counter (events/s), and below them the hottest
functions as a stacked band (share of thread-samples per time bin).

--kind bars | violin (one or more PROFILEs, runs of one program): CPU time
and energy of the hottest functions across runs; bars show the mean with
the standard deviation as error bars, violins the distribution.

The output format follows the name: .png, .svg or .pdf (.bz2 appended:
compressed)."""


def parse_args(argv):
    p = cli.Parser(prog=PROG, description=DESCRIPTION,
                   formatter_class=cli.argparse.RawDescriptionHelpFormatter)
    p.add_argument("profiles", nargs="+", metavar="PROFILE")
    p.add_argument("-o", "--output", required=True, metavar="FILE", help="FILE.png, FILE.svg or FILE.pdf")
    p.add_argument("--kind", choices=("timeline", "bars", "violin"), default="timeline")
    p.add_argument("--top", type=cli.positive_int, default=8, metavar="N",
                   help="number of functions shown (default 8)")
    p.add_argument("--bins", type=cli.positive_int, default=100, metavar="N",
                   help="time bins of the function band (default 100)")
    p.add_argument("--title", help="plot title (default: the profiled command)")
    cli.add_cache_option(p)
    args = p.parse_args(argv)
    name = args.output[:-4] if args.output.endswith(".bz2") else args.output
    args.format = os.path.splitext(name)[1].lstrip(".").lower()
    if args.format not in FORMATS:
        raise cli.SamplerError("%s: unknown image format (name it .png, .svg or .pdf)" % args.output)
    if args.kind == "timeline" and len(args.profiles) != 1:
        raise cli.SamplerError("--kind timeline takes one PROFILE (use --kind bars or violin for several)")
    return args


def pyplot():
    try:
        import matplotlib
        matplotlib.use("Agg")
        matplotlib.rcParams["svg.fonttype"] = "none"  # SVG text stays text (searchable)
        import matplotlib.pyplot as plt
    except ImportError:
        raise cli.SamplerError("matplotlib is not available to %s (apt-get install python3-matplotlib)"
                               % sys.executable)
    return plt


def command_of(profile_or_run):
    procs = profile_or_run.processes
    if procs:
        first = procs[min(procs)]
        return first.get("argv") or first.get("comm") or "?"
    return "?"


# ---- timeline ------------------------------------------------------------

def read_timeline(path):
    """Per-sample series and per-thread-sample functions of one profile."""
    prof = csvprof.Profile(path)
    energy = prof.channels_of(csvprof.ENERGY_LIKE)
    counters = prof.channels_of(("counter",))
    scol = prof.symbol_col if prof.symbol_col is not None else 3
    times, power, rates, funcs = [], [[] for _ in energy], [[] for _ in counters], []
    progress = Progress(PROG, "samples read")
    try:
        for buf in prof.samples(progress):
            t = float(buf[0][0]) * 1e-9
            dt = float(buf[0][5]) * 1e-9
            times.append((t, dt))
            for series, ch in zip(power, energy):
                if ch.kind == "power":
                    v = agg.cell(buf[0][ch.column], ch.scale)
                else:
                    cells = [agg.cell(r[ch.column], ch.scale) for r in buf]
                    v = None if None in cells or dt <= 0 else sum(cells) / dt
                series.append(v)
            for series, ch in zip(rates, counters):
                total = sum(float(r[ch.column] or 0) for r in buf) * ch.scale
                series.append(total / dt if dt > 0 else None)
            funcs.append((t, [r[scol] for r in buf]))
    except ValueError as e:
        raise cli.SamplerError("%s: bad number in the CSV (%s; the file is damaged)" % (path, e))
    finally:
        progress.done()
    if not times:
        raise cli.SamplerError("%s: the profile holds no samples (record a longer run)" % path)
    return prof, energy, counters, times, power, rates, funcs


def binned_series(times, series, nbins):
    """Time-weighted mean of series per bin (a line of at most nbins points)."""
    t0, t1 = times[0][0] - times[0][1], times[-1][0]
    span = (t1 - t0) or 1.0
    num, den = [0.0] * nbins, [0.0] * nbins
    for (t, dt), v in zip(times, series):
        if v is None:
            continue
        b = min(nbins - 1, int((t - t0) / span * nbins))
        w = dt if dt > 0 else 1e-12
        num[b] += v * w
        den[b] += w
    xs = [t0 + (b + 0.5) * span / nbins for b in range(nbins)]
    return [x for x, d in zip(xs, den) if d > 0], [n / d for n, d in zip(num, den) if d > 0]


def function_band(funcs, times, top, nbins):
    t0, t1 = times[0][0] - times[0][1], times[-1][0]
    span = (t1 - t0) or 1.0
    total = {}
    for _, names in funcs:
        for n in names:
            total[n] = total.get(n, 0) + 1
    hot = [n for n, _ in sorted(total.items(), key=lambda kv: -kv[1])[:top]]
    index = {n: i for i, n in enumerate(hot)}
    counts = [[0] * nbins for _ in range(len(hot) + 1)]
    for t, names in funcs:
        b = min(nbins - 1, int((t - t0) / span * nbins))
        for n in names:
            counts[index.get(n, len(hot))][b] += 1
    sums = [sum(c[b] for c in counts) for b in range(nbins)]
    shares = [[100.0 * c[b] / sums[b] if sums[b] else 0.0 for b in range(nbins)] for c in counts]
    xs = [t0 + (b + 0.5) * span / nbins for b in range(nbins)]
    labels = [unescape(n) for n in hot] + (["other"] if any(shares[-1]) else [])
    return xs, labels, shares[:len(labels)]


def plot_timeline(args, plt):
    prof, energy, counters, times, power, rates, funcs = read_timeline(args.profiles[0])
    npanels = (1 if energy else 0) + len(counters) + 1
    heights = [2] * (npanels - 1) + [3]
    fig, axes = plt.subplots(npanels, 1, sharex=True, figsize=(10, 2.2 * npanels + 1.5),
                             gridspec_kw={"height_ratios": heights}, squeeze=False)
    axes = [a[0] for a in axes]
    line_bins = min(len(times), 1000)
    i = 0
    if energy:
        ax = axes[i]
        for ch, series in zip(energy, power):
            xs, ys = binned_series(times, series, line_bins)
            ax.plot(xs, ys, label="%s (%s)" % (ch.name, ch.kind), linewidth=1)
        ax.set_ylabel("power (W)")
        ax.set_title("Power over the run")
        ax.legend(loc="upper right", fontsize="small")
        ax.grid(alpha=0.3)
        i += 1
    for ch, series in zip(counters, rates):
        ax = axes[i]
        xs, ys = binned_series(times, series, line_bins)
        ax.plot(xs, ys, label=ch.name, linewidth=1, color="tab:purple")
        ax.set_ylabel("%s (1/s)" % ch.name)
        ax.set_title("%s rate" % ch.name)
        ax.legend(loc="upper right", fontsize="small")
        ax.grid(alpha=0.3)
        i += 1
    ax = axes[i]
    xs, labels, shares = function_band(funcs, times, args.top, min(args.bins, len(times)))
    ax.stackplot(xs, shares, labels=[short(l) for l in labels], step="mid")
    ax.set_ylim(0, 100)
    ax.set_ylabel("share of samples (%)")
    ax.set_xlabel("time since start (s)")
    ax.set_title("Hottest functions (share of thread-samples per time bin)")
    ax.legend(loc="center left", bbox_to_anchor=(1.0, 0.5), fontsize="small")
    fig.suptitle(args.title or "sampler profile: %s" % command_of(prof))
    return fig


def short(name, width=40):
    return name if len(name) <= width else name[:width - 1] + "…"


# ---- distributions across runs -------------------------------------------

def labels_of(rows):
    """Function names, with the DSO where a name occurs twice ([unknown], main)."""
    count = {}
    for r in rows:
        count[r["name"]] = count.get(r["name"], 0) + 1
    return [short(r["name"], 30) + (" (%s)" % os.path.basename(r["dso"]) if count[r["name"]] > 1 else "")
            for r in rows]


def plot_distribution(args, plt):
    runs = [agg.load(p, PROG, use_cache=not args.no_cache) for p in args.profiles]
    agg.check_same_channels(runs)
    rows = metrics.rows(runs, "function", 0.95)[:args.top]
    per_run = [metrics.rows([run], "function", 0.95) for run in runs]
    lookup = [{(r["name"], r["dso"]): r for r in rr} for rr in per_run]
    quantities = [("cpu_s", "CPU time (s)")]
    if runs[0].energy:
        ch = runs[0].energy[0]["name"]
        quantities.append((ch + "_J", "%s energy (J)" % ch))
    fig, axes = plt.subplots(1, len(quantities), figsize=(6 * len(quantities), 1.2 + 0.45 * len(rows) + 1),
                             squeeze=False)
    names = labels_of(rows)
    for ax, (field, label) in zip(axes[0], quantities):
        data = [[lk.get((r["name"], r["dso"]), {}).get(field, 0.0) for lk in lookup] for r in rows]
        pos = list(range(len(rows)))[::-1]
        if args.kind == "violin" and len(runs) > 1:
            ax.violinplot(data, positions=pos, vert=False, showmeans=True)
        else:
            means = [sum(d) / len(d) for d in data]
            sds = [metrics.stats.mean_sd(d)[1] or 0.0 for d in data]
            ax.barh(pos, means, xerr=sds if len(runs) > 1 else None, capsize=3,
                    color="tab:blue" if field == "cpu_s" else "tab:orange", label="mean of %d run(s)" % len(runs))
            ax.legend(loc="lower right", fontsize="small")
        ax.set_yticks(pos)
        ax.set_yticklabels(names)
        ax.set_xlabel(label)
        ax.set_title("%s per function" % label.split(" (")[0])
        ax.grid(axis="x", alpha=0.3)
    fig.suptitle(args.title or "sampler: %d run(s) of %s" % (len(runs), command_of(runs[0])))
    return fig


def save(fig, args, plt):
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format=args.format, dpi=100, bbox_inches="tight")
    plt.close(fig)
    data = buf.getvalue()
    if args.output.endswith(".bz2"):
        data = bz2.compress(data)
    tmp = "%s.tmp%d" % (args.output, os.getpid())
    try:
        with open(tmp, "wb") as f:
            f.write(data)
        os.replace(tmp, args.output)
    except OSError as e:
        raise cli.SamplerError("cannot write %s: %s (check the directory exists and is writable)"
                               % (args.output, e.strerror))


def run(argv):
    args = parse_args(argv)
    plt = pyplot()
    fig = plot_timeline(args, plt) if args.kind == "timeline" else plot_distribution(args, plt)
    save(fig, args, plt)
    return 0


def main():
    return cli.run_main(PROG, run)
