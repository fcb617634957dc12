"""Call paths: the thread-samples of a profile recorded with -g, summed by
call stack into a tree, for sampler-report --tree/--callers/--callees,
sampler-plot --kind flame and sampler-compare --tree.

A stack is a tuple of function names, outermost first, the sampled function
last (the CSV `stack` column split at ';'); load() interns the stacks of a
profile as they are read, so that nothing here holds a stack's frames as a
list, and nothing recurses over frames (a stack may be 1,024 deep).  Each distinct stack comes with
sums over its thread-samples: "samples" (their count) and, for every other
quantity q (CPU seconds, joules of a channel), "q" and "q_sq" (the sum of
squares, for the ratio estimator's interval, stats.ratio_share).

The tree has one node per call path.  A node's inclusive sums are those of
every stack through it (a sample counts once per node, recursion included),
its self sums those of the stacks that end there.
"""

import gc
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


class Builder:
    """A tree made node by node: stacks add their sums to a node's self
    sums, finish() makes the inclusive ones.  Nodes are kept in the order
    they were made (a parent before its children), so that no step walks
    the tree recursively: a stack may be 1,024 frames deep (19.5).

    Python's cyclic garbage collector is off while a tree grows: it would
    scan every node again at each of its passes (500,000 nodes: 38 s with
    it, 16 s without, on a loaded VM); nodes are freed by reference counts all the
    same once the tree is dropped."""

    def __init__(self):
        self.root = Node("")
        self.nodes = [self.root]
        self._gc = gc.isenabled()
        gc.disable()

    def child(self, node, name):
        kid = node.children.get(name)
        if kid is None:
            kid = node.children[name] = Node(name, node)
            self.nodes.append(kid)
        return kid

    def finish(self):
        for node in reversed(self.nodes):  # every child before its parent
            _add(node.incl, node.self_)
            if node.parent is not None:
                _add(node.parent.incl, node.incl)
        self.nodes = None
        if self._gc:
            gc.enable()
        return self.root


def tree_of(stacks):
    """The tree of (stack, sums) pairs; its root holds the totals."""
    b = Builder()
    for stack, sums in stacks:
        node = b.root
        for name in stack:
            node = b.child(node, name)
        _add(node.self_, sums)
    return b.finish()


def _as_tree(stacks):
    return stacks if isinstance(stacks, Node) else tree_of(stacks)


def preorder(root):
    """Every node below root, parents before children (no recursion)."""
    todo = list(root.children.values())
    while todo:
        node = todo.pop()
        yield node
        todo.extend(node.children.values())


def callees(stacks, func):
    """The tree of what func calls: every stack through func, cut above its
    outermost func (so a recursion is one subtree), rooted at func.
    stacks: a tree (tree_of) or (stack, sums) pairs."""
    root = _as_tree(stacks)
    b = Builder()
    todo = [(n, None) for n in root.children.values()]
    while todo:
        node, mapped = todo.pop()
        if mapped is None and node.name == func:
            mapped = b.child(b.root, func)
        elif mapped is not None:
            mapped = b.child(mapped, node.name)
        if mapped is not None:
            _add(mapped.self_, node.self_)
        todo.extend((kid, mapped) for kid in node.children.values())
    return b.finish()


def callers(stacks, func):
    """The tree of who calls func: every stack through func, from its
    outermost func out to the thread's start, rooted at func.  Every stack
    below an outermost func shares its path out: the func node's
    inclusive sums go down that path once."""
    root = _as_tree(stacks)
    b = Builder()
    todo = list(root.children.values())
    while todo:
        node = todo.pop()
        if node.name != func:
            todo.extend(node.children.values())
            continue
        mapped, up = b.root, node
        while up.parent is not None:
            mapped = b.child(mapped, up.name)
            up = up.parent
        _add(mapped.self_, node.incl)
    return b.finish()


def ordered(node, key):
    """node's children, heaviest in key first, then by name."""
    return sorted(node.children.values(), key=lambda n: (-n.incl.get(key, 0.0), n.name))


