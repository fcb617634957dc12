"""Reading profiles recorded with -g into a call-path tree (callpaths):
the rows' stacks summed per (process, stack) with numpy, block by block,
and grafted onto the tree.  load() interns the stacks of a profile as they
are read, so that no stack's frames are held as a list of names.
"""

from __future__ import annotations

import functools
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
    """load_job's tree, over this machine's CPUs."""
    got = load_job(paths, prog, by, extra_args)
    assert got is not None
    return got


def load_job(
    paths: str | Sequence[str],
    prog: str,
    by: str | None = None,
    extra_args: Sequence[str] = (),
    jobs: int | None = None,
    mpi: bool = False,
) -> tuple[Node, list[dict[str, str]]] | None:
    """The tree of call paths of one profile recorded with -g, or of
    several (a job): (root, energy channels).  Each stack starts with its
    process's name (as the folded export's do); with by ("rank", "host" or
    "profile") a frame naming the profile's rank, host or file comes
    first.  A node's sums are those of callpaths' module doc: samples (the
    `sample` rows), cpu (s; the `exit` rows' tails too, so that totals are
    the profile's), and per energy or power channel its name (J, by the
    exporter's rule of attribution).  Several profiles are read in
    parallel (reduce: jobs processes, or the processes of an MPI program,
    whose ranks but 0 get None)."""
    from . import job, reduce

    if isinstance(paths, str):
        paths = [paths]
    peers = job.node_peers(paths, extra_args)  # (a job: its hosts' nodes divided once)
    read = functools.partial(_read_part, prog=prog, by=by, extra_args=extra_args, peers=peers)
    part = reduce.map_reduce(read, _join_parts, paths, jobs=jobs, mpi=mpi)
    if part is None:
        return None
    return part.tree(), part.channels


class _Part:
    """The call paths of some profiles, as a table of nodes in the order
    they were made (a parent before its children): parent index, name and
    self sums; what the processes reading a job's profiles send each other.
    Joining two is linear in their nodes, whatever the depth of a stack."""

    def __init__(
        self,
        channels: list[dict[str, str]],
        first: str,
        parent: list[int],
        name: list[str],
        sums: list[dict[str, float]],
    ) -> None:
        self.channels, self.first = channels, first
        self.parent, self.name, self.sums = parent, name, sums

    @classmethod
    def of(cls, b: Builder, channels: list[dict[str, str]], first: str) -> _Part:
        index = {id(n): i for i, n in enumerate(b.nodes)}
        parent = [-1] + [index[id(n.parent)] for n in b.nodes[1:]]
        part = cls(channels, first, parent, [n.name for n in b.nodes], [n.self_ for n in b.nodes])
        b.finish()  # (the cyclic collector back on)
        return part

    def add(self, other: _Part) -> _Part:
        _same_channels(self.channels, self.first, other.channels, other.first)
        kids = {(p, n): i for i, (p, n) in enumerate(zip(self.parent, self.name))}
        where = [0] * len(other.parent)
        for i in range(1, len(other.parent)):
            key = (where[other.parent[i]], other.name[i])
            j = kids.get(key)
            if j is None:
                j = kids[key] = len(self.parent)
                self.parent.append(key[0])
                self.name.append(key[1])
                self.sums.append({})
            where[i] = j
            mine = self.sums[j]
            for k, v in other.sums[i].items():
                mine[k] = mine.get(k, 0.0) + v
        return self

    def tree(self) -> Node:
        b = Builder()
        nodes = [b.root]
        for i in range(1, len(self.parent)):
            node = b.child(nodes[self.parent[i]], self.name[i])
            node.self_.update(self.sums[i])
            nodes.append(node)
        return b.finish()


def _join_parts(a: _Part, b: _Part) -> _Part:
    return a.add(b)


def _same_channels(
    mine: list[dict[str, str]], my_path: str, got: list[dict[str, str]], path: str
) -> None:
    if [c["name"] for c in got] != [c["name"] for c in mine]:
        raise SamplerError(
            "%s: its energy channels (%s) differ from %s's (%s); give profiles "
            "recorded with the same plug-ins"
            % (
                path,
                ", ".join(c["name"] for c in got) or "none",
                my_path,
                ", ".join(c["name"] for c in mine) or "none",
            )
        )


def _read_part(
    chunk: Sequence[str],
    prog: str,
    by: str | None,
    extra_args: Sequence[str],
    peers: dict[str, list[str]],
) -> _Part:
    """The call paths of the profiles of chunk, one after the other."""
    b = Builder()
    channels = None
    for path in chunk:
        args = list(extra_args)
        for q in peers.get(path, []):
            args += ["--node-peer", q]
        got = _load_one(b, path, prog, by, args)
        if channels is None:
            channels = got
        _same_channels(channels, chunk[0], got, path)
    return _Part.of(b, channels or [], chunk[0])


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
