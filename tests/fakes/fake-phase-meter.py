#!/usr/bin/python3
"""fake-phase-meter.py - fake meters driven by the phase a workload is in
(examples/phases.c logs its changes of phase into a shared STATE file, on
its work clock, and the units of work it has done as it goes; the energy at
a moment comes from that log and the work done then: a function draws its
power while it runs, and only then).

  fake-phase-meter.py state STATE...
      Create each STATE (zeroed) for a workload's PHASES_STATE.

  fake-phase-meter.py rapl ROOT STATE... [--update-ms 1] [--jitter-ms 0.1]
      A RAPL package domain under ROOT/class/powercap/intel-rapl:0 (as
      fake-powercap.py makes it) whose energy_uj is updated every
      update-ms (+- jitter-ms, uniformly; later when the machine is busy)
      with the energy the workload's phases drew until that moment.

  fake-phase-meter.py scpi PORTFILE STATE... [--rate-hz 1000] [--delay-ms 5]
                                             [--log FILE]
      An SCPI power meter on 127.0.0.1 (port -> PORTFILE): at rate-hz it
      updates its reading with the mean power of its last period, as it was
      delay-ms earlier; MEAS:POW? answers the latest reading at once.  It
      integrates too, as power analyzers do: MEAS:ENER? answers the energy
      (J) counted until its latest update (the same clock and delay).
      --log FILE: one line per update, "update T_NS ENERGY_J POWER_W", and
      per query answered, "query ARRIVED_NS UPDATE_T_NS" (the update its
      answer is; CLOCK_MONOTONIC, as the sampler's timestamps).

Both run until killed (SIGTERM).  Several STATEs are several workloads
on one node (two ranks): the meter counts the sum of their energies.
"""
import argparse
import collections
import mmap
import os
import random
import select
import signal
import socket
import struct
import sys
import time

ENTRIES = 4096
ENTRY = struct.Struct("<Qddd")
HEAD = 16
SIZE = HEAD + ENTRIES * ENTRY.size
WIDTH = 20


class Phases:
    """The workload's energy as a function of time, from its log."""

    def __init__(self, path):
        fd = os.open(path, os.O_RDONLY)
        self.map = mmap.mmap(fd, SIZE, mmap.MAP_SHARED, mmap.PROT_READ)
        os.close(fd)

    def energy_now(self):
        """Joules drawn until now."""
        while True:
            count, done = struct.unpack_from("<QQ", self.map, 0)
            if not count:
                return 0.0
            at, energy, power, ns_per_unit = ENTRY.unpack_from(
                self.map, HEAD + ((count - 1) % ENTRIES) * ENTRY.size)
            if struct.unpack_from("<Q", self.map, 0)[0] == count:
                break  # (else a change came between: read it again)
        # (not the thread's CPU time from /proc: that of a running thread
        # moves only at a scheduler tick or when it leaves its CPU)
        return energy + power * max(0, done - at) * ns_per_unit * 1e-9


class Node:
    """Several workloads that one meter counts together."""

    def __init__(self, paths):
        self.phases = [Phases(p) for p in paths]

    def energy_now(self):
        return sum(p.energy_now() for p in self.phases)


def make_state(args):
    for path in args.state:
        with open(path, "wb") as f:
            f.write(b"\0" * SIZE)


def rapl(args):
    d = os.path.join(args.root, "class", "powercap", "intel-rapl:0")
    os.makedirs(d, exist_ok=True)
    for name, text in (("name", "package-0\n"), ("max_energy_range_uj", "262143328850\n"),
                       ("energy_uj", "%0*d\n" % (WIDTH, 0))):
        with open(os.path.join(d, name), "w") as f:
            f.write(text)
    phases = Node(args.state)
    fd = os.open(os.path.join(d, "energy_uj"), os.O_RDWR)
    rng = random.Random(1)
    tick = time.monotonic_ns()
    last = 0
    while True:
        tick += int((args.update_ms + rng.uniform(-args.jitter_ms, args.jitter_ms)) * 1e6)
        delay = tick - time.monotonic_ns()
        if delay > 0:
            time.sleep(delay * 1e-9)
        # (never back: the estimate between two logged changes may overshoot)
        uj = last = max(last, int(phases.energy_now() * 1e6))
        os.pwrite(fd, b"%0*d\n" % (WIDTH, uj), 0)


