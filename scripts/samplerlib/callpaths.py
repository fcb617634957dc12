"""Call paths: the thread-samples of a profile recorded with -g, summed by
call stack into a tree, for sampler-report --tree/--callers/--callees,
sampler-plot --kind flame and sampler-compare --tree.

A stack is a tuple of function names, outermost first, the sampled function
last (the CSV `stack` column split at ';').  Each distinct stack comes with
sums over its thread-samples: "samples" (their count) and, for every other
quantity q (CPU seconds, joules of a channel), "q" and "q_sq" (the sum of
squares, for the ratio estimator's interval, stats.ratio_share).

The tree has one node per call path.  A node's inclusive sums are those of
every stack through it (a sample counts once per node, recursion included),
its self sums those of the stacks that end there.
"""

import math

from . import stats
from .cli import SamplerError


class Node:
    __slots__ = ("name", "parent", "children", "incl", "self_")

    def __init__(self, name, parent=None):
        self.name = name
        self.parent = parent
        self.children = {}
        self.incl = {}
        self.self_ = {}

    def child(self, name):
        node = self.children.get(name)
        if node is None:
            node = self.children[name] = Node(name, self)
        return node

    def path(self):
        names, node = [], self
        while node.parent is not None:
            names.append(node.name)
            node = node.parent
        return tuple(reversed(names))


def _add(dst, sums):
    for k, v in sums.items():
        dst[k] = dst.get(k, 0.0) + v


def tree_of(stacks):
    """The tree of (stack, sums) pairs; its root holds the totals."""
    root = Node("")
    for stack, sums in stacks:
        _tree_add(root, stack, sums)
    return root


def _outermost(stack, func):
    try:
        return stack.index(func)
    except ValueError:
        return -1


def callees(stacks, func):
    """The tree of what func calls: every stack through func, cut above its
    outermost func (so a recursion is one subtree), rooted at func."""
    root = Node("")
    for stack, sums in stacks:
        i = _outermost(stack, func)
        if i >= 0:
            _tree_add(root, stack[i:], sums)
    return root


def callers(stacks, func):
    """The tree of who calls func: every stack through func, from its
    outermost func out to the thread's start, rooted at func."""
    root = Node("")
    for stack, sums in stacks:
        i = _outermost(stack, func)
        if i >= 0:
            _tree_add(root, tuple(reversed(stack[: i + 1])), sums)
    return root


def _tree_add(root, path, sums):
    node = root
    _add(node.incl, sums)
    for name in path:
        node = node.child(name)
        _add(node.incl, sums)
    _add(node.self_, sums)


def walk(node, min_share, key="samples", depth=0):
    """(depth, node) in depth-first order, heaviest child first, leaving out
    subtrees below min_share (a fraction) of the root's key."""
    total = _root(node).incl.get(key, 0.0)
    for child in sorted(node.children.values(), key=lambda n: (-n.incl.get(key, 0.0), n.name)):
        if total > 0 and child.incl.get(key, 0.0) < min_share * total:
            continue
        yield depth, child
        yield from walk(child, min_share, key, depth + 1)


def _root(node):
    while node.parent is not None:
        node = node.parent
    return node


def shares(node, quantities, z):
    """Inclusive and self shares of node (fractions of the root's totals),
    with intervals: the Wilson interval for samples, the ratio estimator's
    for every other quantity.  Returns {q: (incl, lo, hi, self)}."""
    root = _root(node)
    out = {}
    for q in quantities:
        total = root.incl.get(q, 0.0)
        part = node.incl.get(q, 0.0)
        mine = node.self_.get(q, 0.0)
        if q == "samples":
            lo, hi = stats.wilson(part, total, z) if total else (0.0, 0.0)
            s = part / total if total else 0.0
        else:
            s, lo, hi = stats.ratio_share(
                part, node.incl.get(q + "_sq", 0.0), total, root.incl.get(q + "_sq", 0.0), z
            )
        out[q] = (s, lo, hi, mine / total if total else 0.0)
    return out


# ---- reading a profile ----------------------------------------------------


