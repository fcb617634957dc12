"""The profiles of one parallel job, one per rank (`mpirun sampler -o
app.%r.prof -- app`, `srun sampler -o app.%r.prof -- app`).

Each profile carries its rank, host and job id (the host record).  Ranks on
one host share its energy counters: every profile of that host recorded the
whole node's energy over its own run, so adding them up would count the
node once per rank.  Here each host's energy is counted once -- the largest
any of its profiles recorded: the ranks of a job run side by side, and the
longest profile spans the others -- and split between the ranks on that
host by their CPU time (the rule the exporter applies between threads).
"""

from . import agg

JOB_KINDS = ("rank", "host", "profile")


def rank_of(run):
    r = run.host.get("rank", "")
    return int(r) if r.isdigit() else None


def host_of(run):
    return run.host.get("hostname") or "?"


def is_job(runs):
    """Several profiles, each with a rank: the ranks of one job."""
    return len(runs) > 1 and all(rank_of(r) is not None for r in runs)


def _run_totals(run):
    tot = agg.totals(run)
    energy = {}
    for j, ch in enumerate(run.energy):
        energy[ch["name"]] = tot[agg.BASE + agg.PER_ENERGY * j + agg.E]
    wall = float(run.stats.get("wall", 0) or 0) * 1e-9
    return {"samples": tot[agg.N], "cpu_s": tot[agg.CPU], "energy": energy, "wall_s": wall}


def per_run(runs):
    """Per profile: samples, cpu_s, wall_s and energy {channel: J}, the
    node energy counted once per host and split by CPU time."""
    vals = [_run_totals(r) for r in runs]
    channels = [ch["name"] for ch in runs[0].energy]
    hosts = {}
    for run, v in zip(runs, vals):
        hosts.setdefault(host_of(run), []).append(v)
    for members in hosts.values():
        cpu = sum(v["cpu_s"] for v in members)
        for ch in channels:
            node = max(v["energy"].get(ch, 0.0) for v in members)
            for v in members:
                part = v["cpu_s"] / cpu if cpu > 0 else 1.0 / len(members)
                v.setdefault("split", {})[ch] = node * part
    for v in vals:
        v.setdefault("split", {})
    return vals


def rows(runs, by):
    """One row per rank, host or profile."""
    vals = per_run(runs)
    channels = [ch["name"] for ch in runs[0].energy]
    groups, order = {}, []
    for run, v in zip(runs, vals):
        if by == "rank":
            r = rank_of(run)
            key = (0, r) if r is not None else (1, run.path)
            name = "rank %d" % r if r is not None else run.path
        elif by == "host":
            key, name = (0, host_of(run)), host_of(run)
        else:
            key, name = (0, run.path), run.path
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


def imbalance(runs):
    """{cpu: max/mean, energy: max/mean (first channel or None), slowest:
    the rank with the most CPU time (the one the others wait for), its cpu_s}."""
    ranked = rows(runs, "rank")
    n = len(ranked)
    cpus = [g["cpu_s"] for g in ranked]
    res = {"cpu": agg.safe_div(max(cpus), sum(cpus) / n) if n else 0.0, "energy": None}
    channels = [ch["name"] for ch in runs[0].energy]
    if channels:
        es = [g[channels[0] + "_J"] for g in ranked]
        res["energy"] = agg.safe_div(max(es), sum(es) / n) if n else 0.0
        res["energy_channel"] = channels[0]
    slowest = max(ranked, key=lambda g: g["cpu_s"])
    res["slowest"], res["slowest_cpu_s"] = slowest["name"], slowest["cpu_s"]
    return res


def header_lines(runs):
    ranks = sorted(r for r in (rank_of(x) for x in runs) if r is not None)
    hosts = sorted({host_of(r) for r in runs})
    jobs = sorted({r.host.get("job_id", "") for r in runs} - {""})
    lines = [
        "# job %s: %d profiles, ranks %s, on %d host%s (%s)"
        % (
            ",".join(jobs) or "?",
            len(runs),
            ",".join(str(r) for r in ranks),
            len(hosts),
            "" if len(hosts) == 1 else "s",
            ",".join(hosts),
        )
    ]
    if runs[0].energy:
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
    return lines


def fields(runs):
    f = ["name", "samples", "cpu_s", "cpu_share", "wall_s"]
    for ch in runs[0].energy:
        f += [ch["name"] + "_J", ch["name"] + "_share"]
    return f


def text_columns(runs, by):
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
