#!/usr/bin/python3
"""sim-errors.py [--meter FILE] TRUTH PROFILE [EXPORTER-OPTION...] - each
function's signed error (%) of a simulated profile (tests/pmu/phase-sim.py)
against its truth: one line "PC ERROR" per function but rest (0xd).  The
energy per PC is read through the exporter's columns (samplerlib.colprof),
whose cells of a power channel hold each row's energy by its estimate, as
an energy channel's do; SAMPLER_BIN_DIR says which exporter.  --meter FILE:
the estimate's meter there, "update_ms=U delay_ms=D" (its `# meter` line)."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "scripts"))
from samplerlib import colprof  # noqa: E402


def main():
    args = sys.argv[1:]
    meter = args[1] if args[:1] == ["--meter"] else None
    args = args[2:] if meter else args
    if len(args) < 2:
        sys.exit(__doc__.split("\n")[0])
    with open(args[0]) as f:
        truth = {int(k, 16): float(v) for k, v in (w.split("=") for w in f.read().split()[1:])}
    profile = colprof.Profile(args[1], symbols=False, extra_args=args[2:])
    channel = profile.channels[0]
    joules = dict.fromkeys(truth, 0.0)
    for block in profile.blocks():
        rows = block[(block["kind"] == 0) & (block[channel.field] == block[channel.field])]
        pcs, index = np.unique(rows["pc"], return_inverse=True)
        for pc, value in zip(pcs, np.bincount(index, weights=rows[channel.field])):
            joules[int(pc)] = joules.get(int(pc), 0.0) + value * channel.scale
    if meter:  # (the end rule has no estimate, no meter)
        with open(meter, "w") as f:
            for m in getattr(profile, "meters", []):
                f.write("update_ms=%s delay_ms=%s\n" % (m["update_ms"], m["delay_ms"]))
    for pc, j in sorted(truth.items()):
        if pc != 0xd:
            print("0x%x %.3f" % (pc, 100 * (joules[pc] - j) / j))


if __name__ == "__main__":
    main()
