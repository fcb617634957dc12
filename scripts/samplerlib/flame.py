"""Flame graphs of a call-path tree (callpaths.tree_of): SVG text of our
own for sampler-plot --kind flame, or a matplotlib figure for PNG and PDF."""

from __future__ import annotations

import math
from typing import Any, Callable

from .callpaths import Node
from .escape import display

# A frame's fill colour and a note for its tip ("; base 33.10%"), or None:
# the name's warm colour and no note.
Paint = Callable[[Node], tuple[str, str]]

FRAME_H = 16
FONT = 11
CHAR_W = 6.2  # of the 11 px font, for cutting names to fit


def _colour(name: str) -> str:
    """A warm colour from the name (the same function, the same colour)."""
    h = 0
    for ch in name.encode("utf-8", "surrogateescape"):
        h = (h * 31 + ch) & 0xFFFFFFFF
    r = 205 + h % 50
    g = 80 + (h >> 8) % 130
    b = 40 + (h >> 16) % 50
    return "rgb(%d,%d,%d)" % (r, g, b)


def _escape(text: str) -> str:
    """A name as XML text or attribute: the one escaping rule of every text
    output (no control character, which XML 1.0 forbids; valid UTF-8),
    then XML's own characters."""
    return (
        display(text)
        .replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace('"', "&quot;")
    )


def flame_frames(
    root: Node, key: str, width: float, min_px: float = 0.1
) -> list[tuple[float, int, float, Node]]:
    """(x, depth, w, node) of every frame at least min_px wide, the root's
    children at depth 0, x and w in pixels of a graph width wide; parents
    before their children, siblings by name.  A loop, not a recursion:
    stacks may be deeper (1,024 frames) than Python's recursion limit."""
    total = root.incl.get(key, 0.0)
    if total <= 0:
        return []
    out = []
    todo = [(root, 0.0, -1, 0.0)]
    while todo:
        node, x, depth, w = todo.pop()
        if depth >= 0:
            out.append((x, depth, w, node))
        kids = []
        for child in sorted(node.children.values(), key=lambda n: n.name):
            cw = width * child.incl.get(key, 0.0) / total
            if cw >= min_px:
                kids.append((child, x, depth + 1, cw))
            x += cw
        todo.extend(reversed(kids))
    return out


TOP = 2 * FRAME_H + 8  # the title and the buttons
BOTTOM = FRAME_H + 8  # the details line: the frame under the pointer, the matched share


def _paint(node: Node) -> tuple[str, str]:
    return _colour(node.name), ""


def flame_svg(
    root: Node, key: str, title: str, unit: str, width: int = 1200, paint: Paint = _paint
) -> str:
    """A flame graph as SVG text: the outermost frames at the bottom, each
    frame as wide as its inclusive share of key; hovering a frame shows its
    name, value and share (an SVG <title>).  In a browser (the script below)
    the graph is as wide as the window and opens scrolled to its root;
    clicking a frame zooms into it, "Search" colours the frames whose name
    matches a regular expression and gives their share, "Reset zoom" and
    Escape go back.  Each frame's <g> holds its place as fractions of the
    whole (data-x, data-w) and its depth (data-d), which the script reads.
    paint gives each frame's colour and a note added to its tip."""
    gw = width - 20
    frames = flame_frames(root, key, gw)
    depth = 1 + max((d for _, d, _, _ in frames), default=0)
    height = TOP + depth * FRAME_H + BOTTOM
    total = root.incl.get(key, 0.0)
    out = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
        'viewBox="0 0 %d %d" font-family="Verdana, sans-serif" font-size="%d" '
        'data-char-w="%g">' % (width, height, width, height, FONT, CHAR_W),
        '<rect width="100%" height="100%" fill="#f8f8f8"/>',
        '<text id="title" x="%d" y="%d" text-anchor="middle" font-size="%d">%s</text>'
        % (width // 2, FRAME_H + 2, FONT + 3, _escape(title)),
        '<text id="unzoom" x="10" y="%d" cursor="pointer" opacity="0">Reset zoom</text>'
        % (2 * FRAME_H + 2),
        '<text id="search" x="%d" y="%d" text-anchor="end" cursor="pointer" '
        'opacity="0.4">Search</text>' % (width - 10, 2 * FRAME_H + 2),
        '<text id="details" x="10" y="%d"> </text>' % (height - 6),
        '<text id="matched" x="%d" y="%d" text-anchor="end"> </text>'
        % (width - 10, height - 6),
    ]
    for x, d, w, node in frames:
        value = node.incl.get(key, 0.0)
        y = height - BOTTOM - (d + 1) * FRAME_H
        fill, note = paint(node)
        tip = "%s (%s %s, %.2f%%%s)" % (
            node.name,
            _number(value),
            unit,
            100 * value / total,
            note,
        )
        out.append(
            '<g data-x="%.7f" data-w="%.7f" data-d="%d"><title>%s</title>'
            % (x / gw, w / gw, d, _escape(tip))
        )
        out.append(
            '<rect x="%.1f" y="%d" width="%.1f" height="%d" fill="%s" rx="1"/>'
            % (10 + x, y, max(w - 0.5, 0.1), FRAME_H - 1, fill)
        )
        out.append(
            '<text x="%.1f" y="%d">%s</text>'
            % (10 + x + 2, y + FRAME_H - 4, _escape(_label(node.name, w)))
        )
        out.append("</g>")
    out.append("<script><![CDATA[%s]]></script>" % _SCRIPT)
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _label(name: str, w: float) -> str:
    """The name cut to a frame w pixels wide ("" below 3 characters)."""
    fit = int((w - 4) / CHAR_W)
    if fit < 3:
        return ""
    return name if len(name) <= fit else name[: fit - 2] + ".."


