"""Shared fixtures for the script tests (tests/scripts/test_*.py).

Profiles with known content are written in contract 1's text view and
turned into real profiles by `sampler-profile build`; their PCs lie in known
functions of a small program compiled here, so sampler-export's symbolizer
(elfutils) names them.  Tests that need a C program which is not built skip
and say why.
"""

import os
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPTS = os.path.join(ROOT, "scripts")
FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")
BIN = os.environ.get("SAMPLER_BIN_DIR") or os.path.join(ROOT, "build")
EXAMPLES = os.environ.get("SAMPLER_EXAMPLES") or os.path.join(ROOT, "build", "examples")
sys.path.insert(0, SCRIPTS)

from samplerlib import elfmap  # noqa: E402
from samplerlib.textview import format_line  # noqa: E402

START = 5_000_000_000  # CLOCK_MONOTONIC ns of the fake runs
REALTIME = 1_700_000_000_000_000_000
BASE = 0x555555554000  # where the PIE test program is "loaded"

APP_C = r"""
#include <stdlib.h>
#define LOOP for (long i = 0; i < n; i++)
__attribute__((noinline)) long f20(long n) { long s = 0; LOOP s += i * 3 + (s >> 3); return s; }
__attribute__((noinline)) long f30(long n) { long s = 1; LOOP s ^= i * 7 + (s << 1); return s; }
__attribute__((noinline)) long f50(long n) { long s = 2; LOOP s += (i | s) * 5 - (s >> 2);
    return s; }
/* a name matplotlib would hide from a legend (it skips labels starting with _) */
__attribute__((noinline)) long __u10(long n) { long s = 3; LOOP s ^= i; return s; }
int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 10;
    return (int)(f20(n) + f30(n) + f50(n) + __u10(n)) & 1;
}
"""


def have(prog):
    return os.access(os.path.join(BIN, prog), os.X_OK)


def need(*progs):
    missing = [p for p in progs if not have(p)]
    if missing:
        pytest.skip("%s not built in %s (run make)" % (", ".join(missing), BIN))


