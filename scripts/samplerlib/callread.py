"""Reading profiles recorded with -g into a call-path tree (callpaths):
the rows' stacks summed per (process, stack) with numpy, block by block,
and grafted onto the tree.  load() interns the stacks of a profile as they
are read, so that no stack's frames are held as a list of names.
"""

from __future__ import annotations

from typing import Any, Sequence

from .callpaths import Builder, Node
from .cli import SamplerError


class _Frames:
    """The distinct stacks of one profile as a prefix tree of frame names
    (node 0: the empty stack): each stack text is split once, as it is
    read, into nodes shared with every stack of the same outer frames, and
    the text is let go.  Memory grows with the nodes, not with stacks
    times depth (19.6)."""

    def __init__(self) -> None:
        self.parent = [-1]
        self.name = [""]
        self.kids: dict[tuple[int, str], int] = {}
        # the last text, its frames' ends and nodes
        self._last: tuple[str, list[int], list[int]] = ("", [], [])

    def intern(self, text: str) -> int:
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


def _graft(b: Builder, top: Node, frames: _Frames, fnode: int, memo: dict[Any, Node]) -> Node:
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


def load(
    paths: str | Sequence[str], prog: str, by: str | None = None, extra_args: Sequence[str] = ()
) -> tuple[Node, list[dict[str, str]]]:
    """The tree of call paths of one profile recorded with -g, or of
    several (a job): (root, energy channels).  Each stack starts with its
    process's name (as the folded export's do); with by ("rank", "host" or
    "profile") a frame naming the profile's rank, host or file comes
    first.  A node's sums are those of callpaths' module doc: samples (the
    `sample` rows), cpu (s; the `exit` rows' tails too, so that totals are
    the profile's), and per energy or power channel its name (J, by the
    exporter's rule of attribution)."""
    from . import job

    if isinstance(paths, str):
        paths = [paths]
    b = Builder()
    channels = None
    peers = job.node_peers(paths, extra_args)  # (a job: its hosts' nodes divided once)
    for path in paths:
        args = list(extra_args)
        for q in peers.get(path, []):
            args += ["--node-peer", q]
        got = _load_one(b, path, prog, by, args)
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
    return b.finish(), channels or []


def _load_one(
    b: Builder, path: str, prog: str, by: str | None, extra_args: Sequence[str]
) -> list[dict[str, str]]:
    import numpy as np

    from . import blockagg, colprof, csvprof, job

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

    if isinstance(profile, colprof.Profile):  # (CSV: each row holds its stack)
        profile.stack_sink = take_stack
    sums: dict[tuple[int, Any], Any] = {}

    def add_block(block):
        sm = blockagg.Samples(block, profile.exit_kind)
        keys, inv = np.unique(block[["pid", "stack"]], return_inverse=True)
        inv = inv.ravel()
        nkeys = len(keys)
        local = np.zeros((nkeys, 3 + 3 * len(channels)))
        rows = inv[sm.rows]
        local[:, 0] = np.bincount(rows, minlength=nkeys)
        cpu = block["cpu_delta_ns"] * 1e-9  # clock samples (read as exit rows) too
        local[:, 1] = np.bincount(inv, cpu, nkeys)
        local[:, 2] = np.bincount(inv, cpu * cpu, nkeys)
        for j, ch in enumerate(channels):
            e = np.nan_to_num(sm.energy(block, ch)[0])
            local[:, 3 + 2 * j] = np.bincount(rows, e, nkeys)
            local[:, 4 + 2 * j] = np.bincount(rows, e * e, nkeys)
            local[:, 3 + 2 * len(channels) + j] = np.bincount(rows, sm.model_var(block, ch), nkeys)
        for key, row in zip(keys.tolist(), local):
            old = sums.get(key)
            sums[key] = row if old is None else old + row

    for block in blockagg.sample_blocks(profile, prog):
        add_block(block)
    top = b.root
    if by:
        top = b.child(top, job.group_key(profile, by)[1])
    names = ["cpu"] + [ch.name for ch in channels]
    memo: dict[Any, Node] = {}
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
        for j, ch in enumerate(channels):  # the model's variance (docs/ENERGY.md)
            d[ch.name + "_mv"] = d.get(ch.name + "_mv", 0.0) + row[3 + 2 * len(channels) + j]
    return [{"name": ch.name, "unit": ch.si_unit} for ch in channels]
