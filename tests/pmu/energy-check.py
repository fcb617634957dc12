#!/usr/bin/python3
"""energy-check.py - energy per function of repeated runs of examples/phases
against the truth the workload printed (t2110, docs/ACCURACY.md).

  energy-check.py [--rule R] [--channel C] [--tree] [--report-arg A]... RUN...

RUN is a prefix: RUN.prof is the profile and RUN.truth the workload's
"truth alpha=J beta=J gamma=J rest=J delta=J" line.  Each profile goes
through `sampler-report --json --energy-rule R`; per (function, run) it
prints the signed error of the energy and whether the truth's energy share
lies in the report's 95% interval (--tree: of the call path ending in it,
profiles recorded with -g), then one line:
    summary rule=R pairs=N mean_abs_err=PCT worst=PCT coverage=PCT
        small_pairs=N small_coverage=PCT
The errors are those of alpha, beta and gamma (16-57% of the energy);
delta (about 1.7%, a few phases a run) has a sampling error of tens of
percent of its own energy, so it counts in the coverage only (coverage
over all pairs; small_coverage: delta's alone).
"""
import argparse
import json
import os
import subprocess
import sys

FUNCTIONS = ("alpha", "beta", "gamma", "delta")
SMALL = ("delta",)  # in the coverage, not in the errors


def report(prof, rule, channel, extra):
    script = os.path.join(os.path.dirname(__file__), "..", "..", "scripts", "sampler-report")
    out = subprocess.run(
        [sys.executable, script, "--json", "--no-cache", "--energy-rule", rule] + extra + [prof],
        check=True, capture_output=True, text=True).stdout
    rows = {}
    for r in json.loads(out)["rows"]:  # (a tree: the heaviest path to each)
        if r.get(channel + "_J", 0.0) >= rows.get(r["name"], {}).get(channel + "_J", -1.0):
            rows[r["name"]] = r
    got = {}
    for f in FUNCTIONS:
        r = rows.get(f, {})
        got[f] = (r.get(channel + "_J", 0.0), r.get(channel + "_share_lo", 0.0),
                  r.get(channel + "_share_hi", 0.0))
    return got


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--rule", default="trapezoid")
    p.add_argument("--channel", default="package-0")
    p.add_argument("--tree", action="store_true")
    p.add_argument("--report-arg", action="append", default=[])
    p.add_argument("runs", nargs="+")
    args = p.parse_args()
    errors, covered, pairs, small, small_covered = [], 0, 0, 0, 0
    for run in args.runs:
        with open(run + ".truth") as f:
            truth = dict(w.split("=") for w in f.read().split()[1:])
        truth = {k: float(v) for k, v in truth.items()}
        total = sum(truth.values())
        extra = args.report_arg + (["--tree"] if args.tree else [])
        got = report(run + ".prof", args.rule, args.channel, extra)
        for f in FUNCTIONS:
            if f not in truth:  # (a workload without delta)
                continue
            joules, lo, hi = got[f]
            err = 100 * (joules - truth[f]) / truth[f]
            share = 100 * truth[f] / total
            inside = lo <= share <= hi
            pairs += 1
            covered += inside
            if f in SMALL:
                small += 1
                small_covered += inside
            else:
                errors.append(err)
            print("%s %s truth=%.4f J profile=%.4f J error=%+.2f%% truth_share=%.2f "
                  "interval=[%.2f,%.2f] covered=%d"
                  % (os.path.basename(run), f, truth[f], joules, err, share, lo, hi, inside))
    n = len(errors)
    print("summary rule=%s pairs=%d mean_abs_err=%.2f worst=%.2f coverage=%.1f "
          "small_pairs=%d small_coverage=%.1f"
          % (args.rule, pairs, sum(abs(e) for e in errors) / n, max(abs(e) for e in errors),
             100 * covered / pairs, small, 100 * small_covered / small if small else 100.0))


if __name__ == "__main__":
    main()