def walk(node, min_share, key="samples", depth=0):
    """(depth, node) in depth-first order, heaviest child first, leaving out
    subtrees below min_share (a fraction) of the root's key."""
    total = _root(node).incl.get(key, 0.0)

    def kids(parent, d):
        return [
            (d, c)
            for c in reversed(ordered(parent, key))
            if not (total > 0 and c.incl.get(key, 0.0) < min_share * total)
        ]

    todo = kids(node, depth)
    while todo:
        d, child = todo.pop()
        yield d, child
        todo.extend(kids(child, d + 1))


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


class _Frames:
    """The distinct stacks of one profile as a prefix tree of frame names
    (node 0: the empty stack): each stack text is split once, as it is
    read, into nodes shared with every stack of the same outer frames, and
    the text is let go.  Memory grows with the nodes, not with stacks
    times depth (19.6)."""

    def __init__(self):
        self.parent = [-1]
        self.name = [""]
        self.kids = {}
        self._last = ("", [], [])  # the last text, its frames' ends and nodes

    def intern(self, text):
        """The node of a stack text.  The exporter lists stacks that share
        their outer frames one after the other: the frames the last text
        shares are found by a binary search on its frame boundaries (string
        compares in C), only the rest is split and looked up."""
        last, ends, nodes = self._last
        lo, hi = 0, len(ends)  # frames shared with the last text: lo <= m <= hi
        while lo < hi:
            m = (lo + hi + 1) // 2
            e = ends[m - 1]
            if text.startswith(last[:e]) and (len(text) == e or text[e] == ";"):
                lo = m
            else:
                hi = m - 1
        ends, nodes = ends[:lo], nodes[:lo]
        node = nodes[-1] if lo else 0
        pos = ends[-1] + 1 if lo else 0
        if pos <= len(text):
            kids = self.kids
            for name in text[pos:].split(";"):
                nxt = kids.get((node, name))
                if nxt is None:
                    nxt = kids[(node, name)] = len(self.parent)
                    self.parent.append(node)
                    self.name.append(name)
                node = nxt
                pos += len(name) + 1
                ends.append(pos - 1)
                nodes.append(node)
        self._last = (text, ends, nodes)
        return node


def _graft(b, top, frames, fnode, memo):
    """The node of b below top for frame node fnode: made once per (top,
    fnode), the frames out to the first one made before (memo)."""
    chain = []
    while fnode and (top, fnode) not in memo:
        chain.append(fnode)
        fnode = frames.parent[fnode]
    node = memo[(top, fnode)] if fnode else top
    for f in reversed(chain):
        node = memo[(top, f)] = b.child(node, frames.name[f])
    return node


def load(paths, prog, by=None, extra_args=()):
    """The tree of call paths of one profile recorded with -g, or of
    several (a job): (root, energy channels).  Each stack starts with its
    process's name (as the folded export's do); with by ("rank", "host" or
    "profile") a frame naming the profile's rank, host or file comes
    first.  A node's sums are those of the module doc: samples (the
    `sample` rows), cpu (s; the `exit` rows' tails too, so that totals are
    the profile's), and per energy or power channel its name (J, by the
    exporter's rule of attribution)."""
    if isinstance(paths, str):
        paths = [paths]
    b = Builder()
    channels = None
    for path in paths:
        got = _load_one(b, path, prog, by, extra_args)
        if channels is None:
            channels = got
        elif [c["name"] for c in got] != [c["name"] for c in channels]:
            raise SamplerError(
                "%s: its energy channels (%s) differ from %s's (%s); give profiles "
                "recorded with the same plug-ins"
                % (
                    path,
                    ", ".join(c["name"] for c in got) or "none",
                    paths[0],
                    ", ".join(c["name"] for c in channels) or "none",
                )
            )
    return b.finish(), channels


