#!/usr/bin/python3
"""Flip 1-3 random bits of a profile N times and run `sampler-profile dump`
on each copy (under a timeout).  Prints one line: the exit statuses seen and
how many error messages named a byte offset, e.g.
    runs=200 rc0=0 rc1=190 rc2=10 other=0 offset_named=188 bad_messages=0
`other` counts crashes (signals), timeouts and unexpected statuses; failing
copies are kept as fuzz-fail-N.* for a look.
Usage: fuzz-dump.py SAMPLER-PROFILE FILE RUNS SEED"""
import random
import subprocess
import sys


def main():
    prog, path, runs, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    data = open(path, "rb").read()
    rnd = random.Random(seed)
    suffix = ".bz2" if path.endswith(".bz2") else ""
    counts = {"rc0": 0, "rc1": 0, "rc2": 0, "other": 0, "offset_named": 0, "bad_messages": 0}
    for i in range(runs):
        copy = bytearray(data)
        for _ in range(rnd.randint(1, 3)):
            copy[rnd.randrange(len(copy))] ^= 1 << rnd.randrange(8)
        name = "fuzz.prof" + suffix
        with open(name, "wb") as f:
            f.write(copy)
        try:
            p = subprocess.run([prog, "dump", name], stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, timeout=20)
            rc = p.returncode
        except subprocess.TimeoutExpired:
            rc = -1000
        err = p.stderr.decode(errors="replace") if rc != -1000 else ""
        if rc in (0, 1, 2):
            counts["rc%d" % rc] += 1
        else:
            counts["other"] += 1
            with open("fuzz-fail-%d.prof%s" % (i, suffix), "wb") as f:
                f.write(copy)
        if rc == 1:
            lines = err.splitlines()
            if len(lines) != 1 or not lines[0].startswith("sampler-profile: error: "):
                counts["bad_messages"] += 1
            if "byte offset" in err:
                counts["offset_named"] += 1
    print("runs=%d %s" % (runs, " ".join("%s=%d" % kv for kv in counts.items())))


if __name__ == "__main__":
    main()