# The browser's part: layout to the window's width, zoom, search.  Frames
# are placed from their fractions (data-x, data-w) of the zoomed frame's.
_SCRIPT = r"""
(function () {
"use strict";
var svg = document.documentElement, frames = [], zoomed = null;
var charW = parseFloat(svg.getAttribute("data-char-w"));
var byId = function (id) { return document.getElementById(id); };
Array.prototype.forEach.call(svg.querySelectorAll("g[data-x]"), function (g) {
  var tip = g.querySelector("title").textContent;
  frames.push({g: g, rect: g.querySelector("rect"), text: g.querySelector("text"),
    x: parseFloat(g.getAttribute("data-x")), w: parseFloat(g.getAttribute("data-w")),
    d: parseInt(g.getAttribute("data-d"), 10), tip: tip,
    name: tip.replace(/ \([^()]*%\)$/, ""), fill: g.querySelector("rect").getAttribute("fill")});
});
function label(name, px) {
  var fit = Math.floor((px - 4) / charW);
  if (fit < 3) return "";
  return name.length <= fit ? name : name.slice(0, fit - 2) + "..";
}
function layout() {
  var width = svg.getBoundingClientRect().width, gw = width - 20;
  var zx = zoomed ? zoomed.x : 0, zw = zoomed ? zoomed.w : 1, zd = zoomed ? zoomed.d : 0;
  var eps = 1e-9;
  frames.forEach(function (f) {
    var x, w, show = true, parent = false;
    if (!zoomed) { x = f.x; w = f.w; }
    else if (f.d >= zd && f.x >= zx - eps && f.x + f.w <= zx + zw + eps) {
      x = (f.x - zx) / zw; w = f.w / zw;
    } else if (f.d < zd && f.x <= zx + eps && f.x + f.w >= zx + zw - eps) {
      x = 0; w = 1; parent = true;
    } else show = false;
    f.g.style.display = show ? "" : "none";
    if (!show) return;
    f.rect.setAttribute("x", (10 + x * gw).toFixed(1));
    f.rect.setAttribute("width", Math.max(w * gw - 0.5, 0.1).toFixed(1));
    f.text.setAttribute("x", (12 + x * gw).toFixed(1));
    f.text.textContent = label(f.name, w * gw);
    f.g.style.opacity = parent ? 0.5 : "";
  });
  byId("search").setAttribute("x", width - 10);
  byId("matched").setAttribute("x", width - 10);
  byId("title").setAttribute("x", width / 2);
  byId("unzoom").setAttribute("opacity", zoomed ? 1 : 0);
}
function zoom(f) { zoomed = f; layout(); }
function unzoom() { zoomed = null; layout(); }
function search(term) {
  var re = null, spans = [], share = 0, end = -1;
  if (term) {
    try { re = new RegExp(term); }
    catch (e) { byId("matched").textContent = "Bad expression: " + term; return; }
  }
  frames.forEach(function (f) {
    var hit = re !== null && re.test(f.name);
    f.rect.setAttribute("fill", hit ? "rgb(230,0,230)" : f.fill);
    if (hit) spans.push([f.x, f.x + f.w]);
  });
  /* nested matches (recursion, a caller and its callee) count once */
  spans.sort(function (a, b) { return a[0] - b[0]; });
  spans.forEach(function (s) {
    if (s[1] <= end) return;
    share += s[1] - Math.max(s[0], end);
    end = s[1];
  });
  byId("matched").textContent = re ? "Matched: " + (100 * share).toFixed(1) + "%" : " ";
  byId("search").setAttribute("opacity", re ? 1 : 0.4);
  byId("search").textContent = re ? "Clear search" : "Search";
  svg.setAttribute("data-searched", term || "");
}
svg.addEventListener("click", function (e) {
  var g = e.target.closest ? e.target.closest("g[data-x]") : null;
  if (g) zoom(frames.filter(function (f) { return f.g === g; })[0]);
  else if (e.target.id === "unzoom") unzoom();
  else if (e.target.id === "search") {
    if (svg.getAttribute("data-searched")) search("");
    else search(window.prompt("Search for a name (regular expression)", ""));
  }
});
svg.addEventListener("mouseover", function (e) {
  var g = e.target.closest ? e.target.closest("g[data-x]") : null;
  byId("details").textContent = g ? g.querySelector("title").textContent : " ";
});
window.addEventListener("keydown", function (e) {
  if (e.key === "Escape") { unzoom(); search(""); }
  else if ((e.ctrlKey || e.metaKey) && e.key === "f") {
    e.preventDefault();
    search(window.prompt("Search for a name (regular expression)", ""));
  }
});
window.addEventListener("resize", layout);
/* As wide as the window, each frame 16 px high; opened at the root. */
svg.removeAttribute("viewBox");
svg.setAttribute("width", "100%");
layout();
window.scrollTo(0, svg.getBoundingClientRect().height);
window.flame = {zoom: zoom, unzoom: unzoom, search: search};
})();
"""


