"""Flame graphs of a call-path tree (callpaths.tree_of): SVG text of our
own for sampler-plot --kind flame, or a matplotlib figure for PNG and PDF."""

import math

FRAME_H = 16
FONT = 11
CHAR_W = 6.2  # of the 11 px font, for cutting names to fit


def _colour(name):
    """A warm colour from the name (the same function, the same colour)."""
    h = 0
    for ch in name.encode("utf-8", "surrogateescape"):
        h = (h * 31 + ch) & 0xFFFFFFFF
    r = 205 + h % 50
    g = 80 + (h >> 8) % 130
    b = 40 + (h >> 16) % 50
    return "rgb(%d,%d,%d)" % (r, g, b)


def _escape(text):
    return (
        text.encode("utf-8", "surrogateescape")
        .decode("utf-8", "replace")
        .replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace('"', "&quot;")
    )


def flame_frames(root, key, width, min_px=0.1):
    """(x, depth, w, node) of every frame at least min_px wide, the root's
    children at depth 0, x and w in pixels of a graph width wide."""
    total = root.incl.get(key, 0.0)
    if total <= 0:
        return []
    out = []

    def place(node, x, depth):
        for child in sorted(node.children.values(), key=lambda n: n.name):
            w = width * child.incl.get(key, 0.0) / total
            if w >= min_px:
                out.append((x, depth, w, child))
                place(child, x, depth + 1)
            x += w

    place(root, 0.0, 0)
    return out


def flame_svg(root, key, title, unit, width=1200):
    """A flame graph as SVG text: the outermost frames at the bottom, each
    frame as wide as its inclusive share of key; hovering a frame shows its
    name, value and share (an SVG <title>)."""
    frames = flame_frames(root, key, width - 20)
    depth = 1 + max((d for _, d, _, _ in frames), default=0)
    height = (depth + 3) * FRAME_H + 10
    total = root.incl.get(key, 0.0)
    out = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
        'viewBox="0 0 %d %d" font-family="Verdana, sans-serif" font-size="%d">'
        % (width, height, width, height, FONT),
        '<rect width="100%" height="100%" fill="#f8f8f8"/>',
        '<text x="%d" y="%d" text-anchor="middle" font-size="%d">%s</text>'
        % (width // 2, FRAME_H + 2, FONT + 3, _escape(title)),
    ]
    for x, d, w, node in frames:
        value = node.incl.get(key, 0.0)
        y = height - (d + 1) * FRAME_H - 5
        tip = "%s (%s %s, %.2f%%)" % (node.name, _number(value), unit, 100 * value / total)
        out.append("<g><title>%s</title>" % _escape(tip))
        out.append(
            '<rect x="%.1f" y="%d" width="%.1f" height="%d" fill="%s" rx="1"/>'
            % (10 + x, y, max(w - 0.5, 0.1), FRAME_H - 1, _colour(node.name))
        )
        fit = int((w - 4) / CHAR_W)
        if fit >= 3:
            label = node.name if len(node.name) <= fit else node.name[: fit - 2] + ".."
            out.append(
                '<text x="%.1f" y="%d">%s</text>' % (10 + x + 2, y + FRAME_H - 4, _escape(label))
            )
        out.append("</g>")
    out.append("</svg>")
    return "\n".join(out) + "\n"


def flame_plot(root, key, title, unit, plt, width_in=16):
    """The same graph as a matplotlib figure (for PNG and PDF)."""
    frames = flame_frames(root, key, 1.0, min_px=0.0005)
    depth = 1 + max((d for _, d, _, _ in frames), default=0)
    fig, ax = plt.subplots(figsize=(width_in, 1.0 + 0.22 * (depth + 1)))
    total = root.incl.get(key, 0.0)
    for x, d, w, node in frames:
        ax.add_patch(
            plt.Rectangle(
                (x, d), w, 0.95, facecolor=_rgb(_colour(node.name)), edgecolor="white", lw=0.3
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


def _rgb(css):
    r, g, b = (int(v) / 255 for v in css[4:-1].split(","))
    return (r, g, b)


def _number(v):
    if v == 0 or not math.isfinite(v):
        return "%g" % v
    if abs(v) >= 100:
        return "%.0f" % v
    return "%.3g" % v
