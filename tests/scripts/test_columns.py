"""The scripts' binary input, `sampler-export --format columns`: the same
aggregates as the CSV of the same profile, and a damaged stream is one
clear error (docs/EXPORT.md, "Columns")."""

import json
import os
import stat
import struct
import subprocess

import pytest

from conftest import BIN, EXAMPLES, ProfileText, need, need_perf_counters, run

HEAD_END = b"# rows\n"


def export(prof, fmt, out, *extra):
    subprocess.run(
        [
            os.path.join(BIN, "sampler-export"),
            "--format",
            fmt,
            "--symbols",
            *extra,
            str(prof),
            "-o",
            str(out),
        ],
        check=True,
        capture_output=True,
    )
    return out


def report(path, *args):
    doc = json.loads(run("sampler-report", "--json", "--no-cache", *args, path).stdout)
    doc.pop("profiles", None)  # (their paths)
    return doc


def assert_same(a, b, where="report"):
    if isinstance(a, float) or isinstance(b, float):
        assert a == pytest.approx(b, rel=1e-9, abs=1e-12), where
    elif isinstance(a, dict):
        assert sorted(a) == sorted(b), where
        for k in a:
            assert_same(a[k], b[k], "%s.%s" % (where, k))
    elif isinstance(a, list):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b)):
            assert_same(x, y, "%s[%d]" % (where, i))
    else:
        assert a == b, where


def same_reports(prof, tmp_path):
    """The report of prof (read through the columns) is the report of its
    CSV, value for value (JSON)."""
    csv = export(prof, "csv", tmp_path / "p.csv")
    a, b = report(prof), report(csv)
    assert_same(a, b)  # (the CSV's energy has 10 digits; sums in another order)
    # the processes (at the columns' end, at the CSV's start) name the same
    assert_same(report(prof, "--by", "thread"), report(csv, "--by", "thread"))
    return a, csv


def genprofile(tmp_path, rows, threads):
    need("sampler-export", "bench/genprofile")
    prof = tmp_path / "g.prof"
    subprocess.run(
        [os.path.join(BIN, "bench", "genprofile"), str(prof), str(rows), str(threads)],
        check=True,
        capture_output=True,
    )
    return prof


def test_generated_profile_same_report_as_csv(tmp_path):
    """150,000 thread-samples of 3 threads: frames of whole samples (65,535
    rows, not 65,536), several frames, energy and a counter."""
    prof = genprofile(tmp_path, 150000, 3)
    doc, csv = same_reports(prof, tmp_path)
    # and as text (deterministic here: no sum sits on a rounding boundary)
    ta = run("sampler-report", "--no-cache", prof).stdout.splitlines()[1:]
    tb = run("sampler-report", "--no-cache", csv).stdout.splitlines()[1:]
    assert ta == tb
    assert doc["total"]["samples"] == 150000
    rows = {r["name"]: r for r in doc["rows"]}
    assert rows["hot_a"]["samples"] == 90000 and rows["hot_c"]["samples"] == 15000


def test_many_keys_and_symbol_ids(app, tmp_path):
    """90 threads in 4 functions (360 keys), sample by sample: the key and
    symbol ids of the exporter give the CSV's sums."""
    p = ProfileText(app, channels=[("instructions", "counter", "", 1, "thread")])
    funcs = ("f20", "f30", "f50", "__u10")
    for s in range(400):
        p.sample([(1000 + t, funcs[(s + t) % 4], 1000 * (t + 1), (s * t,)) for t in range(90)])
    prof = p.build(tmp_path / "m.prof")
    doc, _ = same_reports(prof, tmp_path)
    assert doc["total"]["samples"] == 400 * 90


