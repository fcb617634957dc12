#!/usr/bin/python3
"""fake-hwmon.py - a fake hwmon class tree for the sensors plug-in's tests.

libsensors reads /sys itself, so the tests bind-mount the CLASSDIR made here
over /sys/class in a private mount namespace (unshare -m).  A hwmon device
without a `device` link is what libsensors calls a virtual chip: it is named
"NAME-virtual-0".

  fake-hwmon.py make CLASSDIR
      CLASSDIR/hwmon/hwmon0: name=fakepower, power1_input 12.5 W,
      in0_input 12.0 V, curr1_input 1.042 A, energy1_input 5 J,
      temp1_input 21 C (not recorded: not an electrical input).

  fake-hwmon.py run CLASSDIR --watts W [--seconds S] [--step-ms MS]
                [--settle-ms MS] --log FILE
      Advance energy1_input by W watts in steps (each value replaced with
      rename, as libsensors re-opens the file every read), keep still for
      --settle-ms, and log "added_uj=N".
"""
import argparse
import os
import time


def chip(classdir):
    return os.path.join(classdir, "hwmon", "hwmon0")


def put(path, text):
    with open(path + ".tmp", "w") as f:
        f.write(text + "\n")
    os.replace(path + ".tmp", path)


def make(args):
    d = chip(args.classdir)
    os.makedirs(d, exist_ok=True)
    for name, value in (("name", "fakepower"), ("power1_input", "12500000"),
                        ("in0_input", "12000"), ("curr1_input", "1042"),
                        ("energy1_input", "5000000"), ("temp1_input", "21000")):
        put(os.path.join(d, name), value)


def run(args):
    path = os.path.join(chip(args.classdir), "energy1_input")
    value = int(open(path).read())
    step = round(args.watts * args.step_ms * 1000)
    steps = round(args.seconds * 1000 / args.step_ms)
    start = time.monotonic()
    for i in range(1, steps + 1):
        value += step
        put(path, str(value))
        delay = start + i * args.step_ms / 1000 - time.monotonic()
        if delay > 0:
            time.sleep(delay)
    time.sleep(args.settle_ms / 1000)
    with open(args.log, "w") as log:
        log.write(f"added_uj={step * steps}\n")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("make")
    m.add_argument("classdir")
    r = sub.add_parser("run")
    r.add_argument("classdir")
    r.add_argument("--watts", type=float, required=True)
    r.add_argument("--seconds", type=float, default=0.3)
    r.add_argument("--step-ms", type=float, default=5)
    r.add_argument("--settle-ms", type=float, default=50)
    r.add_argument("--log", required=True)
    args = p.parse_args()
    make(args) if args.cmd == "make" else run(args)


if __name__ == "__main__":
    main()
