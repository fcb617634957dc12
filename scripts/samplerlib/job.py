"""The profiles of one parallel job, one per rank (`mpirun sampler -o
app.%r.prof -- app`, `srun sampler -o app.%r.prof -- app`).

Each profile carries its rank, host and job id (the host record).  Ranks on
one host share its energy counters: every profile of that host recorded the
whole node's energy over its own run, so adding them up would count the
node once per rank.  By the trapezoid rule each profile is exported with
the other profiles of its host as --node-peer (load_split): the node's
energy is divided among the threads of all of them by modelled power, and
each profile's rows hold its part only (docs/ENERGY.md, "Ranks sharing a
node"): the parts add up, also when the ranks did not start or end
together (a part is the energy of its own threads, who ran only while
its profile recorded).  Otherwise (--energy-rule end, a pipe, more
than the exporter's peers) each host's energy is counted once -- the
largest any of its profiles recorded: the ranks of a job run side by side,
and the longest profile spans the others -- and split between the ranks on
that host by their CPU time.
"""

from __future__ import annotations

import os
from typing import Any, Protocol, Sequence

from . import agg, runagg
from .cli import SamplerError
from .runagg import RunAgg

JOB_KINDS = ("rank", "host", "profile")


class Labelled(Protocol):
    """A profile read (csvprof.Profile) or aggregated (RunAgg)."""

    @property
    def path(self) -> str: ...

    @property
    def host(self) -> dict[str, str]: ...


def rank_of(run: Labelled) -> int | None:
    r = run.host.get("rank", "")
    return int(r) if r.isdigit() else None


def host_of(run: Labelled) -> str:
    return run.host.get("hostname") or "?"


def is_job(runs: Sequence[RunAgg]) -> bool:
    """Several profiles, each with a rank: the ranks of one job."""
    return len(runs) > 1 and all(rank_of(r) is not None for r in runs)


MAX_PEERS = 15  # the exporter's ENERGY_MAX_PEERS


def load_split(
    runs: list[RunAgg], prog: str, use_cache: bool, extra_args: Sequence[str]
) -> list[RunAgg]:
    """The runs of a job again, each exported with the other profiles of
    its host as --node-peer, marked node_split; runs as they were when
    there is nothing to split (one profile a host, no energy, the end rule,
    a pipe)."""
    if not is_job(runs) or not runs[0].energy or "end" in extra_args:
        return runs
    hosts: dict[str, list[RunAgg]] = {}
    for run in runs:
        hosts.setdefault(host_of(run), []).append(run)
    out = []
    for run in runs:
        peers = [r.path for r in hosts[host_of(run)] if r is not run]
        if not peers or len(peers) > MAX_PEERS or not all(
            os.path.isfile(p) for p in peers + [run.path]
        ):
            out.append(run)
            continue
        args = list(extra_args)
        for p in peers:
            args += ["--node-peer", p]
        split = agg.load(run.path, prog, use_cache=use_cache, extra_args=args)
        split.node_split = True
        out.append(split)
    return out


def node_peers(paths: Sequence[str], extra_args: Sequence[str]) -> dict[str, list[str]]:
    """For the profiles of a job (every one with a rank), the other
    profiles of each one's host, for its --node-peer options; {} when
    there is nothing to divide (one profile, no rank, a CSV, a pipe, the
    end rule).  Each profile's head is read through the exporter with the
    end rule, which writes it at once."""
    from . import colprof, csvprof

    if len(paths) < 2 or "end" in extra_args or not all(os.path.isfile(p) for p in paths):
        return {}
    hosts: dict[str, list[str]] = {}
    for p in paths:
        prof = colprof.open_profile(p, symbols=False, extra_args=["--energy-rule", "end"])
        host, energy = prof.host, bool(prof.channels_of(csvprof.ENERGY_LIKE))
        prof._close_quietly()
        if not isinstance(prof, colprof.Profile) or not host.get("rank", "").isdigit():
            return {}
        if energy:
            hosts.setdefault(host.get("hostname") or "?", []).append(p)
    return {
        p: [q for q in same if q != p]
        for same in hosts.values()
        if 1 < len(same) <= MAX_PEERS + 1
        for p in same
    }


def _run_totals(run: RunAgg) -> dict[str, Any]:
    tot = agg.totals(run)
    energy = {}
    for j, ch in enumerate(run.energy):
        energy[ch["name"]] = tot[runagg.BASE + runagg.PER_ENERGY * j + runagg.E]
    wall = float(run.stats.get("wall", 0) or 0) * 1e-9
    return {"samples": tot[runagg.N], "cpu_s": tot[runagg.CPU], "energy": energy, "wall_s": wall}


