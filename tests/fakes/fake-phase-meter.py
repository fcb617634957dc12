#!/usr/bin/python3
"""fake-phase-meter.py - fake meters driven by the phase a workload is in
(examples/phases.c logs its changes of phase into a shared STATE file, at
its thread's CPU time; the energy at a moment comes from that log and the
thread's CPU time then: a function draws its power while it runs).

The thread's CPU time is read as a meter sees energy: continuously.
/proc/PID/task/TID/schedstat alone will not do: for a thread that runs it
moves only at the scheduler's tick (every 4 ms at HZ=250), a meter 0-4 ms
stale that moved every phase's energy into the next.  A task-clock perf
event on the thread is read exactly (the kernel asks the thread's CPU);
it is tied to the thread's CPU time (schedstat) whenever the thread is off
a CPU, where schedstat is exact.

  fake-phase-meter.py state STATE...
      Create each STATE (zeroed) for a workload's PHASES_STATE.

  fake-phase-meter.py rapl ROOT STATE... [--update-ms 1] [--jitter-ms 0.1]
      A RAPL package domain under ROOT/class/powercap/intel-rapl:0 (as
      fake-powercap.py makes it) whose energy_uj is updated every
      update-ms (+- jitter-ms, uniformly; later when the machine is busy)
      with the energy the workload's phases drew until that moment.

  fake-phase-meter.py scpi PORTFILE STATE... [--rate-hz 1000] [--delay-ms 5]
      An SCPI power meter on 127.0.0.1 (port -> PORTFILE): at rate-hz it
      updates its reading with the mean power of its last period, as it was
      delay-ms earlier; MEAS:POW? answers the latest reading at once.

Both run until killed (SIGTERM).  Several STATEs are several workloads
on one node (two ranks): the meter counts the sum of their energies.
"""
import argparse
import collections
import ctypes
import mmap
import os
import platform
import random
import select
import signal
import socket
import struct
import sys
import time

ENTRIES = 4096
ENTRY = struct.Struct("<Qdd")
HEAD = 24
SIZE = HEAD + ENTRIES * ENTRY.size
WIDTH = 20


PERF_EVENT_OPEN = {"x86_64": 298, "aarch64": 241}.get(platform.machine())
PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, PERF_FLAG_FD_CLOEXEC = 1, 1, 8
PERF_ATTR = struct.Struct("<IIQ96x")  # type, size, config; the rest 0: counting, enabled


def schedstat(pid, tid):
    """The thread's CPU time (ns) as the scheduler last accounted it."""
    with open("/proc/%d/task/%d/schedstat" % (pid, tid)) as f:
        return int(f.read().split()[0])


class CpuClock:
    """A thread's CPU time, read exactly while it runs (see the top)."""
    warned = False

    def __init__(self, pid, tid):
        self.pid, self.tid, self.fd = pid, tid, -1
        attr = PERF_ATTR.pack(PERF_TYPE_SOFTWARE, PERF_ATTR.size, PERF_COUNT_SW_TASK_CLOCK)
        libc = ctypes.CDLL(None, use_errno=True)
        if PERF_EVENT_OPEN is not None:
            self.fd = libc.syscall(PERF_EVENT_OPEN, attr, tid, -1, -1, PERF_FLAG_FD_CLOEXEC)
        if self.fd < 0 and not CpuClock.warned:
            CpuClock.warned = True
            sys.stderr.write("fake-phase-meter: no task-clock event (%s): the CPU time comes "
                             "from schedstat, up to a tick stale\n"
                             % os.strerror(ctypes.get_errno() or 38))
        self.offset = schedstat(pid, tid) - self.task_clock() if self.fd >= 0 else 0

    def task_clock(self):
        return struct.unpack("<Q", os.read(self.fd, 8))[0]

    def now(self):
        """The thread's CPU time now, ns."""
        if self.fd < 0:
            return schedstat(self.pid, self.tid)
        before = self.task_clock()
        exact = schedstat(self.pid, self.tid)
        after = self.task_clock()
        if before == after:  # off a CPU: schedstat is exact, re-tie the two clocks
            self.offset = exact - after
        return after + self.offset

    def close(self):
        if self.fd >= 0:
            os.close(self.fd)


class Phases:
    """The workload's energy as a function of time, from its log."""

    def __init__(self, path):
        fd = os.open(path, os.O_RDONLY)
        self.map = mmap.mmap(fd, SIZE, mmap.MAP_SHARED, mmap.PROT_READ)
        os.close(fd)
        self.clock = None
        self.last = 0.0

    def cpu_now(self, pid, tid):
        if not self.clock or (self.clock.pid, self.clock.tid) != (pid, tid):
            if self.clock:
                self.clock.close()
            self.clock = CpuClock(pid, tid)
        return self.clock.now()

    def energy_now(self):
        """Joules drawn until now (never less than before: the task clock
        runs up to 1% ahead of the CPU time it is tied to again)."""
        self.last = max(self.last, self.energy_estimate())
        return self.last

    def energy_estimate(self):
        count, pid, tid = struct.unpack_from("<QQQ", self.map, 0)
        if not count:
            return 0.0
        cpu, energy, power = ENTRY.unpack_from(self.map, HEAD + ((count - 1) % ENTRIES) * ENTRY.size)
        if not power:
            return energy
        try:
            now = self.cpu_now(pid, tid)
        except (OSError, ValueError, IndexError):
            return energy  # gone: its last change was its end
        return energy + power * max(0, now - cpu) * 1e-9


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
    reading = b"0\r\n"
    last = next_poll = time.monotonic_ns()
    last_e = 0.0
    conns, bufs = [], {}
    while True:
        now = time.monotonic_ns()
        if now >= next_poll:
            history.append((now, phases.energy_now()))
            next_poll = now + poll
            while len(history) > 2 and history[1][0] <= now - delay - 2 * period:
                history.popleft()
        if now >= last + period:
            e = energy_before(history, now - delay)
            reading = b"%.6f\r\n" % ((e - last_e) / ((now - last) * 1e-9))
            last, last_e = now, e
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
                if line.strip() == b"MEAS:POW?":
                    try:
                        s.sendall(reading)
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
    args = p.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    {"state": make_state, "rapl": rapl, "scpi": scpi}[args.cmd](args)


if __name__ == "__main__":
    main()