def flame_plot(
    root: Node, key: str, title: str, unit: str, plt: Any, width_in: float = 16,
    paint: Paint = _paint,
) -> Any:
    """The same graph as a matplotlib figure (for PNG and PDF)."""
    frames = flame_frames(root, key, 1.0, min_px=0.0005)
    depth = 1 + max((d for _, d, _, _ in frames), default=0)
    fig, ax = plt.subplots(figsize=(width_in, 1.0 + 0.22 * (depth + 1)))
    total = root.incl.get(key, 0.0)
    for x, d, w, node in frames:
        ax.add_patch(
            plt.Rectangle(
                (x, d), w, 0.95, facecolor=_rgb(paint(node)[0]), edgecolor="white", lw=0.3
            )
        )
        chars = int(w * width_in * 72 / 7)
        if chars >= 3:
            label = node.name if len(node.name) <= chars else node.name[: chars - 2] + ".."
            ax.text(x + 0.002, d + 0.45, label, fontsize=7, va="center", clip_on=True)
    ax.set_xlim(0, 1)
    ax.set_ylim(0, depth)
    ax.set_yticks([])
    ax.set_xticks([])
    ax.set_title("%s (%s %s in all)" % (title, _number(total), unit))
    for side in ("top", "right", "left"):
        ax.spines[side].set_visible(False)
    fig.tight_layout()
    return fig


def diff_paint(base: Node, new: Node, key: str) -> Paint:
    """The colours of a differential flame graph of new against base (as
    Brendan Gregg's difffolded.pl and flamegraph.pl draw one): a frame is
    red when its call path's inclusive share of key grew from base to new,
    blue when it shrank, the deeper the more it changed (against the
    largest change of any frame), grey when it did not; its tip gives the
    share in base.  Shares, not totals: the two runs may last differently."""
    bt, nt = base.incl.get(key, 0.0), new.incl.get(key, 0.0)
    in_base: dict[int, Node | None] = {id(new): base}
    change: dict[int, tuple[float, float]] = {}
    for _, _, _, node in flame_frames(new, key, 1.0, min_px=0.0):  # parents first
        parent = in_base.get(id(node.parent))
        mine = parent.children.get(node.name) if parent is not None else None
        in_base[id(node)] = mine
        was = mine.incl.get(key, 0.0) / bt if mine is not None and bt > 0 else 0.0
        change[id(node)] = (100 * (node.incl.get(key, 0.0) / nt - was), 100 * was)
    most = max((abs(d) for d, _ in change.values()), default=0.0)

    def paint(node: Node) -> tuple[str, str]:
        delta, was = change.get(id(node), (0.0, 0.0))
        if delta == 0 or most == 0:
            fill = "rgb(220,220,220)"
        else:
            v = int(round(220 - 200 * abs(delta) / most))
            fill = "rgb(255,%d,%d)" % (v, v) if delta > 0 else "rgb(%d,%d,255)" % (v, v)
        return fill, "; base %.2f%%" % was

    return paint


def _rgb(css: str) -> tuple[float, float, float]:
    r, g, b = (int(v) / 255 for v in css[4:-1].split(","))
    return (r, g, b)


def _number(v: float) -> str:
    if v == 0 or not math.isfinite(v):
        return "%g" % v
    if abs(v) >= 100:
        return "%.0f" % v
    return "%.3g" % v
