#!/usr/bin/python3
"""phase-sim.py - a profile of examples/phases under the sampler, simulated
with an exact meter, to test the energy estimator alone (t2110, t2130,
docs/ENERGY.md): no fake, no sampler, no machine load in the way.

  phase-sim.py [--seed N] [--hz 1000] [--hold-us 30] [--phase-ms 5]
               [--update-ms 1] [--seconds 1.2] [--stall-ms 0]
               [--starve ON,OFF] [--delay-ms D [--power] [--late-ms A,B]
               [--declare]] [--cycle PC:MS,...]
               TRUTH >PROFILE.txt
  phase-sim.py --ranks 2 [--slice-ms MS] [--missed P,P...] [--partial P
               [--partial-end]] [...] PREFIX
  (either: [--no-runs])

One thread runs 20 ms of rest (5 W), then alpha (13 W), beta (28 W) and
gamma (8 W) in turn for SECONDS of CPU time, each phase 0.5-1.5 x phase-ms,
then rest again; --cycle a:8,b:20,c:12: those phases (alpha 8 ms, beta
20, gamma 12) in that order and of those lengths, again and again, so
that a lean at a rise or a fall of power does not cancel out.  The
sampler stops it at hz (each sample up to 5% of a period late) and
holds it stopped hold-us, reading the meter at the end of the hold; with
stall-ms, it takes no sample for that long from a third of the run on
(a recorder that got no CPU: the thread runs on).  The meter is a RAPL
counter (integer uJ) that updates every update-ms (+- 0.1 ms, from a
random phase) with the energy drawn so far.  --starve ON,OFF: the thread
runs ON ms, then waits OFF ms for a CPU, again and again (it draws no power
waiting, so some of the meter's updates count nothing).  --delay-ms: the
meter is an external one counting energy (the scpi plug-in's unit=J), each
update with the energy drawn until D ms before it; with --power too, a power
meter (the scpi plug-in's default, W): each update the mean power of its
period as it was D ms earlier, a sample's reading the latest update when
its query went, right after the previous sample (pipelined); --late-ms A,B:
each update shows A to B ms after its time (uniformly; a meter's loop late,
the fake's 0.09-0.23 ms); --declare: the profile says the meter's update
interval and delay, as the scpi plug-in's update_ms= and delay_ms= do.
The profile goes to stdout in the text form sampler-profile build reads,
PCs 0xa, 0xb, 0xc (alpha, beta, gamma) and 0xd (rest); TRUTH gets
"truth 0xa=J 0xb=J 0xc=J 0xd=J".

With --ranks N, N such threads (ranks, each its own process and its own
sampler) draw from one meter, the node's: PREFIX.K.txt and PREFIX.K.truth
for rank K.  --slice-ms: the ranks take turns on one CPU in slices of
that many ms (so each runs only part of some intervals); --missed: per
rank, the chance that its sampler misses a sample (one that got less CPU
under load: its intervals are longer).  --partial P: the chance that a
thread runs only the start of an interval (10-50% of it) and then waits
for a CPU, as under load (--partial-end: only its end).  Each sample says
where in its interval the thread ran (run=, from the first moment to the
last), as the recorder's switch records do, unless --no-runs.
"""
import argparse
import bisect
import random
import sys

WATTS = {0xa: 13.0, 0xb: 28.0, 0xc: 8.0, 0xd: 5.0}
T0 = 1.0  # s: the recording's start


class Phases:
    """What runs at each moment of the thread's CPU time, and the energy."""

    def __init__(self, rng, phase_s, seconds, cycle=None):
        self.spans = [(0.0, 0.02, 0xd)]
        cpu, k = 0.02, 0
        while cpu < 0.02 + seconds:
            if cycle:
                pc, length = cycle[k % len(cycle)]
            else:
                pc, length = (0xa, 0xb, 0xc)[k % 3], phase_s * rng.uniform(0.5, 1.5)
            self.spans.append((cpu, cpu + length, pc))
            cpu, k = cpu + length, k + 1
        self.spans.append((cpu, cpu + 0.02, 0xd))
        self.end = cpu + 0.02
        self.starts = [a for a, _, _ in self.spans]
        self.energy = [0.0]  # before each span
        self.truth = dict.fromkeys(WATTS, 0.0)
        for a, b, pc in self.spans:
            self.energy.append(self.energy[-1] + WATTS[pc] * (b - a))
            self.truth[pc] += WATTS[pc] * (b - a)

    def at(self, cpu):
        """(PC, energy in J) at this much CPU time."""
        i = max(0, bisect.bisect_right(self.starts, cpu) - 1)
        a, _, pc = self.spans[i]
        return pc, self.energy[i] + WATTS[pc] * (min(cpu, self.end) - a)