def test_recording_with_exit_rows_same_report_as_csv(tmp_path):
    """A real recording of churn (threads that exit, some before their
    first sample): the exit rows of the columns give the stats totals, and
    the report equals the CSV's."""
    need("sampler", "sampler-export")
    need_perf_counters()
    churn = os.path.join(EXAMPLES, "churn")
    if not os.access(churn, os.X_OK):
        pytest.skip("build/examples/churn not built (run make)")
    prof = tmp_path / "ch.prof"
    rec = subprocess.run(
        [
            os.path.join(BIN, "sampler"),
            "-f",
            "50",
            "-p",
            "perf:perf::TASK-CLOCK",
            "-o",
            str(prof),
            "--",
            churn,
            "0.4",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert rec.returncode == 0, rec.stderr
    cols = export(prof, "columns", tmp_path / "ch.cols")
    data = cols.read_bytes()
    stats = next(x for x in data.rsplit(b"\n# stats", 1)[1:]).split(b"\n")[0].decode()
    fields = dict(w.split("=", 1) for w in stats.split())
    total = report(prof)["total"]
    assert total["perf::TASK-CLOCK"] == int(fields["totals"])
    assert total["samples"] == int(fields["thread_samples"])
    csv = export(prof, "csv", tmp_path / "p.csv")
    assert csv.read_bytes().startswith(b"# sampler csv v2\n"), "the CSV has no v2 header"
    same_reports(prof, tmp_path)


# ---- damaged streams ------------------------------------------------------


def record_g(tmp_path, name, *argv):
    need("sampler", "sampler-export")
    prog = os.path.join(EXAMPLES, argv[0])
    if not os.access(prog, os.X_OK):
        pytest.skip("build/examples/%s not built (run make)" % argv[0])
    prof = tmp_path / name
    subprocess.run(
        [os.path.join(BIN, "sampler"), "-g", "-f", "500", "-o", str(prof), "--", prog, *argv[1:]],
        check=True,
        capture_output=True,
        timeout=120,
    )
    return prof


def stacks_by_row(path, stacks=True, symbols=True):
    """Every row's stack text, read through colprof (a CSV file: csvprof)."""
    from samplerlib import colprof

    prof = colprof.open_profile(str(path), symbols=symbols, stacks=stacks)
    fields = [b[["pid", "tid", "stack"]] for b in prof.blocks()]
    return prof, [(int(r[0]), int(r[1]), prof.stack_text(r[2])) for f in fields for r in f]


@pytest.mark.parametrize("symbols", [True, False])
def test_stack_ids_name_the_csv_stack_column(tmp_path, symbols):
    """-g across fork and exec (new maps mid-profile): each row's stack id
    names the text of the CSV's stack column of the same row, with
    --symbols (function names) and without (addresses)."""
    prof = record_g(tmp_path, "f.prof", "forkexec", "0.2")
    csv = tmp_path / "f.csv"
    subprocess.run(
        [os.path.join(BIN, "sampler-export"), "--format", "csv"]
        + (["--symbols"] if symbols else [])
        + [str(prof), "-o", str(csv)],
        check=True,
        capture_output=True,
    )
    cols, got = stacks_by_row(prof, symbols=symbols)
    _, want = stacks_by_row(csv, symbols=symbols)
    assert cols.has_stacks
    assert len(got) > 50 and got == want
    texts = {t for _, _, t in got}
    if symbols:
        # (main's own frame, or the functions inlined into it after it)
        assert any(t.startswith("_start;") and (t.endswith(";main") or ";main;" in t)
                   for t in texts), texts
    else:
        # addresses, after the "[truncated: CAUSE]" frame of a stack cut short
        frames = [t.split(";") for t in texts]
        frames = [f[1:] if f[0].startswith("[truncated: ") else f for f in frames]
        assert all(a.startswith("0x") for f in frames for a in f), texts
    assert len(cols.stacks) == len(texts)  # each text once


def test_no_stacks_no_stack_lines(stream, tmp_path):
    """A profile without -g: no stack lines, every row NO_STACK."""
    from samplerlib import colprof

    data, prof = stream
    assert b"stacks=0 " in data and b"\n# stack " not in data
    p = colprof.open_profile(str(prof))
    assert not p.has_stacks
    assert all((b["stack"] == colprof.NO_STACK).all() for b in p.blocks())


def test_stack_id_beyond_the_stack_lines_is_one_clear_error(tmp_path, monkeypatch):
    prof = record_g(tmp_path, "c.prof", "calltree", "0.2", "1")
    data = export(prof, "columns", tmp_path / "c.cols").read_bytes()
    f = frame_at(data) + 4 + 52
    fake_exporter(tmp_path, data[:f] + struct.pack("<I", 0xFFFFFFF0) + data[f + 4 :], monkeypatch)
    proc = run("sampler-report", "--tree", str(prof), ok=False)
    assert proc.returncode == 1, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "stack lines (the stream is damaged)" in lines[0], proc.stderr


@pytest.fixture(scope="module")
def stream(tmp_path_factory):
    """A good columns stream of a small generated profile, and that profile."""
    d = tmp_path_factory.mktemp("cols")
    prof = genprofile(d, 3000, 2)
    return export(prof, "columns", d / "g.cols").read_bytes(), prof


def fake_exporter(tmp_path, data, monkeypatch):
    """A sampler-export that writes data whatever it is asked."""
    d = tmp_path / "bin"
    d.mkdir()
    (d / "stream").write_bytes(data)
    exe = d / "sampler-export"
    exe.write_text('#!/bin/sh\nexec cat "%s"\n' % (d / "stream"))
    exe.chmod(exe.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("SAMPLER_BIN_DIR", str(d))


def frame_at(data):
    return data.index(HEAD_END) + len(HEAD_END)


def damaged(data, how):
    f = frame_at(data)
    (count,) = struct.unpack("<I", data[f : f + 4])
    size = int(data.split(b"# records size=", 1)[1].split(b" ", 1)[0])
    end = data.index(b"\n# stats")
    if how == "head":
        return data[: f - 20]
    if how == "frame":
        return data[: f + 4 + size * 10 + 3]
    if how == "endmark":
        return data[: f + 4 + size * count]
    if how == "tail":
        return data[: end + 1]
    if how == "count":
        return data[:f] + struct.pack("<I", 0x7FFFFFFF) + data[f + 4 :]
    if how == "kind":
        k = f + 4 + 40
        return data[:k] + b"\x07" + data[k + 1 :]
    if how == "key":
        k = f + 4 + 48
        return data[:k] + struct.pack("<I", 0xFFFFFFF0) + data[k + 4 :]
    if how == "symbol":
        line = data.index(b"# symbol id=0 ")
        return data[:line] + data[data.index(b"\n", line) + 1 :]
    if how == "magic":
        return b"# sampler columns v9" + data[20:]
    if how == "size":
        return data.replace(b"# records size=%d" % size, b"# records size=%d" % (size + 8), 1)
    raise AssertionError(how)


@pytest.mark.parametrize(
    "how, says",
    [
        ("head", "ends in its head"),
        ("frame", "ends inside a frame"),
        ("endmark", "ends before its end mark"),
        ("tail", "ends before its end line"),
        ("count", "a frame of 2147483647 rows"),
        ("kind", "kind 7"),
        ("key", "row keys beyond their count"),
        ("symbol", "symbol lines"),
        ("magic", "not a sampler columns stream"),
        ("size", "records of"),
    ],
)
def test_damaged_stream_is_one_clear_error(stream, tmp_path, monkeypatch, how, says):
    data, prof = stream
    fake_exporter(tmp_path, damaged(data, how), monkeypatch)
    proc = run("sampler-report", "--no-cache", prof, ok=False)
    assert proc.returncode == 1, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("sampler-report: error: "), proc.stderr
    assert says in lines[0], proc.stderr
    assert "damaged" in lines[0] or "cut short" in lines[0] or "not a sampler" in lines[0]


def test_the_good_stream_through_the_fake_exporter(stream, tmp_path, monkeypatch):
    """(the damage tests' harness reads the undamaged stream)"""
    data, prof = stream
    fake_exporter(tmp_path, data, monkeypatch)
    assert report(prof)["total"]["samples"] == 3000
