"""sampler-import - profiles from external measurement equipment."""

import math
import os
import re
import sys
from typing import Dict, Sequence

from . import VERSION, cli, elfmap, fileio, meter, textview
from .textview import format_line, format_number

PROG = "sampler-import"
START_NS = 1000000000  # CLOCK_MONOTONIC origin given to imported runs
EPOCH_MIN = 1e8  # a time column above this is seconds since 1970

DESCRIPTION = """\
(a) sampler-import LYNSYN.csv (--maps FILE | --binary EXE) -o OUT
    A Lynsyn-style CSV (`;` separated, `#` comments, a header row with a
    time column in seconds, currentN/voltageN/powerN columns per sensor N,
    pcN columns per core with hexadecimal PCs; headings like "Current 1 [A]"
    are accepted) becomes a profile: one sample per row, one thread per pc
    column, and per sensor an energy channel "sensorN" (J) = power (or
    current * voltage) integrated over the row interval by the trapezoid
    rule; a sensor with only current (or voltage) becomes a current
    (voltage) channel.  --maps takes the profiled process's /proc/PID/maps;
    --binary synthesises it from the executable's loadable segments (at
    --load-base for a PIE).

(b) sampler-import --merge TIMELINE.csv PROFILE -o OUT
    A power (or current) timeline from any meter -- a time column in seconds
    and a power column (header power*, or --column) -- is merged into
    PROFILE by wall-clock time: each sample gets the energy (J) of its
    interval, the integral of the timeline from the previous sample to it,
    as a per-sample energy channel (--name, default "meter"; an existing
    channel of that name is replaced).  Times are seconds since 1970
    (--time epoch, aligned through the profile's realtime/monotonic clock
    anchor) or since the start of sampling (--time relative); --time auto
    (default) decides by their size.  A current timeline is multiplied by
    the voltage column or --voltage.

OUT ending in .bz2 is written compressed; --format chooses the layout."""