class Rank:
    """One thread under its sampler: its samples (wall time of the stop,
    CPU time then) and, per interval, the wall time it could run in."""

    def __init__(self, rng, args, k, missed):
        # when it may run: ON of every PERIOD from OFFSET on (None: always)
        self.turn = None
        if args.slice_ms:  # rank k runs slices k, k + 2, ...
            s = args.slice_ms * 1e-3
            self.turn = (s, 2 * s, k * s)
        elif args.starve:
            on, off = (float(x) * 1e-3 for x in args.starve.split(","))
            self.turn = (on, on + off, 0.0)
        self.phases = Phases(rng, args.phase_ms * 1e-3, args.seconds, args.cycle)
        period, self.hold = 1 / args.hz, args.hold_us * 1e-6
        self.samples, self.runs = [], []
        cpu, run_from, slot = 0.0, T0, 1
        stall_from = T0 + self.phases.end / 3
        while True:
            stop = T0 + (slot + 0.05 * rng.random()) * period
            slot += 1
            if stall_from <= stop < stall_from + args.stall_ms * 1e-3:
                continue
            if missed and rng.random() < missed:
                continue
            run_to = stop
            if args.partial and rng.random() < args.partial:
                part = (stop - run_from) * rng.uniform(0.1, 0.5)
                run_from, run_to = (stop - part, stop) if args.partial_end else \
                    (run_from, run_from + part)
            ran = self.own_time(run_from, run_to)
            if cpu + ran >= self.phases.end:
                break
            cpu += ran
            self.samples.append((stop, cpu))
            self.runs.append((run_from, run_to))
            run_from = stop + self.hold
        self.stops = [s for s, _ in self.samples]

    def own_time(self, a, b):
        """Of the wall time [a, b], how much the thread ran: all of it, or
        its turns (slices, or the runs between its waits)."""
        if b <= a:
            return 0.0
        if not self.turn:
            return b - a
        on, period, offset = self.turn

        def upto(t):  # its time in [T0 + offset, t] (negative before)
            n, rest = divmod(t - T0 - offset, period)
            return n * on + min(rest, on)
        return upto(b) - upto(a)

    def extent(self, a, b):
        """The first and last moment of the wall time [a, b] the thread
        ran (None: it did not run), as the recorder's switch records tell."""
        if self.own_time(a, b) <= 0:
            return None
        if not self.turn:
            return a, b
        on, period, offset = self.turn
        lo, hi = a, b
        n, rest = divmod(a - T0 - offset, period)
        if rest >= on:  # waiting: from its next turn
            lo = T0 + offset + (n + 1) * period
        n, rest = divmod(b - T0 - offset, period)
        if rest > on:  # waiting: until its last turn's end
            hi = T0 + offset + n * period + on
        return (lo, hi) if int(hi * 1e9) > int(lo * 1e9) else None

    def cpu_at(self, wall):
        i = bisect.bisect_right(self.stops, wall)
        if i >= len(self.samples):
            return self.samples[-1][1]
        before = self.samples[i - 1][1] if i else 0.0
        run_from, run_to = self.runs[i]
        return before + self.own_time(run_from, min(wall, run_to))

    def write(self, out, meter, hz, pid, runs):
        if runs:
            out.write("format name=native runs=1\n")
        out.write("host hostname=sim os_release=6.1 os_version=1 arch=x86_64 cpu_desc=sim "
                  "cpu_id=sim nr_cpus_online=2 nr_cpus_avail=2 total_mem_kb=1 "
                  "sampler_version=0.1.0 cmdline=sim realtime_ns=1700000000000000000 "
                  "monotonic_ns=1000000000 start_ns=1000000000 target_hz=%d\n" % hz)
        out.write(meter.channel)
        out.write("process pid=%d ppid=0 time=1000000000\nthread tid=%d pid=%d "
                  "time=1000000000\n" % (pid, pid, pid))
        total, before = 0, T0  # (before: when the previous sample read the meter)
        for (stop, c), (a, b) in zip(self.samples, self.runs):
            value = meter.reading(before, stop + self.hold)
            ran = self.extent(a, b) if runs else None
            out.write("sample time=%d nthreads=1 values=%s\n" % (stop * 1e9, value))
            out.write("ts tid=%d pid=%d pc=0x%x cpu=%d%s\n"
                      % (pid, pid, self.phases.at(c)[0], c * 1e9,
                         " run=%d,%d" % (ran[0] * 1e9, ran[1] * 1e9) if ran else ""))
            total, before = total + float(value), stop + self.hold
        end = self.stops[-1] + self.hold + 0.001
        n = len(self.samples)
        out.write("exit tid=%d pid=%d time=%d whole=1\n" % (pid, pid, end * 1e9))
        out.write("stats wall=%d latency=%d samples=%d thread_samples=%d missed=0 missing=0 "
                  "signals=0 threads=1 processes=1 exit=0 totals=%.10g\n"
                  % ((end - T0) * 1e9, self.hold * 1e9 * n, n, n, total))

    def write_truth(self, path):
        with open(path, "w") as f:
            pairs = ("0x%x=%.6f" % (pc, j) for pc, j in sorted(self.phases.truth.items()))
            f.write("truth " + " ".join(pairs) + "\n")