def load(path, prog):
    """The per-stack sums of a profile recorded with -g, through the
    exporter's columns (a CSV file: its stack column): (stacks, energy
    channels).  A stack starts with
    its process's name (as the folded export's do); its sums are those of
    the module doc: samples (the `sample` rows), cpu (s; the `exit` rows'
    tails too, so that totals are the profile's), and per energy or power
    channel its name (J, by the exporter's rule of attribution)."""
    import numpy as np

    from . import blockagg, colprof, csvprof
    from .fileio import Progress

    profile = colprof.open_profile(path, symbols=True, stacks=True)
    if not profile.has_stacks:
        profile._close_quietly()
        raise SamplerError(
            "%s: the profile has no call stacks (record it with sampler -g)" % profile.path
        )
    channels = profile.channels_of(csvprof.ENERGY_LIKE)
    sums = {}
    progress = Progress(prog, "thread-samples read")

    def add_block(block):
        sm = blockagg.Samples(block, profile.exit_kind)
        keys, inv = np.unique(block[["pid", "stack"]], return_inverse=True)
        inv = inv.ravel()
        nkeys = len(keys)
        local = np.zeros((nkeys, 3 + 2 * len(channels)))
        rows = inv[sm.rows]
        local[:, 0] = np.bincount(rows, minlength=nkeys)
        local[:, 1] = np.bincount(inv, block["cpu_delta_ns"] * 1e-9, nkeys)
        local[:, 2] = np.bincount(rows, sm.cpu * sm.cpu, nkeys)
        for j, ch in enumerate(channels):
            e = np.nan_to_num(sm.energy(block, ch)[0])
            local[:, 3 + 2 * j] = np.bincount(rows, e, nkeys)
            local[:, 4 + 2 * j] = np.bincount(rows, e * e, nkeys)
        for key, row in zip(keys.tolist(), local):
            old = sums.get(key)
            sums[key] = row if old is None else old + row

    pending = None
    try:
        for block in profile.blocks(progress):
            if pending is not None:
                block = np.concatenate([pending, block])
            cut = blockagg.last_sample_start(block, profile.exit_kind)
            if cut:
                add_block(block[:cut])
            pending = block[cut:]
        if pending is not None and len(pending):
            add_block(pending)
    finally:
        progress.done()
    stacks = []
    names = ["cpu"] + [ch.name for ch in channels]
    for (pid, stack), row in sums.items():
        comm = csvprof.comm_of(profile, pid)
        frames = (comm,) + tuple(profile.stack_text(stack).split(";"))
        d = {"samples": row[0]}
        for k, name in enumerate(names):
            d[name] = row[1 + 2 * k]
            d[name + "_sq"] = row[2 + 2 * k]
        stacks.append((frames, d))
    return stacks, [{"name": ch.name, "unit": ch.si_unit} for ch in channels]


# ---- report rows ----------------------------------------------------------


def rows_of(root, channels, z, min_share):
    """One row per node of the tree (depth first, heaviest first) whose
    sample, CPU or energy share reaches min_share (a fraction)."""
    quantities = ["samples", "cpu"] + [ch["name"] for ch in channels]
    rows = []

    def keep(node):
        return any(
            root.incl.get(q, 0) > 0 and node.incl.get(q, 0) >= min_share * root.incl[q]
            for q in quantities
        )

    def visit(node, depth):
        kids = sorted(node.children.values(), key=lambda n: (-n.incl.get("samples", 0.0), n.name))
        for child in kids:
            if not keep(child):
                continue
            sh = shares(child, quantities, z)
            row = {"depth": depth, "name": child.name, "path": ";".join(child.path())}
            row["samples"] = child.incl.get("samples", 0.0)
            s = sh["samples"]
            row.update(share=100 * s[0], share_lo=100 * s[1], share_hi=100 * s[2])
            row["self_share"] = 100 * s[3]
            c = sh["cpu"]
            row["cpu_s"] = child.incl.get("cpu", 0.0)
            row.update(cpu_share=100 * c[0], cpu_share_lo=100 * c[1], cpu_share_hi=100 * c[2])
            row["cpu_self_share"] = 100 * c[3]
            for ch in channels:
                n = ch["name"]
                e = sh[n]
                row[n + "_J"] = child.incl.get(n, 0.0)
                row[n + "_share"] = 100 * e[0]
                row[n + "_share_lo"] = 100 * e[1]
                row[n + "_share_hi"] = 100 * e[2]
                row[n + "_self_share"] = 100 * e[3]
            rows.append(row)
            visit(child, depth + 1)

    visit(root, 0)
    return rows


