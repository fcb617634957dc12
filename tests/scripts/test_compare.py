"""sampler-compare: a changed function is flagged, unchanged ones are not."""

import csv
import io
import json

import pytest

from conftest import need, run, split_profile

BASE = {"f20": 200, "f30": 300, "f50": 500}
NEW = {"f20": 200, "f30": 600, "f50": 500}  # f30 does twice the work
ENERGY = {"f20": 3000, "f30": 1000, "f50": 2000}


# The expected energies are the end rule's exact arithmetic.
def compare_json(*args):
    out = run("sampler-compare", "--energy-rule", "end", "--json", *args).stdout
    return {r["name"]: r for r in json.loads(out)["rows"]}


@pytest.fixture
def pair(app, tmp_path):
    need("sampler-profile", "sampler-export")
    return (
        split_profile(app, tmp_path / "base.prof", BASE, ENERGY),
        split_profile(app, tmp_path / "new.prof", NEW, ENERGY),
    )


def test_changed_function_flagged_unchanged_not(pair):
    rows = compare_json(*pair)
    f30 = rows["f30"]
    assert f30["base_cpu_s"] == pytest.approx(0.3) and f30["new_cpu_s"] == pytest.approx(0.6)
    assert f30["cpu_s_delta"] == pytest.approx(0.3) and f30["cpu_s_rel"] == pytest.approx(100.0)
    assert f30["cpu_s_flag"] == "+" and f30["package-0_J_flag"] == "+"
    assert f30["package-0_J_rel"] == pytest.approx(100.0)
    assert f30["package-0_W_flag"] == ""  # same power, just longer
    for f in ("f20", "f50"):
        assert rows[f]["cpu_s_delta"] == pytest.approx(0.0, abs=1e-12)
        assert rows[f]["changed"] == "", rows[f]
    assert rows["f20"]["base_share"] == pytest.approx(20.0)
    assert rows["f20"]["new_share"] == pytest.approx(200 / 13)


def test_small_change_within_sampling_noise_not_flagged(app, tmp_path):
    need("sampler-profile", "sampler-export")
    a = split_profile(app, tmp_path / "a.prof", {"f20": 200, "f30": 300, "f50": 500})
    b = split_profile(app, tmp_path / "b.prof", {"f20": 205, "f30": 300, "f50": 495})
    rows = compare_json("--min-change", "0", a, b)
    assert rows["f20"]["cpu_s_rel"] == pytest.approx(2.5)
    assert rows["f20"]["cpu_s_flag"] == "" and rows["f50"]["cpu_s_flag"] == ""


def test_run_to_run_spread(app, tmp_path):
    """Three runs per side: f30 grows 30% beyond a spread of ~1-2%; f20
    moves within its spread."""
    need("sampler-profile", "sampler-export")
    base = [
        split_profile(
            app, tmp_path / ("b%d.prof" % i), {"f20": 200 + d, "f30": 300 - d, "f50": 500}
        )
        for i, d in enumerate((0, 4, -4))
    ]
    new = [
        split_profile(
            app, tmp_path / ("n%d.prof" % i), {"f20": 202 + d, "f30": 390 + d, "f50": 500}
        )
        for i, d in enumerate((0, -3, 3))
    ]
    rows = compare_json("--base-runs", "3", *(base + new))
    assert rows["f30"]["cpu_s_flag"] == "+" and rows["f30"]["cpu_s_rel"] == pytest.approx(30.0)
    assert rows["f20"]["cpu_s_flag"] == "" and rows["f50"]["cpu_s_flag"] == ""


def test_text_and_csv(pair):
    text = run("sampler-compare", "--energy-rule", "end", *pair).stdout
    line = next(x for x in text.splitlines() if x.startswith("f30"))
    assert "+100.0%" in line and " + " in line
    out = run("sampler-compare", "--energy-rule", "end", "--csv", "--changed", *pair).stdout
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [r["name"] for r in rows] == ["f30"]
    assert rows[0]["changed"] == "time+ package-0 energy+"


def test_text_rows_name_the_dso(pair):
    """A function is (dso, symbol): every text row of --by function shows
    its DSO, so that an address means something."""
    lines = run("sampler-compare", "--energy-rule", "end", *pair).stdout.splitlines()
    head = next(i for i, x in enumerate(lines) if x.startswith("function"))
    assert lines[head].split()[-1] == "dso"
    rows = [x.split() for x in lines[head + 1 :] if x.strip()]
    assert rows and all(r[-1] == "app" for r in rows), rows