def parse_args(argv):
    p = cli.Parser(
        prog=PROG,
        description=DESCRIPTION,
        formatter_class=cli.argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("input", metavar="LYNSYN.csv|PROFILE")
    p.add_argument(
        "-o", "--output", required=True, metavar="OUT", help="profile to write (.bz2: compressed)"
    )
    p.add_argument("--format", choices=("native", "pperf"), help="profile layout (default native)")
    g = p.add_argument_group("Lynsyn CSV")
    g.add_argument(
        "--maps", metavar="FILE", help="memory map of the profiled process (/proc/PID/maps)"
    )
    g.add_argument(
        "--binary", metavar="EXE", help="the profiled executable (map synthesised from it)"
    )
    g.add_argument(
        "--load-base",
        type=lambda s: int(s, 0),
        default=0,
        metavar="ADDR",
        help="load address of a PIE --binary (default 0)",
    )
    g.add_argument(
        "--pid",
        type=cli.positive_int,
        default=1,
        help="pid given to the imported process (default 1)",
    )
    m = p.add_argument_group("merge")
    m.add_argument(
        "--merge", metavar="TIMELINE.csv", help="merge this meter timeline into PROFILE"
    )
    m.add_argument(
        "--time",
        choices=("auto", "epoch", "relative"),
        default="auto",
        help="timeline times: seconds since 1970 or since the start of sampling",
    )
    m.add_argument(
        "--time-offset",
        type=float,
        default=0.0,
        metavar="S",
        help="add S seconds to the timeline's times (meter clock skew)",
    )
    m.add_argument(
        "--column", metavar="NAME", help="value column (default: first power*, else current*)"
    )
    m.add_argument(
        "--voltage", type=float, metavar="V", help="supply voltage for a current timeline"
    )
    m.add_argument("--name", default="meter", help="channel name (default meter)")
    return p.parse_args(argv)


# ---- (a) Lynsyn CSV ------------------------------------------------------

SENSOR_RE = re.compile(r"^(current|voltage|power)(\d+)$")
PC_RE = re.compile(r"^pc(\d+)$")


def normalized(heading):
    """'Current 1 [A]' -> 'current1': units, blanks and underscores dropped."""
    return re.sub(r"\[[^]]*\]|\([^)]*\)|[\s_]", "", heading.lower())


def lynsyn_layout(tab):
    if not tab.header:
        raise cli.SamplerError(
            "%s: no header row (expected e.g. time;current1;voltage1;power1;pc1;pc2)" % tab.path
        )
    names = [normalized(h) for h in tab.header]
    tcol = next((i for i, h in enumerate(names) if h.startswith("time")), None)
    if tcol is None:
        raise cli.SamplerError(
            "%s: no time column in the header %r (name it time)" % (tab.path, ";".join(tab.header))
        )
    sensors: Dict[int, Dict[str, int]] = {}
    pcs = []
    for i, h in enumerate(names):
        m = SENSOR_RE.match(h)
        if m:
            sensors.setdefault(int(m.group(2)), {})[m.group(1)] = i
        elif PC_RE.match(h):
            pcs.append(i)
    if not pcs:
        raise cli.SamplerError("%s: no pcN columns (one per core with hexadecimal PCs)" % tab.path)
    return tcol, sensors, pcs


def sensor_channels(tab, sensors):
    """[(channel fields, per-row values)] for every sensor."""
    out = []
    for n in sorted(sensors):
        cols = sensors[n]
        what = "sensor %d" % n
        if "power" in cols:
            power = tab.floats(cols["power"], "power%d" % n)
        elif "current" in cols and "voltage" in cols:
            power = [
                i * v
                for i, v in zip(
                    tab.floats(cols["current"], what), tab.floats(cols["voltage"], what)
                )
            ]
        else:
            kind = "current" if "current" in cols else "voltage"
            out.append(
                (
                    {
                        "name": "sensor%d" % n,
                        "source": "lynsyn",
                        "unit": "A" if kind == "current" else "V",
                        "scale": 1,
                        "kind": kind,
                        "scope": "sample",
                    },
                    ("reading", tab.floats(cols[kind], what)),
                )
            )
            continue
        tab.check_power(power, "the power of %s" % what)
        out.append(
            (
                {
                    "name": "sensor%d" % n,
                    "source": "lynsyn",
                    "unit": "J",
                    "scale": 1,
                    "kind": "energy",
                    "scope": "sample",
                },
                ("power", power),
            )
        )
    return out


def parse_pc(text, tab, row):
    try:
        return int(text, 16)
    except ValueError:
        raise cli.SamplerError(
            "%s:%d: PC %r is not hexadecimal" % (tab.path, tab.lines[row], text[:30])
        )


def host_fields(arch, realtime_ns, hz, extra):
    return [
        ("hostname", "imported"),
        ("os_release", ""),
        ("os_version", ""),
        ("arch", arch),
        ("cpu_desc", extra),
        ("cpu_id", ""),
        ("nr_cpus_online", 0),
        ("nr_cpus_avail", 0),
        ("total_mem_kb", 0),
        ("sampler_version", VERSION),
        ("cmdline", " ".join([PROG] + sys.argv[1:])),
        ("realtime_ns", realtime_ns),
        ("monotonic_ns", START_NS),
        ("start_ns", START_NS),
        ("target_hz", format_number(hz)),
    ]


def import_lynsyn(args):
    if not args.maps and not args.binary:
        raise cli.SamplerError(
            "give --maps FILE or --binary EXE (PCs need a memory map to become functions)"
        )
    tab = meter.Table(args.input)
    tcol, sensors, pcs = lynsyn_layout(tab)
    times = tab.floats(tcol, "time")
    meter.check_times(times, tab.path)
    arch = "unknown"
    if args.maps:
        maps = elfmap.read_maps(args.maps)
    if args.binary:
        bmaps, arch = elfmap.binary_maps(args.binary, args.load_base)
        if not args.maps:
            maps = bmaps
    channels = sensor_channels(tab, sensors)

    b = textview.Builder(args.output, args.format)
    try:
        totals = write_lynsyn(b, args, tab, times, maps, arch, channels, pcs)
    except BaseException:
        b.abort()
        raise
    b.finish()
    return totals


def write_lynsyn(b, args, tab, times, maps, arch, channels, pcs):
    t0 = times[0]
    duration = times[-1] - t0
    realtime = int(round(t0 * 1e9)) if t0 > EPOCH_MIN else 0
    hz = (len(times) - 1) / duration if duration > 0 else 0
    pid = args.pid
    tids = [pid + k for k in range(len(pcs))]
    comm = os.path.basename(
        args.binary or next((m["path"] for m in maps if m["path"]), "imported")
    )[:15]
    b.write(
        format_line(
            "host",
            host_fields(
                arch, realtime, hz, "imported from Lynsyn CSV %s" % os.path.basename(args.input)
            ),
        )
    )
    for fields, _ in channels:
        b.write(format_line("channel", fields))
    b.write(format_line("process", [("pid", pid), ("ppid", 0), ("time", START_NS)]))
    b.write(
        format_line(
            "exec",
            [("pid", pid), ("time", START_NS), ("comm", comm), ("argv", args.binary or comm)],
        )
    )
    for tid in tids:
        b.write(format_line("thread", [("tid", tid), ("pid", pid), ("time", START_NS)]))
    for m in maps:
        b.write(
            format_line(
                "map",
                [
                    ("pid", pid),
                    ("time", START_NS),
                    ("start", "0x%x" % m["start"]),
                    ("len", "0x%x" % m["len"]),
                    ("pgoff", "0x%x" % m["pgoff"]),
                    ("dev", m["dev"]),
                    ("inode", m["inode"]),
                    ("prot", m["prot"]),
                    ("path", m["path"]),
                ],
            )
        )
    totals = [0.0] * len(channels)
    now = START_NS - 1
    progress = fileio.Progress(PROG, "samples written", len(times))
    for i, t in enumerate(times):
        if not i & 0x3FFF:
            progress.update(i)
        # strictly increasing sample times, even for equal timestamps
        now = max(now + 1, START_NS + int(round((t - t0) * 1e9)))
        values = []
        for c, (_, (how, series)) in enumerate(channels):
            if how == "power":
                v = (series[i] + series[i - 1]) / 2 * (t - times[i - 1]) if i else 0.0
                totals[c] += v
            else:
                v = series[i]
                totals[c] += v / len(times)
            values.append(format_number(v))
        b.write("sample time=%d nthreads=%d values=%s\n" % (now, len(tids), ",".join(values)))
        cpu = now - START_NS
        for tid, col in zip(tids, pcs):
            b.write(
                "ts tid=%d pid=%d pc=0x%x cpu=%d\n"
                % (tid, pid, parse_pc(tab.rows[i][col], tab, i), cpu)
            )
    progress.done()
    end = max(now, START_NS + int(round(duration * 1e9)))
    for tid in tids[1:] + tids[:1]:
        b.write(
            format_line(
                "exit", [("tid", tid), ("pid", pid), ("time", end), ("whole", int(tid == pid))]
            )
        )
    b.write(
        format_line(
            "stats",
            [
                ("wall", end - START_NS),
                ("latency", 0),
                ("samples", len(times)),
                ("thread_samples", len(times) * len(tids)),
                ("missed", 0),
                ("missing", 0),
                ("signals", 0),
                ("threads", len(tids)),
                ("processes", 1),
                ("exit", 0),
                ("totals", ",".join(format_number(v) for v in totals)),
            ],
        )
    )
    return totals


# ---- (b) merge a meter timeline ------------------------------------------


def read_timeline(args):
    tab = meter.Table(args.merge)
    header = tab.header or []
    tcol = next((i for i, h in enumerate(header) if h.startswith("time")), 0)
    if args.column:
        vcol = tab.column(args.column.lower())
        if vcol is None:
            raise cli.SamplerError(
                "%s: no column %r (columns: %s)" % (tab.path, args.column, ",".join(header))
            )
    else:
        vcol = next((i for i, h in enumerate(header) if h.startswith("power")), None)
        if vcol is None:
            vcol = next((i for i, h in enumerate(header) if h.startswith("current")), None)
        if vcol is None:
            if header and len(header) > 2:
                raise cli.SamplerError(
                    "%s: no power* or current* column (name one with --column)" % tab.path
                )
            vcol = 1 if tcol == 0 else 0
    if vcol >= len(tab.rows[0]):
        raise cli.SamplerError("%s: one column only (expected time and power)" % tab.path)
    times = [t + args.time_offset for t in tab.floats(tcol, "time")]
    meter.check_times(times, tab.path)
    name = header[vcol] if header else ""
    values = tab.floats(vcol, "the %s" % (name or "value"))
    if name.startswith("current"):
        vv = next((i for i, h in enumerate(header) if h.startswith("voltage")), None)
        if vv is not None:
            values = [i * v for i, v in zip(values, tab.floats(vv, "voltage"))]
        elif args.voltage is not None:
            values = [i * args.voltage for i in values]
        else:
            raise cli.SamplerError(
                "%s: a current timeline needs a voltage column or --voltage V" % tab.path
            )
    elif args.voltage is not None and not name.startswith("power"):
        values = [i * args.voltage for i in values]
    tab.check_power(values, "the power")
    mode = args.time
    if mode == "auto":
        mode = "epoch" if times[0] > EPOCH_MIN else "relative"
    return meter.Timeline(times, values), mode


class Merger:
    """Rewrites dump lines: one more (or a replaced) per-sample channel."""

    def __init__(self, args, timeline, mode):
        self.args = args
        self.timeline = timeline
        self.mode = mode
        self.channels = []  # scope of each channel line, in order
        self.sample_index = None  # where our value goes among sample values
        self.replace = False
        self.channel_at = None  # its index among all channels (for totals)
        self.prev = None
        self.total = 0.0
        self.missing = 0
        self.samples = 0
        self.host = {}

    def meter_time(self, mono_ns):
        h = self.host
        if self.mode == "epoch":
            return (mono_ns - int(h.get("monotonic_ns", 0)) + int(h.get("realtime_ns", 0))) * 1e-9
        return (mono_ns - int(h.get("start_ns", 0))) * 1e-9

    def channel_line(self):
        return format_line(
            "channel",
            [
                ("name", self.args.name),
                ("source", "import"),
                ("unit", "J"),
                ("scale", 1),
                ("kind", "energy"),
                ("scope", "sample"),
            ],
        )

    def place_channel(self, out):
        """Called at the first line after the channel lines."""
        if self.sample_index is not None:
            return
        scopes = [s for _, s in self.channels]
        names = [n for n, _ in self.channels]
        if self.args.name in names and scopes[names.index(self.args.name)] == "sample":
            self.replace = True
            self.channel_at = names.index(self.args.name)
            self.sample_index = scopes[: self.channel_at].count("sample")
            return
        if len(self.channels) >= 64:
            raise cli.SamplerError(
                "%s has 64 channels already (merge into a profile with fewer)" % self.args.input
            )
        self.sample_index = scopes.count("sample")
        self.channel_at = len(self.channels)
        self.channels.append((self.args.name, "sample"))
        out.write(self.channel_line())

    def line(self, line, out):
        kind = line.split(" ", 1)[0]
        if kind == "sample":
            out.write(self.sample(line))
        elif kind == "ts":
            out.write(line)
        elif kind == "channel":
            _, f = textview.parse_line(line)
            self.channels.append((f.get("name"), f.get("scope")))
            if f.get("name") == self.args.name and f.get("scope") == "sample":
                out.write(self.channel_line())
            else:
                out.write(line)
        elif kind == "host":
            _, self.host = textview.parse_line(line)
            self.prev = int(self.host.get("start_ns", 0))
            out.write(line)
        elif kind == "format":
            out.write(line)  # stacks=1, runs=1: what the ts lines carry
        elif kind == "stats":
            self.place_channel(out)
            out.write(self.stats(line))
        else:
            if kind != "":
                self.place_channel(out)
            out.write(line)

    def sample(self, line):
        self.place_channel(_NullOut())
        _, f = textview.parse_line(line)
        now = int(f["time"])
        e = self.timeline.integral(self.meter_time(self.prev), self.meter_time(now))
        self.prev = now
        self.samples += 1
        if math.isnan(e):
            self.missing += 1
        else:
            self.total += e
        text = f.get("values", "")
        values = text.split(",") if text else []
        if self.replace:
            values[self.sample_index] = format_number(e)
        else:
            values.insert(self.sample_index, format_number(e))
        return "sample time=%d nthreads=%s values=%s\n" % (now, f["nthreads"], ",".join(values))

    def stats(self, line):
        _, f = textview.parse_line(line)
        text = f.get("totals", "")
        totals = text.split(",") if text else []
        while len(totals) < len(self.channels) - (0 if self.replace else 1):
            totals.append("0")
        if self.replace:
            totals[self.channel_at] = format_number(self.total)
        else:
            totals.insert(self.channel_at, format_number(self.total))
        f["totals"] = ",".join(totals)
        f["missing"] = str(int(f.get("missing", 0) or 0) + self.missing)
        return format_line("stats", [(k, v) for k, v in f.items()])


class _NullOut:
    def write(self, _):
        raise cli.SamplerError("profile has a sample before its channel lines (dump it and check)")


def merge(args):
    timeline, mode = read_timeline(args)
    fileio.check_readable(args.input)
    merger = Merger(args, timeline, mode)
    builder = textview.Builder(args.output, args.format)
    try:
        for line in textview.dump(args.input):
            merger.line(line, builder)
        if merger.samples == 0:
            raise cli.SamplerError("%s holds no samples to merge into" % args.input)
        if merger.missing == merger.samples:
            raise cli.SamplerError(
                "the timeline %s does not overlap the profile in time "
                "(check --time, --time-offset)" % args.merge
            )
    except BaseException:
        builder.abort()
        raise
    builder.finish()
    if merger.missing:
        cli.warn(
            PROG,
            "%d of %d samples lie outside the timeline (their energy is missing)"
            % (merger.missing, merger.samples),
        )
    return merger.total


def run(argv: Sequence[str]) -> int:
    args = parse_args(argv)
    if args.merge:
        merge(args)
    else:
        import_lynsyn(args)
    return 0


def main() -> int:
    return cli.run_main(PROG, run)
