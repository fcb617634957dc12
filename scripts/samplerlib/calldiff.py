"""Two call-path trees (callpaths) compared, for sampler-compare --tree:
per call path the change of every quantity, flagged when significant.
"""

from __future__ import annotations

import math
from typing import Any, Iterator, Sequence

from . import callpaths, stats
from .callpaths import Node


def compare(
    base: Node,
    new: Node,
    quantities: Sequence[str],
    thr: float,
    min_change: float,
    min_share: float,
) -> list[dict[str, Any]]:
    """Rows of the call paths of either tree (depth first, in the new
    tree's order of weight, paths only in the base after), whose sample
    share reaches min_share (a fraction) in either: per quantity the
    inclusive value in each, the change, its percentage, and a flag (+ or
    -) when it lies beyond thr standard errors (compound-Poisson variance,
    the sum of squares) and is at least min_change percent; and the share
    of the quantity in each tree with its interval (callpaths.shares, thr
    the z): base_<q>_sh, base_<q>_sh_lo, base_<q>_sh_hi, new_... (percent)."""
    rows = []
    bt, nt = base.incl.get("samples", 0.0), new.incl.get("samples", 0.0)

    def share(node: Node | None, total: float) -> float:
        return node.incl.get("samples", 0.0) / total if node is not None and total else 0.0

    def kids(
        b: Node | None, n: Node | None, depth: int, path: tuple[str, ...]
    ) -> Iterator[tuple[Node | None, Node | None, str, int, tuple[str, ...]]]:
        names: list[str] = []
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
            for side, node in (("base_", bc), ("new_", nc)):
                sh = callpaths.shares(node, [q], thr)[q] if node is not None else (0.0,) * 3
                for end, v in zip(("", "_lo", "_hi"), sh):
                    row[side + q + "_sh" + end] = 100 * v
            if flag:
                flags.append(q + flag)
        row["changed"] = " ".join(flags)
        rows.append(row)
        todo.extend(kids(bc, nc, depth + 1, path + (name,)))
    return rows