def need_perf_counters():
    """Skip unless the perf plug-in can count a software event here (the
    probe tests/lib.sh's PERF_COUNTERS makes): the skip names what is
    missing, and a recording that fails after the probe passed is a
    failure, whatever its message says."""
    need("sampler")
    probe = subprocess.run(
        [
            os.path.join(BIN, "sampler"),
            "-o",
            "/dev/null",
            "-p",
            "perf:perf::TASK-CLOCK",
            "--",
            "true",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    if probe.returncode != 0:
        pytest.skip("the perf plug-in cannot count here: %s" % probe.stderr.strip())


def run(prog, *args, ok=True):
    """Run scripts/PROG; with ok, fail the test on a non-zero status."""
    proc = subprocess.run(
        [sys.executable, os.path.join(SCRIPTS, prog)] + [str(a) for a in args],
        capture_output=True,
        text=True,
        timeout=120,
    )
    if ok and proc.returncode != 0:
        raise AssertionError(
            "%s %s: status %d, stderr: %s"
            % (prog, " ".join(map(str, args)), proc.returncode, proc.stderr)
        )
    return proc


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    """Every test has its own result cache, and finds the C programs in BIN."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("SAMPLER_BIN_DIR", BIN)


@pytest.fixture(scope="session")
def app(tmp_path_factory):
    """The test program: path, {function: (address, size)}, pie."""
    if not shutil.which("gcc"):
        pytest.skip("gcc not installed (needed to compile the test program)")
    d = tmp_path_factory.mktemp("app")
    src = d / "app.c"
    src.write_text(APP_C)
    exe = d / "app"
    subprocess.run(["gcc", "-O1", "-g", "-o", str(exe), str(src)], check=True)
    return exe, symbols_of(exe), True


@pytest.fixture(scope="session")
def app_nopie(tmp_path_factory):
    d = tmp_path_factory.mktemp("appnp")
    src = d / "app.c"
    src.write_text(APP_C)
    exe = d / "app-nopie"
    subprocess.run(["gcc", "-O1", "-g", "-no-pie", "-o", str(exe), str(src)], check=True)
    return exe, symbols_of(exe), False


def symbols_of(exe):
    out = subprocess.run(
        ["nm", "-S", "--defined-only", str(exe)], capture_output=True, text=True, check=True
    ).stdout
    syms = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[3] in ("f20", "f30", "f50", "__u10", "main"):
            syms[parts[3]] = (int(parts[0], 16), int(parts[1], 16))
    assert set(syms) >= {"f20", "f30", "f50"}, out
    return syms


def pc_in(app_info, func, k=0):
    """A PC inside func (varying with k, never past its end)."""
    exe, syms, pie = app_info
    addr, size = syms[func]
    return (BASE if pie else 0) + addr + (k * 4) % max(4, size - 4)


class ProfileText:
    """Contract 1 text of a run of the test program, sample by sample."""

    def __init__(self, app_info, channels=(), pid=100, comm="app"):
        self.app = app_info
        self.pid = pid
        self.channels = list(channels)  # (name, kind, unit, scale, scope)
        self.lines = []
        self.time = START
        self.cpu = {}
        self.samples = 0
        self.thread_samples = 0
        self.lines.append(
            format_line(
                "host",
                [
                    ("hostname", "testhost"),
                    ("os_release", "6.1"),
                    ("os_version", "#1"),
                    ("arch", "x86_64"),
                    ("cpu_desc", "test cpu"),
                    ("cpu_id", "GenuineIntel,6,85,4"),
                    ("nr_cpus_online", 2),
                    ("nr_cpus_avail", 2),
                    ("total_mem_kb", 1000),
                    ("sampler_version", "0.1.0"),
                    ("cmdline", "sampler -o x -- ./app"),
                    ("realtime_ns", REALTIME),
                    ("monotonic_ns", START),
                    ("start_ns", START),
                    ("target_hz", 1000),
                ],
            )
        )
        for name, kind, unit, scale, scope in self.channels:
            self.lines.append(
                format_line(
                    "channel",
                    [
                        ("name", name),
                        ("source", "test"),
                        ("unit", unit),
                        ("scale", scale),
                        ("kind", kind),
                        ("scope", scope),
                    ],
                )
            )
        self.threads = set()
        self.pid_of = {}  # tid -> pid, for the threads of add_process's processes
        self.nprocesses = 0
        self.add_process(pid, comm)

    def add_process(self, pid, comm, tids=()):
        """A process running the test program, whose threads are tids."""
        self.nprocesses += 1
        for tid in tids:
            self.pid_of[tid] = pid
        exe, _, pie = self.app
        self.lines.append(format_line("process", [("pid", pid), ("ppid", 0), ("time", START)]))
        self.lines.append(
            format_line(
                "exec", [("pid", pid), ("time", START), ("comm", comm), ("argv", "./app 10")]
            )
        )
        maps, _ = elfmap.binary_maps(str(exe), BASE if pie else 0)
        for m in maps:
            self.lines.append(
                format_line(
                    "map",
                    [
                        ("pid", pid),
                        ("time", START),
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

    def sample(self, threads, values=(), dt=1_000_000):
        """threads: [(tid, func, cpu_delta_ns[, counters])]; values: per-sample channels."""
        self.time += dt
        self.samples += 1
        for th in threads:
            if th[0] not in self.threads:
                self.threads.add(th[0])
                pid = self.pid_of.get(th[0], self.pid)
                self.lines.append(
                    format_line("thread", [("tid", th[0]), ("pid", pid), ("time", self.time)])
                )
        vals = ",".join("nan" if v is None else repr(float(v)) for v in values)
        self.lines.append(
            "sample time=%d nthreads=%d values=%s\n" % (self.time, len(threads), vals)
        )
        for k, th in enumerate(threads):
            tid, func, dcpu = th[:3]
            counters = th[3] if len(th) > 3 else ()
            self.cpu[tid] = self.cpu.get(tid, 0) + dcpu
            cnt = ",".join(str(c) for c in counters)
            pid, pc = self.pid_of.get(tid, self.pid), pc_in(self.app, func, self.samples + k)
            self.lines.append(
                "ts tid=%d pid=%d pc=0x%x cpu=%d counters=%s\n"
                % (tid, pid, pc, self.cpu[tid], cnt)
            )
            self.thread_samples += 1

    def text(self):
        stats = format_line(
            "stats",
            [
                ("wall", self.time - START),
                ("latency", 0),
                ("samples", self.samples),
                ("thread_samples", self.thread_samples),
                ("missed", 0),
                ("missing", 0),
                ("signals", 0),
                ("threads", len(self.threads)),
                ("processes", self.nprocesses),
                ("exit", 0),
                ("totals", ",".join("0" for _ in self.channels)),
            ],
        )
        return "".join(self.lines) + stats

    def build(self, out):
        need("sampler-profile")
        proc = subprocess.run(
            [os.path.join(BIN, "sampler-profile"), "build", str(out)],
            input=self.text().encode("utf-8", "surrogateescape"),  # any byte, as written
            capture_output=True,
        )
        assert proc.returncode == 0, proc.stderr.decode(errors="replace")
        return out


ENERGY = ("package-0", "energy", "uJ", 1e-6, "sample")


def split_profile(app_info, out, counts, energy_uj=None, dcpu=1_000_000):
    """One thread; counts {func: samples} interleaved; energy per sample by function."""
    p = ProfileText(app_info, channels=[ENERGY] if energy_uj else [])
    order = interleave(counts)
    for func in order:
        p.sample([(100, func, dcpu)], [energy_uj[func]] if energy_uj else [])
    return p.build(out)


def interleave(counts):
    """Functions spread evenly over the run (deterministic)."""
    total = sum(counts.values())
    seq, credit = [], {f: 0.0 for f in counts}
    for _ in range(total):
        for f in counts:
            credit[f] += counts[f] / total
        f = max(credit, key=lambda k: (credit[k], k))
        credit[f] -= 1
        seq.append(f)
    return seq


def report_json(*args):
    import json

    return json.loads(run("sampler-report", "--json", *args).stdout)


def rows_by_name(doc):
    return {r["name"]: r for r in doc["rows"]}