def per_run(runs: Sequence[RunAgg]) -> list[dict[str, Any]]:
    """Per profile: samples, cpu_s, wall_s and energy {channel: J}, the
    node energy counted once per host and split by CPU time."""
    vals = [_run_totals(r) for r in runs]
    channels = [ch["name"] for ch in runs[0].energy]
    hosts: dict[str, list[dict[str, Any]]] = {}
    for run, v in zip(runs, vals):
        hosts.setdefault(host_of(run), []).append(v)
    split_hosts = {host_of(r) for r in runs if r.node_split}
    for host, members in hosts.items():
        cpu = sum(v["cpu_s"] for v in members)
        if host in split_hosts:  # each holds its own part (load_split)
            for v in members:
                v["split"] = dict(v["energy"])
            continue
        for ch in channels:
            node = max(v["energy"].get(ch, 0.0) for v in members)
            for v in members:
                part = v["cpu_s"] / cpu if cpu > 0 else 1.0 / len(members)
                v.setdefault("split", {})[ch] = node * part
    for v in vals:
        v.setdefault("split", {})
    return vals


def rows(runs: Sequence[RunAgg], by: str) -> list[dict[str, Any]]:
    """One row per rank, host or profile."""
    vals = per_run(runs)
    channels = [ch["name"] for ch in runs[0].energy]
    groups: dict[Any, dict[str, Any]] = {}
    order = []
    for run, v in zip(runs, vals):
        key, name = group_key(run, by)
        g = groups.get(key)
        if g is None:
            g = groups[key] = {"name": name, "samples": 0.0, "cpu_s": 0.0, "wall_s": 0.0}
            for ch in channels:
                g[ch + "_J"] = 0.0
            order.append(key)
        g["samples"] += v["samples"]
        g["cpu_s"] += v["cpu_s"]
        g["wall_s"] = max(g["wall_s"], v["wall_s"])
        for ch in channels:
            g[ch + "_J"] += v["split"].get(ch, 0.0)
    out = [groups[k] for k in sorted(order)]
    cpu = sum(g["cpu_s"] for g in out)
    for g in out:
        g["cpu_share"] = 100 * agg.safe_div(g["cpu_s"], cpu)
        for ch in channels:
            e = sum(x[ch + "_J"] for x in out)
            g[ch + "_share"] = 100 * agg.safe_div(g[ch + "_J"], e)
    return out


def imbalance(runs: Sequence[RunAgg]) -> dict[str, Any]:
    """{cpu: max/mean, energy: max/mean (first channel or None), slowest:
    the rank with the most CPU time (the one the others wait for), its cpu_s}."""
    ranked = rows(runs, "rank")
    n = len(ranked)
    cpus = [g["cpu_s"] for g in ranked]
    res: dict[str, Any] = {
        "cpu": agg.safe_div(max(cpus), sum(cpus) / n) if n else 0.0,
        "energy": None,
    }
    channels = [ch["name"] for ch in runs[0].energy]
    if channels:
        es = [g[channels[0] + "_J"] for g in ranked]
        res["energy"] = agg.safe_div(max(es), sum(es) / n) if n else 0.0
        res["energy_channel"] = channels[0]
    slowest = max(ranked, key=lambda g: g["cpu_s"])
    res["slowest"], res["slowest_cpu_s"] = slowest["name"], slowest["cpu_s"]
    return res


def _ranges(numbers: Sequence[int]) -> str:
    """Sorted integers as ranges: 0-3,7,9-10."""
    out: list[str] = []
    last = -2
    for n in numbers:
        if out and n == last + 1:
            out[-1] = "%s-%d" % (out[-1].split("-")[0], n)
        else:
            out.append(str(n))
        last = n
    return ",".join(out)


def _few(names: Sequence[str], most: int = 4) -> str:
    if len(names) <= most:
        return ",".join(names)
    return "%s and %d more" % (",".join(names[:most]), len(names) - most)


def function_cpu(run: RunAgg) -> dict[tuple[str, str], float]:
    """CPU time (s) per function of one profile (a stripped library's
    addresses one function, as the report's rows)."""
    out: dict[tuple[str, str], float] = {}
    for (_, _, dso, symbol), acc in run.keys.items():
        if agg.is_address(symbol):
            symbol = agg.dso_frame(dso)
        out[(dso, symbol)] = out.get((dso, symbol), 0.0) + acc[runagg.CPU]
    return out