def energy_before(history, t):
    """The energy at time t, interpolated in the polled history."""
    prev = None
    for when, e in history:
        if when >= t:
            if prev is None:
                return e
            w0, e0 = prev
            return e0 + (e - e0) * (t - w0) / max(1, when - w0)
        prev = (when, e)
    return prev[1] if prev else 0.0


def scpi(args):
    phases = Node(args.state)
    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("127.0.0.1", 0))
    srv.listen(4)
    with open(args.portfile + ".tmp", "w") as f:
        f.write("%d\n" % srv.getsockname()[1])
    os.replace(args.portfile + ".tmp", args.portfile)
    period = int(1e9 / args.rate_hz)
    delay = int(args.delay_ms * 1e6)
    poll = 200000  # ns: the energy is sampled this often, kept for the delay
    history = collections.deque()
    reading = energy = b"0\r\n"
    last = next_poll = time.monotonic_ns()
    last_e = 0.0
    log = open(args.log, "w", buffering=1) if args.log else None
    conns, bufs = [], {}
    while True:
        now = time.monotonic_ns()
        if now >= next_poll:
            history.append((now, phases.energy_now()))
            next_poll = now + poll
            while len(history) > 2 and history[1][0] <= now - delay - 2 * period:
                history.popleft()
        if now >= last + period:
            # on the meter's clock: every period on the dot, never drifting
            # by what this loop was late (a late loop's update covers the
            # periods it missed, as one)
            tick = last + period * ((now - last) // period)
            # (never back: the estimate between two logged changes may overshoot)
            e = max(last_e, energy_before(history, tick - delay))
            power = (e - last_e) / ((tick - last) * 1e-9)
            reading = b"%.6f\r\n" % power
            energy = b"%.9f\r\n" % e
            if log:
                log.write("update %d %.9f %.6f\n" % (tick, e, power))
            last, last_e = tick, e
        timeout = max(0.0, (min(next_poll, last + period) - time.monotonic_ns()) * 1e-9)
        ready, _, _ = select.select([srv] + conns, [], [], timeout)
        for s in ready:
            if s is srv:
                c, _ = srv.accept()
                c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                conns.append(c)
                bufs[c] = b""
                continue
            try:
                data = s.recv(4096)
            except OSError:
                data = b""
            if not data:
                conns.remove(s)
                del bufs[s]
                s.close()
                continue
            bufs[s] += data
            while b"\n" in bufs[s]:
                line, bufs[s] = bufs[s].split(b"\n", 1)
                answer = {b"MEAS:POW?": reading, b"MEAS:ENER?": energy}.get(line.strip())
                if answer:
                    if log:
                        log.write("query %d %d\n" % (time.monotonic_ns(), last))
                    try:
                        s.sendall(answer)
                    except OSError:
                        pass


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("state")
    s.add_argument("state", nargs="+")
    r = sub.add_parser("rapl")
    r.add_argument("root")
    r.add_argument("state", nargs="+")
    r.add_argument("--update-ms", type=float, default=1.0)
    r.add_argument("--jitter-ms", type=float, default=0.1)
    m = sub.add_parser("scpi")
    m.add_argument("portfile")
    m.add_argument("state", nargs="+")
    m.add_argument("--rate-hz", type=float, default=1000)
    m.add_argument("--delay-ms", type=float, default=5)
    m.add_argument("--log")
    args = p.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    {"state": make_state, "rapl": rapl, "scpi": scpi}[args.cmd](args)


if __name__ == "__main__":
    main()
