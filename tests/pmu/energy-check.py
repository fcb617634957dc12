#!/usr/bin/python3
"""energy-check.py - energy per function of repeated runs of examples/phases
against the truth the workload printed (t2110, docs/ENERGY.md).

  energy-check.py [--rule R] [--channel C] [--tree] [--ranks N] [--report-arg A]... RUN...

RUN is a prefix: RUN.prof is the profile and RUN.truth the workload's
"truth alpha=J beta=J gamma=J rest=J delta=J" line.  Each profile goes
through `sampler-report --json --energy-rule R`; per (function, run) it
prints the signed error of the energy and whether the truth's energy share
lies in the report's 95% interval (--tree: of the call path ending in it,
profiles recorded with -g), then one line:
    summary rule=R pairs=N mean_abs_err=PCT worst=PCT coverage=PCT
        small_pairs=N small_coverage=PCT
--ranks N: RUN.0 ... RUN.N-1 are the ranks of one job on one node (t2130),
reported together with --by rank,function; the pairs are (rank, function)
and a share is of its rank's energy.

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


def report(profs, rule, channel, extra):
    """{(group, function): (J, share_lo, share_hi)}; group "" unless the
    report is --by rank,function."""
    script = os.path.join(os.path.dirname(__file__), "..", "..", "scripts", "sampler-report")
    out = subprocess.run(
        [sys.executable, script, "--json", "--no-cache", "--energy-rule", rule] + extra + profs,
        check=True, capture_output=True, text=True).stdout
    rows = {}
    for r in json.loads(out)["rows"]:  # (a tree: the heaviest path to each)
        key = (r.get("group", ""), r["name"])
        if r.get(channel + "_J", 0.0) >= rows.get(key, {}).get(channel + "_J", -1.0):
            rows[key] = r
    return {k: (r.get(channel + "_J", 0.0), r.get(channel + "_share_lo", 0.0),
                r.get(channel + "_share_hi", 0.0)) for k, r in rows.items()}


def read_truth(path):
    with open(path) as f:
        truth = dict(w.split("=") for w in f.read().split()[1:])
    return {k: float(v) for k, v in truth.items()}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--rule", default="trapezoid")
    p.add_argument("--channel", default="package-0")
    p.add_argument("--tree", action="store_true")
    p.add_argument("--report-arg", action="append", default=[])
    p.add_argument("--ranks", type=int, default=0)
    p.add_argument("runs", nargs="+")
    args = p.parse_args()
    pairs = []
    for run in args.runs:
        extra = args.report_arg + (["--tree"] if args.tree else [])
        if args.ranks:
            names = ["%s.%d" % (run, r) for r in range(args.ranks)]
            got = report([n + ".prof" for n in names], args.rule, args.channel,
                         extra + ["--by", "rank,function"])
            cases = [("rank %d" % r, "%s.rank%d" % (os.path.basename(run), r),
                      read_truth(n + ".truth")) for r, n in enumerate(names)]
        else:
            got = report([run + ".prof"], args.rule, args.channel, extra)
            cases = [("", os.path.basename(run), read_truth(run + ".truth"))]
        for group, label, truth in cases:
            check(got, group, label, truth, pairs)
    summary(args.rule, pairs)


def check(got, group, label, truth, pairs):
    """Print the pairs of one profile (or one rank), add them to pairs."""
    total = sum(truth.values())
    for f in FUNCTIONS:
        if not truth.get(f):  # (a workload without delta, or too short for one)
            continue
        joules, lo, hi = got.get((group, f), (0.0, 0.0, 0.0))
        err = 100 * (joules - truth[f]) / truth[f]
        share = 100 * truth[f] / total
        inside = lo <= share <= hi
        pairs.append((f, err, inside))
        print("%s %s truth=%.4f J profile=%.4f J error=%+.2f%% truth_share=%.2f "
              "interval=[%.2f,%.2f] covered=%d"
              % (label, f, truth[f], joules, err, share, lo, hi, inside))


def summary(rule, pairs):
    errors = [e for f, e, _ in pairs if f not in SMALL]
    covered = sum(inside for _, _, inside in pairs)
    small = [inside for f, _, inside in pairs if f in SMALL]
    small_covered = sum(small)
    small = len(small)
    pairs = len(pairs)
    n = len(errors)
    print("summary rule=%s pairs=%d mean_abs_err=%.2f worst=%.2f coverage=%.1f "
          "small_pairs=%d small_coverage=%.1f"
          % (rule, pairs, sum(abs(e) for e in errors) / n, max(abs(e) for e in errors),
             100 * covered / pairs, small, 100 * small_covered / small if small else 100.0))


if __name__ == "__main__":
    main()
