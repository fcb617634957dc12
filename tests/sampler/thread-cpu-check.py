"""thread-cpu-check.py DUMP OUT - a profile's CPU time per thread against
what each thread of tests/sampler/thread-cpu measured of itself (OUT).

Per thread it prints one line:

    thread TID final=MS exit=MS lag=MS step=MS n=N

final: the CPU time the thread measured when it stopped working; exit:
the profile's reading at the thread's exit (the thread does no more than
return after its measure); lag: the median over the thread's samples of
its own CPU time at the sample's time (interpolated between its notes)
less the profile's reading, while the thread worked; step: the median of
its own CPU time from one such sample to the next, n how many samples.
A reading taken from another thread moves exit and lag; one kept from
the sample before makes lag one step.
"""
import bisect
import statistics
import sys


def fields(words):
    return dict(w.split("=", 1) for w in words if "=" in w)


def read_truth(path):
    points, final = {}, {}
    for line in open(path):
        w = line.split()
        if w[0] == "point":
            points.setdefault(int(w[1]), []).append((int(w[2]), int(w[3])))
        elif w[0] == "final":
            final[int(w[1])] = int(w[2])
    return points, final


def truth_at(points, t):
    """The thread's own CPU time at monotonic time t, or None outside its
    notes (before the first or after the last)."""
    times = [p[0] for p in points]
    i = bisect.bisect_right(times, t)
    if i == 0 or i == len(points):
        return None
    (m0, c0), (m1, c1) = points[i - 1], points[i]
    return c0 + (c1 - c0) * (t - m0) / max(m1 - m0, 1)


def main():
    points, final = read_truth(sys.argv[2])
    lags, steps, before, exits, now = {}, {}, {}, {}, None
    for line in open(sys.argv[1]):
        w = line.split()
        if not w:
            continue
        if w[0] == "sample":
            now = int(fields(w[1:])["time"])
        elif w[0] in ("ts", "exit"):
            v = fields(w[1:])
            tid, cpu = int(v["tid"]), int(v["cpu"])
            if w[0] == "exit":
                exits[tid] = cpu
            elif tid in points:
                truth = truth_at(points[tid], now)
                if truth is not None:
                    lags.setdefault(tid, []).append(truth - cpu)
                    if tid in before:
                        steps.setdefault(tid, []).append(truth - before[tid])
                    before[tid] = truth
    if not set(final) <= set(exits):
        sys.exit("threads measured %s, threads that exited in the profile %s"
                 % (sorted(final), sorted(exits)))
    for tid in sorted(final):
        lag, step = lags.get(tid), steps.get(tid)
        print("thread %d final=%.3f exit=%.3f lag=%s step=%s n=%d"
              % (tid, final[tid] / 1e6, exits[tid] / 1e6, median_ms(lag),
                 median_ms(step), len(lag or [])))


def median_ms(values):
    return "%.3f" % (statistics.median(values) / 1e6) if values else "none"


main()