def _load_one(b, path, prog, by, extra_args):
    import numpy as np

    from . import blockagg, colprof, csvprof, job
    from .fileio import Progress

    profile = colprof.open_profile(path, symbols=True, stacks=True, extra_args=extra_args)
    if not profile.has_stacks:
        profile._close_quietly()
        raise SamplerError(
            "%s: the profile has no call stacks (record it with sampler -g)" % profile.path
        )
    channels = profile.channels_of(csvprof.ENERGY_LIKE)
    frames = _Frames()
    stack_node = {}

    def take_stack(sid, text):
        stack_node[sid] = frames.intern(text)

    profile.stack_sink = take_stack
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
    top = b.root
    if by:
        top = b.child(top, job.group_key(profile, by)[1])
    names = ["cpu"] + [ch.name for ch in channels]
    memo = {}
    for (pid, stack), row in sums.items():
        fnode = stack_node.get(stack)
        if fnode is None:  # CSV input: the text is the row's field
            fnode = stack_node[stack] = frames.intern(profile.stack_text(stack))
        node = _graft(b, b.child(top, csvprof.comm_of(profile, pid)), frames, fnode, memo)
        d = node.self_
        d["samples"] = d.get("samples", 0.0) + row[0]
        for k, name in enumerate(names):
            d[name] = d.get(name, 0.0) + row[1 + 2 * k]
            d[name + "_sq"] = d.get(name + "_sq", 0.0) + row[2 + 2 * k]
    return [{"name": ch.name, "unit": ch.si_unit} for ch in channels]


def weight_key(weight, channels):
    """(key, unit, label) of --weight among the profile's energy channels."""
    if weight == "cpu":
        return "cpu", "s", "CPU time"
    if weight == "samples":
        return "samples", "samples", "thread-samples"
    if weight == "energy" or weight.startswith("energy:"):
        name = weight[7:] or (channels[0]["name"] if channels else None)
        for ch in channels:
            if ch["name"] == name:
                return name, "J", "energy of %s" % name
        have = ", ".join(ch["name"] for ch in channels) or "none"
        raise SamplerError(
            "--weight %s: no such energy channel in the profile (it has: %s)" % (weight, have)
        )
    raise SamplerError(
        "unknown --weight %r (use cpu, samples, energy or energy:CHANNEL; counters weigh "
        "the flat report and the folded export only)" % weight
    )


# ---- report rows ----------------------------------------------------------


def rows_of(root, channels, z, min_share, key="cpu"):
    """One row per node of the tree (depth first, heaviest in key first;
    key "name": by name) whose sample, CPU or energy share reaches
    min_share (a fraction)."""
    quantities = ["samples", "cpu"] + [ch["name"] for ch in channels]
    rows = []

    def keep(node):
        return any(
            root.incl.get(q, 0) > 0 and node.incl.get(q, 0) >= min_share * root.incl[q]
            for q in quantities
        )

    def kids(node, depth):
        if key == "name":
            order = sorted(node.children.values(), key=lambda n: n.name)
        else:
            order = ordered(node, key)
        return [(depth, c) for c in reversed(order) if keep(c)]

    todo = kids(root, 0)
    while todo:
        depth, child = todo.pop()
        rows.append(_row(child, depth, quantities, channels, z))
        todo.extend(kids(child, depth + 1))
    return rows


def _row(child, depth, quantities, channels, z):
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
    return row


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

    def kids(b, n, depth, path):
        names = []
        for node in (n, b):
            if node is not None:
                order = sorted(node.children.values(), key=lambda c: -c.incl.get("samples", 0.0))
                names += [c.name for c in order if c.name not in names]
        out = []
        for name in names:
            bc = b.children.get(name) if b is not None else None
            nc = n.children.get(name) if n is not None else None
            if max(share(bc, bt), share(nc, nt)) >= min_share:
                out.append((bc, nc, name, depth, path))
        return reversed(out)

    todo = list(kids(base, new, 0, ()))  # no recursion: stacks may be 1,024 deep
    while todo:
        bc, nc, name, depth, path = todo.pop()
        bs, ns = share(bc, bt), share(nc, nt)
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
        todo.extend(kids(bc, nc, depth + 1, path + (name,)))
    return rows
