"""sampler-import: Lynsyn CSV and meter timelines become profiles whose
energy matches the CSV's integral."""

import os
import subprocess

import pytest

from conftest import (
    BIN,
    EXAMPLES,
    BASE,
    FIXTURES,
    REALTIME,
    need,
    pc_in,
    report_json,
    rows_by_name,
    run,
    split_profile,
)

LYNSYN = os.path.join(FIXTURES, "lynsyn.csv")
MAPS = os.path.join(FIXTURES, "lynsyn.maps")
TIMELINE = os.path.join(FIXTURES, "timeline.csv")


def read_table(path, sep):
    rows = [x.strip().split(sep) for x in open(path) if x.strip() and not x.startswith("#")]
    return rows[0], [
        [
            float(c)
            if not c.startswith("0x") and c.replace(".", "").replace("-", "").isdigit()
            else c
            for c in r
        ]
        for r in rows[1:]
    ]


def trapezoid(ts, ps, a=None, b=None):
    """Integral of the piecewise-linear series over [a, b] by fine steps."""
    a = ts[0] if a is None else a
    b = ts[-1] if b is None else b
    total, steps = 0.0, 20000
    h = (b - a) / steps

    def at(x):
        if x <= ts[0]:
            return ps[0]
        for i in range(1, len(ts)):
            if x <= ts[i]:
                return ps[i - 1] + (ps[i] - ps[i - 1]) * (x - ts[i - 1]) / (ts[i] - ts[i - 1])
        return ps[-1]

    prev = at(a)
    for k in range(1, steps + 1):
        cur = at(a + k * h)
        total += (prev + cur) / 2 * h
        prev = cur
    return total


@pytest.fixture
def lynsyn_profile(tmp_path):
    need("sampler-profile", "sampler-export")
    out = tmp_path / "ly.prof"
    run("sampler-import", LYNSYN, "--maps", MAPS, "-o", out)
    return out


def test_lynsyn_energy_matches_integral(lynsyn_profile):
    header, rows = read_table(LYNSYN, ";")
    ts = [r[header.index("time")] for r in rows]
    ps = [r[header.index("power1")] for r in rows]
    doc = report_json(lynsyn_profile)
    assert doc["total"]["sensor1_J"] == pytest.approx(trapezoid(ts, ps), rel=0.005)
    kinds = {c["name"]: c["kind"] for c in doc["channels"]}
    assert kinds == {"sensor1": "energy", "sensor2": "current"}
    assert doc["total"]["samples"] == 2 * len(rows)  # two pc columns = two threads
    mean_current = sum(r[header.index("current2")] for r in rows) / len(rows)
    assert doc["total"]["sensor2_A"] == pytest.approx(mean_current, rel=1e-6)
    threads = report_json("--by", "thread", lynsyn_profile)["rows"]
    assert sorted(r["samples"] for r in threads) == [len(rows), len(rows)]


def test_lynsyn_current_times_voltage(tmp_path):
    need("sampler-profile", "sampler-export")
    src = tmp_path / "iv.csv"
    lines = [
        "# current and voltage only, headings with units",
        "Time [s];Current 1 [A];Voltage 1 [V];PC 1",
    ]
    for i in range(101):
        lines.append("%g;%g;%g;400500" % (i * 0.01, 1 + i / 100, 5.0))
    src.write_text("\n".join(lines) + "\n")
    out = tmp_path / "iv.prof"
    run("sampler-import", src, "--maps", MAPS, "-o", out)
    # integral of 5 * (1 + t) over 1 s = 7.5 J
    assert report_json(out)["total"]["sensor1_J"] == pytest.approx(7.5, rel=1e-6)


@pytest.mark.parametrize("pie", [False, True])
def test_lynsyn_pcs_resolve_in_binary(app, app_nopie, tmp_path, pie):
    need("sampler-profile", "sampler-export")
    info = app if pie else app_nopie
    src = tmp_path / "board.csv"
    lines = ["time;power1;pc1"]
    for i in range(1000):
        func = "f20" if i % 10 < 2 else "f30" if i % 10 < 5 else "f50"
        lines.append(
            "%.3f;%g;%x" % (i * 0.001, 2.0 if func == "f50" else 1.0, pc_in(info, func, i))
        )
    src.write_text("\n".join(lines) + "\n")
    out = tmp_path / "board.prof"
    args = ["--binary", info[0]] + (["--load-base", hex(BASE)] if pie else [])
    run("sampler-import", src, "-o", out, *args)
    rows = rows_by_name(report_json("--energy-rule", "end", out))
    assert {f: rows[f]["samples"] for f in ("f20", "f30", "f50") if f in rows} == {
        "f20": 200,
        "f30": 300,
        "f50": 500,
    }, rows
    # trapezoid rule: the first f50 row of each period integrates from 1 W up to 2 W
    assert rows["f50"]["sensor1_W"] == pytest.approx((1.5 + 4 * 2) / 5, rel=1e-6)
    # ... and the first f20 row after f50 from 2 W down to 1 W (row 0: no interval yet)
    assert rows["f20"]["sensor1_W"] == pytest.approx((99 * 1.5 + 100 * 1) / 199, rel=1e-6)


def test_merge_relative_timeline(app, tmp_path):
    need("sampler-profile", "sampler-export")
    prof = split_profile(app, tmp_path / "s.prof", {"f20": 200, "f30": 300, "f50": 500})
    out = tmp_path / "m.prof"
    run("sampler-import", "--merge", TIMELINE, prof, "-o", out, "--time", "relative")
    header, rows = read_table(TIMELINE, ",")
    expect = trapezoid(
        [r[0] for r in rows], [r[1] for r in rows], 0.0, 1.0
    )  # 1000 samples of 1 ms
    doc = report_json(out)
    assert doc["total"]["meter_J"] == pytest.approx(expect, rel=0.005)
    rows = rows_by_name(doc)
    assert sum(r["meter_J"] for r in rows.values()) == pytest.approx(expect, rel=1e-6)
    assert rows["f50"]["meter_share"] > rows["f30"]["meter_share"] > rows["f20"]["meter_share"]


