#!/usr/bin/python3
"""many-processes.py DUMP N [BINARIES] - a profile text of N short processes.

The format and host lines of DUMP (sampler-profile dump of any profile),
then N processes one after the other, as a shell loop of N commands
records them: each with its exec, thread, the executable's map and two
samples of its one thread.  The executables are BINARIES distinct paths
(default N: each process its own binary).  Feed it to sampler-profile
build: 200,000 processes without running 200,000 programs.
"""
import re
import sys


def main() -> None:
    head = [line for line in open(sys.argv[1]) if line.startswith(("format ", "host "))]
    n = int(sys.argv[2])
    nbin = int(sys.argv[3]) if len(sys.argv) > 3 else n
    host = head[-1]
    start = int(host.split(" start_ns=")[1].split()[0])
    out = sys.stdout
    out.write(re.sub(r" clock=\d+", "", "".join(head)))  # no clock samples
    for i in range(n):
        pid, t = 1000 + i, start + 1000000 * (i + 1)
        path = "/nonexistent/bin/p%d" % (i % nbin)
        out.write("process pid=%d ppid=1 time=%d\n" % (pid, t))
        out.write("exec pid=%d time=%d comm=p%d argv=%s\n" % (pid, t, i % nbin, path))
        out.write("thread tid=%d pid=%d time=%d\n" % (pid, pid, t))
        out.write("map pid=%d time=%d start=0x400000 len=0x1000 pgoff=0x0 dev=00:00 inode=0 "
                  "prot=r-x path=%s\n" % (pid, t, path))
        for k in (1, 2):  # then it exits (a profile holds at most 65536 live threads)
            out.write("sample time=%d nthreads=1 values=\n" % (t + k * 400000))
            out.write("ts tid=%d pid=%d pc=0x400%03x cpu=%d dcpu=%d counters= "
                      "dcounters=\n" % (pid, pid, 16 * k, 300000 * k, 300000))
        out.write("exit tid=%d pid=%d time=%d whole=1 cpu=600000 counters=\n"
                  % (pid, pid, t + 900000))
    out.write("stats wall=%d latency=0 samples=%d thread_samples=%d missed=0 missing=0 "
              "signals=0 threads=%d processes=%d exit=0 totals= hold=0\n"
              % (1000000 * (n + 1), 2 * n, 2 * n, n, n))


main()
