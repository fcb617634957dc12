"""sampler-plot: valid PNG and SVG files with titles, units and legends."""

import bz2
import struct
import xml.etree.ElementTree as ET

import pytest

from conftest import ENERGY, ProfileText, need, run, split_profile

SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture
def timeline_profile(app, tmp_path):
    need("sampler-profile", "sampler-export")
    counter = ("instructions", "counter", "", 1, "thread")
    p = ProfileText(app, channels=[ENERGY, counter])
    total = 0
    for k in range(400):
        func = "f20" if k < 200 else "f50"
        total += 1000 if func == "f20" else 3000
        p.sample([(100, func, 1_000_000, (total,))], [5000 if func == "f20" else 9000])
    return p.build(tmp_path / "t.prof")


def png_size(path):
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG signature"
    length, kind = struct.unpack(">I4s", data[8:16])
    assert kind == b"IHDR" and length == 13
    return struct.unpack(">II", data[16:24])


def svg_texts(data):
    root = ET.fromstring(data)
    assert root.tag == SVG + "svg"
    return ["".join(t.itertext()) for t in root.iter(SVG + "text")]


def test_timeline_png(timeline_profile, tmp_path):
    out = tmp_path / "t.png"
    run("sampler-plot", timeline_profile, "-o", out)
    width, height = png_size(out)
    assert 600 <= width <= 2000 and 400 <= height <= 2000


def test_timeline_svg_has_titles_units_legends(timeline_profile, tmp_path):
    out = tmp_path / "t.svg"
    run("sampler-plot", timeline_profile, "-o", out, "--title", "my run")
    texts = svg_texts(out.read_bytes())
    for want in (
        "my run",
        "Power over the run",
        "power (W)",
        "time since start (s)",
        "share of samples (%)",
        "instructions (1/s)",
        "package-0 (energy)",
        "f20",
        "f50",
    ):
        assert want in texts, (want, texts)


def test_profiles_without_ranks_on_one_time_axis(timeline_profile, tmp_path):
    """Several profiles that are no job's ranks: each line is named by its
    file and host (it was an internal error: the name was looked up on an
    attribute the profile does not have)."""
    other = tmp_path / "u.prof"
    other.write_bytes(timeline_profile.read_bytes())
    out = tmp_path / "r.svg"
    proc = run("sampler-plot", timeline_profile, other, "-o", out)
    assert proc.stderr == ""
    texts = svg_texts(out.read_bytes())
    assert "Ranks on one time axis" in texts
    for p in (timeline_profile, other):
        assert any(t.startswith("%s (" % p) for t in texts), (str(p), texts)


def test_distribution_bars_and_violin(app, tmp_path):
    need("sampler-profile", "sampler-export")
    runs = [
        split_profile(
            app,
            tmp_path / ("r%d.prof" % i),
            {"f20": 200 + 10 * i, "f30": 300, "f50": 500 - 10 * i},
            {"f20": 3000, "f30": 1000, "f50": 2000},
        )
        for i in range(3)
    ]
    out = tmp_path / "bars.svg"
    run("sampler-plot", "--kind", "bars", "-o", out, *runs)
    texts = svg_texts(out.read_bytes())
    assert "CPU time (s)" in texts and "package-0 energy (J)" in texts
    assert {"f20", "f30", "f50"} <= set(texts)
    out = tmp_path / "violin.png"
    run("sampler-plot", "--kind", "violin", "-o", out, *runs)
    assert png_size(out)[0] > 300


def test_compressed_svg(timeline_profile, tmp_path):
    out = tmp_path / "t.svg.bz2"
    run("sampler-plot", timeline_profile, "-o", out)
    assert "Power over the run" in svg_texts(bz2.decompress(out.read_bytes()))


def test_unknown_image_format(timeline_profile, tmp_path):
    proc = run("sampler-plot", timeline_profile, "-o", tmp_path / "t.gif", ok=False)
    assert proc.returncode == 1 and "unknown image format" in proc.stderr
    assert not (tmp_path / "t.gif").exists()


def plotted(argv):
    """The matplotlib figure sampler-plot draws for argv (in this process)."""
    from samplerlib import cli_plot

    args = cli_plot.parse_args([str(a) for a in argv])
    plt = cli_plot.pyplot()
    fig = (cli_plot.plot_timeline if args.kind == "timeline" else cli_plot.plot_distribution)(
        args, plt
    )
    return fig, plt


def test_every_series_is_named_in_its_legend(app, tmp_path):
    """matplotlib leaves labels starting with '_' out of a legend: the band
    of __u10 must still be named, and every line and band has its entry."""
    need("sampler-profile", "sampler-export")
    counter = ("instructions", "counter", "", 1, "thread")
    p = ProfileText(app, channels=[ENERGY, counter])
    total = 0
    for k in range(300):
        func = ("f20", "__u10", "f50")[k % 3]
        total += 1000
        p.sample([(100, func, 1_000_000, (total,))], [5000])
    prof = p.build(tmp_path / "u.prof")
    fig, plt = plotted([prof, "-o", tmp_path / "u.svg"])
    try:
        for ax in fig.axes:
            series = ax.get_lines() + [c for c in ax.collections]
            names = [t.get_text() for t in ax.get_legend().get_texts()]
            assert len(names) == len(series) and all(names), (ax.get_title(), names)
        band = [t.get_text() for t in fig.axes[-1].get_legend().get_texts()]
        assert sorted(band) == ["__u10", "f20", "f50"]
    finally:
        plt.close(fig)
    out = tmp_path / "u.svg"
    run("sampler-plot", prof, "-o", out)
    assert "__u10" in svg_texts(out.read_bytes())


def test_bars_are_ordered_by_their_own_quantity(app, tmp_path):
    """The panel titled "CPU time per function" lists functions by CPU
    time, not by samples: f20 has most samples but least CPU time."""
    need("sampler-profile", "sampler-export")
    p = ProfileText(app)
    plan = [("f20", 300, 100_000), ("f30", 150, 1_000_000), ("f50", 100, 2_000_000)]
    for func, n, cpu in plan:
        for _ in range(n):
            p.sample([(100, func, cpu)])
    prof = p.build(tmp_path / "b.prof")
    fig, plt = plotted(["--kind", "bars", prof, "-o", tmp_path / "b.svg"])
    try:
        ax = fig.axes[0]
        assert ax.get_title() == "CPU time per function"
        labels = sorted(
            zip(ax.get_yticks(), [t.get_text() for t in ax.get_yticklabels()]), reverse=True
        )
        assert [name for _, name in labels] == ["f50", "f30", "f20"]
    finally:
        plt.close(fig)
