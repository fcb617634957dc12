#!/usr/bin/python3
"""deepstacks.py - a profile recorded "with -g" whose stacks are deep and
many, built through contract 1's text view (`sampler-profile build`):

    deepstacks.py OUT DEPTH LEAVES [--rank R] [--samples N] [--dir DIR]

A program of LEAVES leaf functions and one recursive function `rec` is
compiled (gcc); every stack is main, then rec DEPTH - 2 times, then one
leaf: LEAVES distinct stacks of DEPTH frames that share a trunk of
DEPTH - 1, N thread-samples each (1 ms of CPU time each).  For the tests
of 19.5 (no recursion over frames) and 19.6 (memory and time follow the
tree's nodes), and for the figures in docs/SCRIPTS.md.
"""

import argparse
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "scripts"))

from samplerlib import elfmap  # noqa: E402

START = 5_000_000_000
BASE = 0x555555554000


def program(dirname, leaves):
    """(exe, {name: address}): the program, compiled once per size."""
    exe = os.path.join(dirname, "deep%d" % leaves)
    if not os.path.exists(exe):
        src = exe + ".c"
        with open(src, "w") as f:
            for i in range(leaves):
                f.write('void leaf%d(void) { __asm__ volatile("nop; nop; nop; nop"); }\n' % i)
            f.write("int rec(int n) { return n ? rec(n - 1) + 1 : 0; }\n")
            f.write("int main(void) { return rec(3); }\n")
        subprocess.run(["gcc", "-O0", "-o", exe, src], check=True)
    out = subprocess.run(
        ["nm", "--defined-only", exe], capture_output=True, text=True, check=True
    ).stdout
    syms = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3:
            syms[parts[2]] = int(parts[0], 16)
    return exe, syms


def write_text(f, exe, syms, depth, leaves, samples, rank):
    rank_field = " rank=%d job_id=77" % rank if rank is not None else ""
    f.write(
        "host hostname=deephost os_release=6.1 os_version=%%231 arch=x86_64 cpu_desc=cpu "
        "cpu_id=GenuineIntel,6,85,4 nr_cpus_online=2 nr_cpus_avail=2 total_mem_kb=1000 "
        "sampler_version=0.1.0 cmdline=sampler realtime_ns=1700000000000000000 "
        "monotonic_ns=%d start_ns=%d target_hz=1000%s\n" % (START, START, rank_field)
    )
    pid = 100 + (rank or 0)
    f.write("process pid=%d ppid=0 time=%d\n" % (pid, START))
    f.write("exec pid=%d time=%d comm=deep argv=./deep\n" % (pid, START))
    maps, _ = elfmap.binary_maps(exe, BASE)
    for m in maps:
        f.write(
            "map pid=%d time=%d start=0x%x len=0x%x pgoff=0x%x dev=%s inode=%s prot=%s path=%s\n"
            % (pid, START, m["start"], m["len"], m["pgoff"], m["dev"], m["inode"], m["prot"],
               m["path"])
        )
    callers = ["0x%x" % (BASE + syms["rec"] + 8)] * (depth - 2)
    callers.append("0x%x" % (BASE + syms["main"] + 8))
    stack = ",".join(callers)  # innermost first
    t, cpu, n = START, 0, 0
    for _ in range(samples):
        for i in range(leaves):
            t += 1_000_000
            cpu += 1_000_000
            n += 1
            f.write("sample time=%d nthreads=1 values=\n" % t)
            f.write(
                "ts tid=%d pid=%d pc=0x%x cpu=%d stack=%s stack_end=complete\n"
                % (pid, pid, BASE + syms["leaf%d" % i] + 4, cpu, stack)
            )
    f.write(
        "stats wall=%d latency=0 samples=%d thread_samples=%d missed=0 missing=0 signals=0 "
        "threads=1 processes=1 exit=0 totals=\n" % (t - START, n, n)
    )


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("out")
    p.add_argument("depth", type=int)
    p.add_argument("leaves", type=int)
    p.add_argument("--rank", type=int)
    p.add_argument("--samples", type=int, default=1)
    p.add_argument("--dir", default=None, help="where the program is compiled (OUT's)")
    p.add_argument("--bin", default=os.environ.get("SAMPLER_BIN_DIR", "build"))
    a = p.parse_args()
    exe, syms = program(a.dir or os.path.dirname(os.path.abspath(a.out)), a.leaves)
    build = subprocess.Popen(
        [os.path.join(a.bin, "sampler-profile"), "build", a.out], stdin=subprocess.PIPE
    )
    with build.stdin as f:
        import io

        text = io.TextIOWrapper(f, encoding="utf-8")
        text.write("format name=native compressed=0 stacks=1\n")
        write_text(text, exe, syms, a.depth, a.leaves, a.samples, a.rank)
        text.flush()
    return build.wait()


if __name__ == "__main__":
    sys.exit(main())
