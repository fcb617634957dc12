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


def test_flame_of_a_1024_frame_stack_renders_every_frame():
    names = tuple("f%d" % i for i in range(1024))
    root = callpaths.tree_of([(names, {"samples": 3, "cpu": 1.0, "cpu_sq": 1.0})])
    frames = flame.flame_frames(root, "cpu", 1000)
    assert [d for _, d, _, _ in frames] == list(range(1024))
    doc = ET.fromstring(flame.flame_svg(root, "cpu", "deep", "s"))
    ns = "{http://www.w3.org/2000/svg}"
    depths = [int(g.get("data-d")) for g in doc.iter(ns + "g")]
    assert depths == list(range(1024))


def test_flame_frames_carry_their_place_for_the_browser():
    root = callpaths.tree_of(STACKS)
    doc = ET.fromstring(flame.flame_svg(root, "cpu", "t", "s", width=1020))
    ns = "{http://www.w3.org/2000/svg}"
    place = {}
    for g in doc.iter(ns + "g"):
        name = g.find(ns + "title").text.split(" (")[0]
        place.setdefault(name, []).append(
            (float(g.get("data-x")), float(g.get("data-w")), int(g.get("data-d")))
        )
    assert place["main"] == [(0.0, pytest.approx(1.0), 0)]
    # siblings by name: a (6 s of 12) then b (6 s) at depth 1
    assert place["a"] == [(0.0, pytest.approx(0.5), 1)]
    assert place["b"] == [(pytest.approx(0.5), pytest.approx(0.5), 1)]
    assert sorted(place["leaf"]) == [
        (0.0, pytest.approx(4 / 12), 2),
        (pytest.approx(0.5), pytest.approx(0.5), 2),
    ]
    script = doc.find(ns + "script").text
    assert "function zoom" in script and "function search" in script
