#!/usr/bin/python3
"""fake-powercap.py - a fake RAPL powercap tree for the rapl plug-in's tests.

  fake-powercap.py make ROOT [--packages N] [--range UJ] [--start UJ]
      Create ROOT/class/powercap/intel-rapl:N (package-N) with sub-zones
      intel-rapl:N:0 (core) and intel-rapl:N:1 (dram), each with name,
      energy_uj and max_energy_range_uj.

  fake-powercap.py run ROOT --rate ZONE=WATTS [--rate ...] [--seconds S]
                   [--step-ms MS] [--settle-ms MS] --log FILE
      Advance each ZONE's energy_uj by WATTS for S seconds in steps of MS,
      wrapping at max_energy_range_uj (the counter runs 0..range, so it wraps
      to value - range - 1), then keep still for --settle-ms so a reader
      catches the last step, and log per zone "zone=Z added=UJ wraps=N".

The counter is rewritten in place (pwrite, same inode, fixed width), as the
plug-in keeps energy_uj open and re-reads it with pread.
"""
import argparse
import os
import sys
import time

WIDTH = 20


def zone_dir(root, zone):
    return os.path.join(root, "class", "powercap", zone)


def write_file(path, text):
    with open(path, "w") as f:
        f.write(text)


def make(args):
    for pkg in range(args.packages):
        zones = [(f"intel-rapl:{pkg}", f"package-{pkg}"),
                 (f"intel-rapl:{pkg}:0", "core"),
                 (f"intel-rapl:{pkg}:1", "dram")]
        for zone, name in zones:
            d = zone_dir(args.root, zone)
            os.makedirs(d, exist_ok=True)
            write_file(os.path.join(d, "name"), name + "\n")
            write_file(os.path.join(d, "max_energy_range_uj"), f"{args.range}\n")
            write_file(os.path.join(d, "energy_uj"), f"{args.start:0{WIDTH}d}\n")


def run(args):
    zones = []
    for spec in args.rate:
        zone, watts = spec.split("=")
        d = zone_dir(args.root, zone)
        rng = int(open(os.path.join(d, "max_energy_range_uj")).read())
        fd = os.open(os.path.join(d, "energy_uj"), os.O_RDWR)
        value = int(os.pread(fd, 64, 0))
        zones.append({"zone": zone, "fd": fd, "range": rng, "value": value,
                      "step": round(float(watts) * args.step_ms * 1000),
                      "added": 0, "wraps": 0})
    steps = round(args.seconds * 1000 / args.step_ms)
    start = time.monotonic()
    for i in range(1, steps + 1):
        for z in zones:
            z["value"] += z["step"]
            z["added"] += z["step"]
            if z["value"] > z["range"]:
                z["value"] -= z["range"] + 1
                z["wraps"] += 1
            os.pwrite(z["fd"], f"{z['value']:0{WIDTH}d}\n".encode(), 0)
        delay = start + i * args.step_ms / 1000 - time.monotonic()
        if delay > 0:
            time.sleep(delay)
    time.sleep(args.settle_ms / 1000)
    with open(args.log, "w") as log:
        for z in zones:
            log.write(f"zone={z['zone']} added={z['added']} wraps={z['wraps']}\n")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("make")
    m.add_argument("root")
    m.add_argument("--packages", type=int, default=1)
    m.add_argument("--range", type=int, default=262143328850)
    m.add_argument("--start", type=int, default=0)
    r = sub.add_parser("run")
    r.add_argument("root")
    r.add_argument("--rate", action="append", required=True)
    r.add_argument("--seconds", type=float, default=0.5)
    r.add_argument("--step-ms", type=float, default=5)
    r.add_argument("--settle-ms", type=float, default=50)
    r.add_argument("--log", required=True)
    args = p.parse_args()
    make(args) if args.cmd == "make" else run(args)


if __name__ == "__main__":
    sys.exit(main())