class Meter:
    """What a sample's reading shows of the meter's updates (time, uJ)."""

    def __init__(self, updates, source, power, late, declared=""):
        self.updates, self.power = updates, power
        rng = random.Random(0)  # (its own: the other figures stay as they were)
        self.times = [u + (rng.uniform(*late) if late else 0) for u, _ in updates]
        self.channel = ("channel name=scpi source=scpi unit=W scale=1 kind=power scope=sample%s\n"
                        % declared if power else
                        "channel name=package-0 source=%s unit=uJ scale=1e-06 kind=energy "
                        "scope=sample%s\n" % (source, declared))

    def latest(self, wall):
        """The index of the last update by then (-1: none)."""
        return bisect.bisect_right(self.times, wall) - 1

    def counter(self, wall):
        i = self.latest(wall)
        return self.updates[i][1] if i >= 0 else 0

    def reading(self, before, read):
        """A counter's energy since the previous sample read it (uJ); a
        power meter's latest update when the query went, at before (W)."""
        if not self.power:
            return "%d" % (self.counter(read) - self.counter(before))
        i = self.latest(before)
        if i < 1:
            return "0"
        (u0, e0), (u1, e1) = self.updates[i - 1], self.updates[i]
        return "%.6f" % ((e1 - e0) * 1e-6 / (u1 - u0))


def parse_cycle(text):
    """"a:8,b:20,c:12" as [(0xa, 0.008), ...]: phases of fixed length in a
    fixed order, again and again."""
    cycle = []
    for item in text.split(","):
        name, ms = item.split(":")
        pc = int(name, 16)
        if pc not in (0xa, 0xb, 0xc) or not float(ms) > 0:
            raise argparse.ArgumentTypeError("bad phase '%s' (a, b or c:MS)" % item)
        cycle.append((pc, float(ms) * 1e-3))
    return cycle


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--hz", type=float, default=1000)
    p.add_argument("--hold-us", type=float, default=30)
    p.add_argument("--phase-ms", type=float, default=5)
    p.add_argument("--update-ms", type=float, default=1)
    p.add_argument("--seconds", type=float, default=1.2)
    p.add_argument("--stall-ms", type=float, default=0)
    p.add_argument("--ranks", type=int, default=1)
    p.add_argument("--slice-ms", type=float, default=0)
    p.add_argument("--missed", default="0")
    p.add_argument("--partial", type=float, default=0)
    p.add_argument("--partial-end", action="store_true")
    p.add_argument("--no-runs", action="store_true")
    p.add_argument("--starve", help="ON,OFF (ms)")
    p.add_argument("--delay-ms", type=float)
    p.add_argument("--power", action="store_true")
    p.add_argument("--late-ms", help="A,B")
    p.add_argument("--declare", action="store_true")
    p.add_argument("--cycle", type=parse_cycle, help="PC:MS,... (e.g. a:8,b:20,c:12)")
    p.add_argument("truth", help="TRUTH, or with --ranks PREFIX")
    args = p.parse_args()
    if args.slice_ms and args.ranks != 2:
        p.error("--slice-ms takes turns between two ranks")
    if args.slice_ms and args.starve:
        p.error("--slice-ms or --starve, not both")
    if (args.power or args.late_ms or args.declare) and args.delay_ms is None:
        p.error("--power, --late-ms and --declare are of a meter with a delay (--delay-ms)")
    missed = [float(m) for m in args.missed.split(",")]
    missed += [missed[-1]] * (args.ranks - len(missed))
    rng = random.Random(args.seed)
    ranks = [Rank(rng, args, k, missed[k]) for k in range(args.ranks)]
    update = args.update_ms * 1e-3

    # The meter's updates, and what each counted: the node's energy.
    updates, when = [], T0 + rng.uniform(0, update)
    end = max(r.stops[-1] for r in ranks) + ranks[0].hold + update
    delay = (args.delay_ms or 0) * 1e-3
    while when < end:
        drawn = sum(r.phases.at(r.cpu_at(when - delay))[1] for r in ranks)
        updates.append((when, int(drawn * 1e6)))
        when += update + rng.uniform(-1e-4, 1e-4)
    late = [float(x) * 1e-3 for x in args.late_ms.split(",")] if args.late_ms else None
    declared = (" update_ms=%g delay_ms=%g" % (args.update_ms, args.delay_ms)
                if args.declare else "")
    meter = Meter(updates, "rapl" if args.delay_ms is None else "scpi", args.power, late, declared)
    if args.ranks == 1:
        ranks[0].write(sys.stdout, meter, args.hz, 100, not args.no_runs)
        ranks[0].write_truth(args.truth)
        return
    for k, r in enumerate(ranks):
        with open("%s.%d.txt" % (args.truth, k), "w") as out:
            r.write(out, meter, args.hz, 100 + k, not args.no_runs)
        r.write_truth("%s.%d.truth" % (args.truth, k))


if __name__ == "__main__":
    main()