def test_merge_epoch_current_timeline_replaces_channel(app, tmp_path):
    need("sampler-profile", "sampler-export")
    prof = split_profile(app, tmp_path / "s.prof", {"f20": 100, "f30": 100, "f50": 100})
    tl = tmp_path / "amps.csv"
    epoch = REALTIME / 1e9
    tl.write_text(
        "time;current\n" + "".join("%.4f;%g\n" % (epoch + i * 0.01, 2.0) for i in range(-5, 40))
    )
    once = tmp_path / "m1.prof"
    run("sampler-import", "--merge", tl, prof, "-o", once, "--voltage", "12", "--name", "meter")
    assert report_json(once)["total"]["meter_J"] == pytest.approx(24 * 0.3, rel=0.005)
    twice = tmp_path / "m2.prof.bz2"
    run("sampler-import", "--merge", tl, once, "-o", twice, "--voltage", "6", "--name", "meter")
    assert open(twice, "rb").read(3) == b"BZh"
    doc = report_json(twice)
    assert [c["name"] for c in doc["channels"]] == ["meter"]
    assert doc["total"]["meter_J"] == pytest.approx(12 * 0.3, rel=0.005)


def test_merge_timeline_outside_the_run(app, tmp_path):
    need("sampler-profile", "sampler-export")
    prof = split_profile(app, tmp_path / "s.prof", {"f20": 10})
    tl = tmp_path / "late.csv"
    tl.write_text("time,power\n100,5\n101,5\n")
    out = tmp_path / "m.prof"
    proc = run("sampler-import", "--merge", tl, prof, "-o", out, "--time", "relative", ok=False)
    assert proc.returncode == 1 and "does not overlap" in proc.stderr
    assert not out.exists() and not [p for p in os.listdir(tmp_path) if ".tmp" in p]


def test_bz2_import_round_trip(tmp_path, lynsyn_profile):
    need("sampler-profile", "sampler-export")
    out = tmp_path / "ly.prof.bz2"
    run("sampler-import", LYNSYN, "--maps", MAPS, "-o", out)
    assert out.read_bytes()[:3] == b"BZh"
    plain = run("sampler-report", "--csv", "--no-cache", lynsyn_profile).stdout
    assert run("sampler-report", "--csv", "--no-cache", out).stdout == plain


def dump_lines(prof, kind):
    out = subprocess.run(
        [os.path.join(BIN, "sampler-profile"), "dump", str(prof)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return [line for line in out.splitlines() if line.startswith(kind + " ")]


def test_merge_keeps_call_stacks(tmp_path):
    """A profile recorded with -g merges (it failed: unknown field "stack"),
    and keeps every thread-sample's stack."""
    need("sampler", "sampler-profile", "sampler-export")
    prof = tmp_path / "g.prof"
    subprocess.run(
        [os.path.join(BIN, "sampler"), "-g", "-f", "200", "-o", str(prof), "--",
         os.path.join(EXAMPLES, "busy"), "0.2"],
        capture_output=True,
        check=True,
    )
    tl = tmp_path / "flat.csv"
    tl.write_text("time,power\n" + "".join("%g,10\n" % (i * 0.1) for i in range(-10, 200)))
    out = tmp_path / "m.prof"
    run("sampler-import", "--merge", tl, prof, "-o", out, "--time", "relative")
    before, after = dump_lines(prof, "ts"), dump_lines(out, "ts")
    assert len(before) > 10 and [ln for ln in before if "stack=0x" in ln]
    assert after == before
    assert dump_lines(out, "format") == dump_lines(prof, "format")
    assert " stacks=1" in dump_lines(out, "format")[0]
    # 10 W from the run's start to its last sample
    start = int(dump_lines(out, "host")[0].split(" start_ns=")[1].split()[0])
    last = int(dump_lines(out, "sample")[-1].split(" time=")[1].split()[0])
    total = report_json(out)["total"]["meter_J"]
    assert total == pytest.approx(10 * (last - start) * 1e-9, rel=0.01)


@pytest.mark.parametrize("bad", ["inf", "1e400", "nan", "-inf"])
def test_merge_refuses_a_value_that_is_not_finite(app, tmp_path, bad):
    """An overload or no-data value was an OverflowError (inf, 1e400)."""
    need("sampler-profile", "sampler-export")
    prof = split_profile(app, tmp_path / "s.prof", {"f20": 10})
    tl = tmp_path / "bad.csv"
    tl.write_text("time,power\n0,10\n0.005,%s\n0.01,10\n" % bad)
    out = tmp_path / "m.prof"
    proc = run("sampler-import", "--merge", tl, prof, "-o", out, "--time", "relative", ok=False)
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr.count("\n") == 1
    assert "bad.csv:3: the power is not a finite number" in proc.stderr
    assert not out.exists()


def test_merge_refuses_negative_power(app, tmp_path):
    """A -50 W timeline was merged as negative energy."""
    need("sampler-profile", "sampler-export")
    prof = split_profile(app, tmp_path / "s.prof", {"f20": 10})
    tl = tmp_path / "neg.csv"
    tl.write_text("time,power\n0,-50\n0.01,-50\n")
    out = tmp_path / "m.prof"
    proc = run("sampler-import", "--merge", tl, prof, "-o", out, "--time", "relative", ok=False)
    assert proc.returncode == 1 and "neg.csv:2: the power is -50 W, below 0" in proc.stderr
    assert not out.exists()
