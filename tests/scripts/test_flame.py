"""samplerlib.flame: flame graphs of a call-path tree (SVG and figures)."""

import xml.etree.ElementTree as ET

import pytest

from samplerlib import callpaths, flame
from test_callpaths import STACKS


def test_flame_svg_widths_and_tooltips():
    root = callpaths.tree_of(STACKS)
    svg = flame.flame_svg(root, "cpu", "cpu <&> test", "s", width=1020)
    doc = ET.fromstring(svg)
    ns = "{http://www.w3.org/2000/svg}"
    frames = {}
    for g in doc.iter(ns + "g"):
        title = g.find(ns + "title").text
        rect = g.find(ns + "rect")
        frames[title.split(" (")[0], float(rect.get("x"))] = float(rect.get("width"))
    widths = {name: w for (name, _), w in frames.items()}
    # the graph is 1000 px wide: main takes all CPU, b 6 of 12 s
    assert widths["main"] == pytest.approx(1000 - 0.5, abs=0.2)
    assert widths["b"] == pytest.approx(500 - 0.5, abs=0.2)
    leafs = sorted(w for (name, _), w in frames.items() if name == "leaf")
    assert leafs == pytest.approx([333.33 - 0.5, 500 - 0.5], abs=0.2)
    assert "rec" not in widths  # no CPU time
    assert any("leaf (6 s, 50.00%)" == t.text for t in doc.iter(ns + "title"))
    assert "cpu &lt;&amp;&gt; test" in svg


def test_flame_of_nothing_is_an_empty_graph():
    svg = flame.flame_svg(callpaths.tree_of([]), "samples", "empty", "samples")
    assert ET.fromstring(svg) is not None