def distance(part: dict[Any, float], whole: dict[Any, float]) -> float:
    """Total variation distance (%) of two profiles' CPU-time shares per
    function: the share of CPU time that would have to move to another
    function to make one the other; 0 alike, 100 nothing in common."""
    a, b = sum(part.values()), sum(whole.values())
    if a <= 0 or b <= 0:
        return 100.0 if a != b else 0.0
    keys = set(part) | set(whole)
    return 50.0 * sum(abs(part.get(k, 0.0) / a - whole.get(k, 0.0) / b) for k in keys)


def outliers(runs: Sequence[RunAgg], count: int = 5) -> list[tuple[str, float]]:
    """The count profiles whose CPU time per function differs most from
    the job's: [(rank label, distance %)], largest first."""
    each = [function_cpu(r) for r in runs]
    whole: dict[Any, float] = {}
    for fc in each:
        for k, v in fc.items():
            whole[k] = whole.get(k, 0.0) + v
    dist = [(distance(fc, whole), group_key(r, "rank")) for fc, r in zip(each, runs)]
    dist.sort(key=lambda d: (-d[0], d[1][0]))
    return [(label, d) for d, (_, label) in dist[:count]]


def header_lines(runs: Sequence[RunAgg]) -> list[str]:
    """The job in at most 6 lines, however many ranks: job, ranks, hosts,
    totals, energy rule, load imbalance and the ranks that stand out."""
    ranks = sorted(r for r in (rank_of(x) for x in runs) if r is not None)
    hosts = sorted({host_of(r) for r in runs})
    jobs = sorted({r.host.get("job_id", "") for r in runs} - {""})
    lines = [
        "# job %s: %d profiles, ranks %s, on %d host%s (%s)"
        % (
            _few(jobs) or "?",
            len(runs),
            _ranges(ranks),
            len(hosts),
            "" if len(hosts) == 1 else "s",
            _few(hosts),
        )
    ]
    per = per_run(runs)
    total = "# total: %d samples, %d thread-samples, %.3f s of CPU time" % (
        sum(r.samples for r in runs),
        sum(v["samples"] for v in per),
        sum(v["cpu_s"] for v in per),
    )
    for ch in runs[0].energy:
        total += ", %s %.3f J" % (ch["name"], sum(v["split"].get(ch["name"], 0.0) for v in per))
    lines.append(total)
    if runs[0].energy and all(r.node_split for r in runs):
        lines.append(
            "# energy: each host's node energy divided among the threads of all its ranks "
            "(trapezoid rule, --node-peer)"
        )
    elif runs[0].energy:
        lines.append(
            "# energy: each host's node energy counted once (the largest of its profiles) "
            "and split between its ranks by CPU time"
        )
    imb = imbalance(runs)
    text = "# load imbalance (max/mean over ranks): CPU time %.2f" % imb["cpu"]
    if imb["energy"] is not None:
        text += ", %s energy %.2f" % (imb["energy_channel"], imb["energy"])
    text += "; slowest: %s (%.3f s of CPU time)" % (imb["slowest"], imb["slowest_cpu_s"])
    lines.append(text)
    lines.append(
        "# most unlike the job (CPU time per function, total variation distance): "
        + ", ".join("%s %.1f%%" % (label, d) for label, d in outliers(runs))
    )
    return lines


def fields(runs: Sequence[RunAgg]) -> list[str]:
    f = ["name", "samples", "cpu_s", "cpu_share", "wall_s"]
    for ch in runs[0].energy:
        f += [ch["name"] + "_J", ch["name"] + "_share"]
    return f


def text_columns(runs: Sequence[RunAgg], by: str) -> list[tuple[str, str, str]]:
    cols = [
        ("name", by, "%s"),
        ("samples", "samples", "%.0f"),
        ("cpu_s", "cpu s", "%.3f"),
        ("cpu_share", "cpu%", "%.1f"),
        ("wall_s", "wall s", "%.3f"),
    ]
    for ch in runs[0].energy:
        n = ch["name"]
        cols += [(n + "_J", n + " J", "%.3f"), (n + "_share", "E%", "%.1f")]
    return cols


# ---- a job as one run ------------------------------------------------------

PID_BITS = 22  # profile i's pid p becomes i << 22 | p (as sampler-export's merge)


def _scaled(acc: Sequence[float], run: RunAgg, factors: Sequence[float]) -> list[float]:
    """acc with each energy channel's sums scaled by its factor."""
    acc = list(acc)
    for j, f in enumerate(factors):
        if f == 1.0:
            continue
        off = runagg.BASE + runagg.PER_ENERGY * j
        for k, p in (
            (runagg.E, 1), (runagg.E2, 2), (runagg.SE, 1), (runagg.SE2, 2), (runagg.SEW, 1),
            (runagg.EV, 2),
        ):
            acc[off + k] *= f**p
    return acc