def fields_of(channels):
    fields = ["depth", "name", "path", "samples", "share", "share_lo", "share_hi", "self_share"]
    fields += ["cpu_s", "cpu_share", "cpu_share_lo", "cpu_share_hi", "cpu_self_share"]
    for ch in channels:
        n = ch["name"]
        fields += [n + "_J", n + "_share", n + "_share_lo", n + "_share_hi", n + "_self_share"]
    return fields


def text_of(rows, channels, confidence):
    """The tree as text: shares (inclusive with interval, self), then the
    function indented by its depth."""
    ci = "%g%%ci" % (100 * confidence)
    heads = ["incl%", ci, "self%", "cpu%", "cpu self%"]
    for ch in channels:
        tag = ch["name"] + " " if len(channels) > 1 else ""
        heads += [tag + "E%", tag + "E" + ci, tag + "E self%"]
    lines = []
    for r in rows:
        cells = [
            "%.1f" % r["share"],
            "%.1f-%.1f" % (r["share_lo"], r["share_hi"]),
            "%.1f" % r["self_share"],
            "%.1f" % r["cpu_share"],
            "%.1f" % r["cpu_self_share"],
        ]
        for ch in channels:
            n = ch["name"]
            cells += [
                "%.1f" % r[n + "_share"],
                "%.1f-%.1f" % (r[n + "_share_lo"], r[n + "_share_hi"]),
                "%.1f" % r[n + "_self_share"],
            ]
        lines.append((cells, "  " * r["depth"] + r["name"]))
    widths = [len(h) for h in heads]
    for cells, _ in lines:
        widths = [max(w, len(c)) for w, c in zip(widths, cells)]
    out = ["  ".join(h.rjust(w) for h, w in zip(heads, widths)) + "  call path"]
    for cells, name in lines:
        out.append("  ".join(c.rjust(w) for c, w in zip(cells, widths)) + "  " + name)
    return "\n".join(out) + "\n"


# ---- comparing two trees --------------------------------------------------


def compare(base, new, quantities, thr, min_change, min_share):
    """Rows of the call paths of either tree (depth first, in the new
    tree's order of weight, paths only in the base after), whose sample
    share reaches min_share (a fraction) in either: per quantity the
    inclusive value in each, the change, its percentage, and a flag (+ or
    -) when it lies beyond thr standard errors (compound-Poisson variance,
    the sum of squares) and is at least min_change percent."""
    rows = []
    bt, nt = base.incl.get("samples", 0.0), new.incl.get("samples", 0.0)

    def share(node, total):
        return node.incl.get("samples", 0.0) / total if node is not None and total else 0.0

    def visit(b, n, depth, path):
        names = []
        for node in (n, b):
            if node is not None:
                kids = sorted(node.children.values(), key=lambda c: -c.incl.get("samples", 0.0))
                names += [c.name for c in kids if c.name not in names]
        for name in names:
            bc = b.children.get(name) if b is not None else None
            nc = n.children.get(name) if n is not None else None
            bs, ns = share(bc, bt), share(nc, nt)
            if max(bs, ns) < min_share:
                continue
            row = {"depth": depth, "name": name, "path": ";".join(path + (name,))}
            row.update(base_share=100 * bs, new_share=100 * ns)
            flags = []
            for q in quantities:
                bv = bc.incl.get(q, 0.0) if bc is not None else 0.0
                nv = nc.incl.get(q, 0.0) if nc is not None else 0.0
                bvar = bc.incl.get(q + "_sq", 0.0) if bc is not None else 0.0
                nvar = nc.incl.get(q + "_sq", 0.0) if nc is not None else 0.0
                delta = nv - bv
                rel = 100 * delta / bv if bv else math.nan
                flag = ""
                big = abs(rel) >= min_change if bv else delta != 0
                if big and stats.significant(bv, bvar, nv, nvar, thr):
                    flag = "+" if delta > 0 else "-"
                row.update({"base_" + q: bv, "new_" + q: nv, q + "_delta": delta})
                row.update({q + "_rel": rel, q + "_flag": flag})
                if flag:
                    flags.append(q + flag)
            row["changed"] = " ".join(flags)
            rows.append(row)
            visit(bc, nc, depth + 1, path + (name,))

    visit(base, new, 0, ())
    return rows
