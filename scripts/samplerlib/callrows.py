"""A call-path tree (callpaths) as sampler-report prints it: one row per
call path with its shares and their intervals (CSV and JSON fields), and
the same rows as indented text.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from .callpaths import Node, ordered, shares
from .escape import display

Row = dict[str, Any]
Channels = Sequence[Mapping[str, str]]  # [{name, unit}] of the energy channels


def rows_of(
    root: Node, channels: Channels, z: float, min_share: float, key: str = "cpu"
) -> list[Row]:
    """One row per node of the tree (depth first, heaviest in key first;
    key "name": by name) whose sample, CPU or energy share reaches
    min_share (a fraction)."""
    quantities = ["samples", "cpu"] + [ch["name"] for ch in channels]
    rows = []

    def keep(node: Node) -> bool:
        return any(
            root.incl.get(q, 0) > 0 and node.incl.get(q, 0) >= min_share * root.incl[q]
            for q in quantities
        )

    def kids(node: Node, depth: int) -> list[tuple[int, Node]]:
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


def _row(child: Node, depth: int, quantities: Sequence[str], channels: Channels, z: float) -> Row:
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


def fields_of(channels: Channels) -> list[str]:
    fields = ["depth", "name", "path", "samples", "share", "share_lo", "share_hi", "self_share"]
    fields += ["cpu_s", "cpu_share", "cpu_share_lo", "cpu_share_hi", "cpu_self_share"]
    for ch in channels:
        n = ch["name"]
        fields += [n + "_J", n + "_share", n + "_share_lo", n + "_share_hi", n + "_self_share"]
    return fields


def text_of(rows: Sequence[Row], channels: Channels, confidence: float) -> str:
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
        lines.append((cells, "  " * r["depth"] + display(r["name"])))
    widths = [len(h) for h in heads]
    for cells, _ in lines:
        widths = [max(w, len(c)) for w, c in zip(widths, cells)]
    out = ["  ".join(h.rjust(w) for h, w in zip(heads, widths)) + "  call path"]
    for cells, name in lines:
        out.append("  ".join(c.rjust(w) for c, w in zip(cells, widths)) + "  " + name)
    return "\n".join(out) + "\n"