def _factors(runs: Sequence[RunAgg]) -> list[list[float]]:
    """Per profile and energy channel: its share of its host's node energy
    (per_run's split) over the energy it recorded."""
    out = []
    for run, v in zip(runs, per_run(runs)):
        out.append(
            [
                agg.safe_div(v["split"].get(ch["name"], 0.0), v["energy"].get(ch["name"], 0.0))
                for ch in run.energy
            ]
        )
    return out


def combine(
    runs: Sequence[RunAgg],
    factors: Sequence[Sequence[float]] | None = None,
    name: str | None = None,
) -> RunAgg:
    """One RunAgg holding the profiles of (part of) a job: thread-samples
    and CPU time add up, each host's node energy is counted once and split
    by CPU time (per_run), pids are made distinct and each process named
    with its rank, as sampler-export names them when it merges a job."""
    if factors is None:
        factors = _factors(runs)
    if len(runs) == 1 and all(f == 1.0 for f in factors[0]):
        return runs[0]
    first = runs[0]
    out = RunAgg()
    out.path = name or "%s +%d" % (first.path, len(runs) - 1)
    out.host = dict(first.host, rank="", hostname=",".join(sorted({host_of(r) for r in runs})))
    out.stats = {"wall": max(float(r.stats.get("wall", 0) or 0) for r in runs)}
    out.energy, out.readings, out.counters = first.energy, first.readings, first.counters
    out.width = first.width
    for i, (run, f) in enumerate(zip(runs, factors)):
        base = i << PID_BITS if len(runs) > 1 else 0
        tag = "[rank %s]" % rank_of(run) if rank_of(run) is not None else "[#%d]" % i
        for pid, p in run.processes.items():
            out.processes[base | int(pid)] = dict(p, comm=p.get("comm", "?") + tag)
        for (pid, tid), comm in run.threads.items():
            out.threads[(base | pid, base | tid)] = comm + tag
        for (pid, tid, dso, sym), acc in run.keys.items():
            out.keys[(base | int(pid), base | int(tid), dso, sym)] = _scaled(acc, run, f)
        out.samples += run.samples
    return out


def split_jobs(runs: list[RunAgg]) -> list[RunAgg]:
    """The runs of one side of a comparison: the profiles of each job (all
    ranked, grouped by job id) combined into one run each; profiles without
    a rank stay runs of their own."""
    if not is_job(runs):
        return runs
    jobs: dict[str, list[RunAgg]] = {}
    order = []
    for run in runs:
        jid = run.host.get("job_id", "")
        if jid not in jobs:
            jobs[jid] = []
            order.append(jid)
        jobs[jid].append(run)
    for jid in order:
        seen: dict[int | None, RunAgg] = {}
        for run in jobs[jid]:
            r = rank_of(run)
            if r in seen:
                raise SamplerError(
                    "%s and %s are both rank %s of job %s (give the profiles of one job per "
                    "side, or profiles recorded with a job id: SLURM_JOB_ID or Open MPI's)"
                    % (seen[r].path, run.path, r, jid or "(no id)")
                )
            seen[r] = run
    return [
        combine(jobs[j], name="job %s (%d profiles)" % (j or "?", len(jobs[j]))) for j in order
    ]


def group_key(run: Labelled, by: str) -> tuple[tuple[int, Any], str]:
    """The rank, host or profile group of one profile: (sort key, label)."""
    if by == "rank":
        r = rank_of(run)
        if r is not None:
            return (0, r), "rank %d" % r
        return (1, run.path), run.path
    if by == "host":
        return (0, host_of(run)), host_of(run)
    return (0, run.path), run.path


def groups(runs: Sequence[RunAgg], by: str) -> list[tuple[str, RunAgg]]:
    """[(label, combined run)] per rank, host or profile, node energy split
    over the whole job (profiles that are no job keep their own energy)."""
    factors = _factors(runs) if is_job(runs) else [[1.0] * len(r.energy) for r in runs]
    members: dict[Any, list[tuple[RunAgg, list[float]]]] = {}
    labels: dict[Any, str] = {}
    for run, f in zip(runs, factors):
        key, label = group_key(run, by)
        members.setdefault(key, []).append((run, f))
        labels[key] = label
    return [
        (
            labels[k],
            combine([r for r, _ in members[k]], [f for _, f in members[k]], name=labels[k]),
        )
        for k in sorted(members)
    ]
