#!/usr/bin/python3
"""phase-sim.py - a profile of examples/phases under the sampler, simulated
with an exact meter, to test the energy estimator alone (t2110,
docs/ACCURACY.md): no fake, no sampler, no machine load in the way.

  phase-sim.py [--seed N] [--hz 1000] [--hold-us 30] [--phase-ms 5]
               [--update-ms 1] [--seconds 1.2] [--stall-ms 0] TRUTH >PROFILE.txt

One thread runs 20 ms of rest (5 W), then alpha (13 W), beta (28 W) and
gamma (8 W) in turn for SECONDS of CPU time, each phase 0.5-1.5 x phase-ms,
then rest again.  The sampler stops it at hz (each sample up to 5% of a
period late) and holds it stopped hold-us, reading the meter at the end of
the hold; with stall-ms, it takes no sample for that long from a third of
the run on (a recorder that got no CPU: the thread runs on).  The meter is
a RAPL counter (integer uJ) that updates every update-ms (+- 0.1 ms, from a
random phase) with the energy drawn so far.
The profile goes to stdout in the text form sampler-profile build reads,
PCs 0xa, 0xb, 0xc (alpha, beta, gamma) and 0xd (rest); TRUTH gets
"truth 0xa=J 0xb=J 0xc=J 0xd=J".
"""
import argparse
import bisect
import random
import sys

WATTS = {0xa: 13.0, 0xb: 28.0, 0xc: 8.0, 0xd: 5.0}
T0 = 1.0  # s: the recording's start


class Phases:
    """What runs at each moment of the thread's CPU time, and the energy."""

    def __init__(self, rng, phase_s, seconds):
        self.spans = [(0.0, 0.02, 0xd)]
        cpu, k = 0.02, 0
        while cpu < 0.02 + seconds:
            length = phase_s * rng.uniform(0.5, 1.5)
            self.spans.append((cpu, cpu + length, (0xa, 0xb, 0xc)[k % 3]))
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


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--hz", type=float, default=1000)
    p.add_argument("--hold-us", type=float, default=30)
    p.add_argument("--phase-ms", type=float, default=5)
    p.add_argument("--update-ms", type=float, default=1)
    p.add_argument("--seconds", type=float, default=1.2)
    p.add_argument("--stall-ms", type=float, default=0)
    p.add_argument("truth")
    args = p.parse_args()
    rng = random.Random(args.seed)
    phases = Phases(rng, args.phase_ms * 1e-3, args.seconds)
    period, hold, update = 1 / args.hz, args.hold_us * 1e-6, args.update_ms * 1e-3

    # The samples: (wall time of the stop, CPU time then); the thread runs
    # from the end of one hold to the next stop.
    samples, cpu, run_from, slot = [], 0.0, T0, 1
    stall_from = T0 + phases.end / 3
    while True:
        stop = T0 + (slot + 0.05 * rng.random()) * period
        slot += 1
        if stall_from <= stop < stall_from + args.stall_ms * 1e-3:
            continue
        if cpu + stop - run_from >= phases.end:
            break
        cpu += stop - run_from
        samples.append((stop, cpu))
        run_from = stop + hold
    stops = [s for s, _ in samples]

    def cpu_at(wall):
        i = bisect.bisect_right(stops, wall) - 1
        if i < 0:
            return max(0.0, wall - T0)
        stop, c = samples[i]
        return c + max(0.0, wall - stop - hold)

    # The meter's updates, and what each counted.
    updates, when = [], T0 + rng.uniform(0, update)
    while when < stops[-1] + hold + update:
        updates.append((when, int(phases.at(cpu_at(when))[1] * 1e6)))
        when += update + rng.uniform(-1e-4, 1e-4)
    update_times = [u for u, _ in updates]

    def counter(wall):
        i = bisect.bisect_right(update_times, wall) - 1
        return updates[i][1] if i >= 0 else 0

    out = sys.stdout
    out.write("host hostname=sim os_release=6.1 os_version=1 arch=x86_64 cpu_desc=sim cpu_id=sim "
              "nr_cpus_online=2 nr_cpus_avail=2 total_mem_kb=1 sampler_version=0.1.0 cmdline=sim "
              "realtime_ns=1700000000000000000 monotonic_ns=1000000000 start_ns=1000000000 "
              "target_hz=%d\n" % args.hz)
    out.write("channel name=package-0 source=rapl unit=uJ scale=1e-06 kind=energy scope=sample\n")
    out.write("process pid=100 ppid=0 time=1000000000\nthread tid=100 pid=100 time=1000000000\n")
    last = total = 0
    for stop, c in samples:
        now = counter(stop + hold)
        out.write("sample time=%d nthreads=1 values=%d\n" % (stop * 1e9, now - last))
        out.write("ts tid=100 pid=100 pc=0x%x cpu=%d\n" % (phases.at(c)[0], c * 1e9))
        total, last = total + now - last, now
    end = stops[-1] + hold + 0.001
    out.write("exit tid=100 pid=100 time=%d whole=1\n" % (end * 1e9))
    out.write("stats wall=%d latency=%d samples=%d thread_samples=%d missed=0 missing=0 signals=0 "
              "threads=1 processes=1 exit=0 totals=%d\n"
              % ((end - T0) * 1e9, hold * 1e9 * len(samples), len(samples), len(samples), total))
    with open(args.truth, "w") as f:
        pairs = ("0x%x=%.6f" % (pc, j) for pc, j in sorted(phases.truth.items()))
        f.write("truth " + " ".join(pairs) + "\n")


if __name__ == "__main__":
    main()
