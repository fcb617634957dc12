"""Call paths: the thread-samples of a profile recorded with -g, summed by
call stack into a tree, for sampler-report --tree/--callers/--callees,
sampler-plot --kind flame and sampler-compare --tree.  This module is the
tree itself; callread builds one from profiles, callrows makes a report's
rows and text of it, calldiff compares two, flame draws one.

A stack is a tuple of function names, outermost first, the sampled function
last (the CSV `stack` column split at ';'); nothing here holds a stack's
frames as a list, and nothing recurses over frames (a stack may be 1,024
deep).  Each distinct stack comes with sums over its thread-samples:
"samples" (their count) and, for every other quantity q (CPU seconds,
joules of a channel), "q" and "q_sq" (the sum of squares, for the ratio
estimator's interval, stats.ratio_share).

The tree has one node per call path.  A node's inclusive sums are those of
every stack through it (a sample counts once per node, recursion included),
its self sums those of the stacks that end there.
"""

from __future__ import annotations

import gc
from typing import Iterable, Iterator, Mapping, Sequence, Tuple, Union

from . import stats
from .cli import SamplerError

Sums = Mapping[str, float]  # samples, and q and q_sq of every other quantity
Stacks = Union["Node", Iterable[Tuple[Sequence[str], Sums]]]  # a tree, or (stack, sums)


class Node:
    __slots__ = ("name", "parent", "children", "incl", "self_")

    def __init__(self, name: str, parent: Node | None = None) -> None:
        self.name = name
        self.parent = parent
        self.children: dict[str, Node] = {}
        self.incl: dict[str, float] = {}
        self.self_: dict[str, float] = {}

    def child(self, name: str) -> Node:
        node = self.children.get(name)
        if node is None:
            node = self.children[name] = Node(name, self)
        return node

    def path(self) -> tuple[str, ...]:
        names, node = [], self
        while node.parent is not None:
            names.append(node.name)
            node = node.parent
        return tuple(reversed(names))


def _add(dst: dict[str, float], sums: Sums) -> None:
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

    def __init__(self) -> None:
        self.root = Node("")
        self.nodes = [self.root]
        self._gc = gc.isenabled()
        gc.disable()

    def child(self, node: Node, name: str) -> Node:
        kid = node.children.get(name)
        if kid is None:
            kid = node.children[name] = Node(name, node)
            self.nodes.append(kid)
        return kid

    def finish(self) -> Node:
        for node in reversed(self.nodes):  # every child before its parent
            _add(node.incl, node.self_)
            if node.parent is not None:
                _add(node.parent.incl, node.incl)
        self.nodes = []  # (let go of them: the tree holds them)
        if self._gc:
            gc.enable()
        return self.root


def tree_of(stacks: Iterable[tuple[Sequence[str], Sums]]) -> Node:
    """The tree of (stack, sums) pairs; its root holds the totals."""
    b = Builder()
    for stack, sums in stacks:
        node = b.root
        for name in stack:
            node = b.child(node, name)
        _add(node.self_, sums)
    return b.finish()


def _as_tree(stacks: Stacks) -> Node:
    return stacks if isinstance(stacks, Node) else tree_of(stacks)


def preorder(root: Node) -> Iterator[Node]:
    """Every node below root, parents before children (no recursion)."""
    todo = list(root.children.values())
    while todo:
        node = todo.pop()
        yield node
        todo.extend(node.children.values())


def callees(stacks: Stacks, func: str) -> Node:
    """The tree of what func calls: every stack through func, cut above its
    outermost func (so a recursion is one subtree), rooted at func.
    stacks: a tree (tree_of) or (stack, sums) pairs."""
    root = _as_tree(stacks)
    b = Builder()
    todo: list[tuple[Node, Node | None]] = [(n, None) for n in root.children.values()]
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


def callers(stacks: Stacks, func: str) -> Node:
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


def ordered(node: Node, key: str) -> list[Node]:
    """node's children, heaviest in key first, then by name."""
    return sorted(node.children.values(), key=lambda n: (-n.incl.get(key, 0.0), n.name))


def walk(
    node: Node, min_share: float, key: str = "samples", depth: int = 0
) -> Iterator[tuple[int, Node]]:
    """(depth, node) in depth-first order, heaviest child first, leaving out
    subtrees below min_share (a fraction) of the root's key."""
    total = _root(node).incl.get(key, 0.0)

    def kids(parent: Node, d: int) -> list[tuple[int, Node]]:
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


def _root(node: Node) -> Node:
    while node.parent is not None:
        node = node.parent
    return node


def shares(
    node: Node, quantities: Iterable[str], z: float
) -> dict[str, tuple[float, float, float, float]]:
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
                part, node.incl.get(q + "_sq", 0.0), total, root.incl.get(q + "_sq", 0.0), z,
                node.incl.get(q + "_mv", 0.0),
            )
        out[q] = (s, lo, hi, mine / total if total else 0.0)
    return out


def weight_key(weight: str, channels: Sequence[Mapping[str, str]]) -> tuple[str, str, str]:
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
