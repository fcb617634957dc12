"""Bad input: exit status 1 and one `PROG: error: ...` line, never a traceback."""

import os
import subprocess
import sys

import pytest

from conftest import FIXTURES, SCRIPTS, need, run, split_profile

LYNSYN = os.path.join(FIXTURES, "lynsyn.csv")
MAPS = os.path.join(FIXTURES, "lynsyn.maps")
GOOD_CSV_HEAD = "# sampler csv v1\n# host hostname=x\n"


def expect_error(prog, *args, says=None):
    proc = run(prog, *args, ok=False)
    lines = proc.stderr.splitlines()
    assert proc.returncode == 1, (proc.returncode, proc.stderr)
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith(prog + ": error: "), lines[0]
    assert "Traceback" not in proc.stderr
    if says:
        assert says in lines[0], lines[0]
    return lines[0]


@pytest.fixture
def bad(tmp_path):
    files = {
        "empty": b"",
        "garbage": os.urandom(3000) + b"\x00garbage",
        "wrongcols": (GOOD_CSV_HEAD + "a,b,c\n1,2,3\n").encode(),
        "shortrow": (
            GOOD_CSV_HEAD + "time_ns,pid,tid,pc,cpu_delta_ns,wall_delta_ns,dso,symbol\n"
            "1,2,3,0x1,5,6,x,f\n7,8\n"
        ).encode(),
        "badnumber": (
            GOOD_CSV_HEAD + "time_ns,pid,tid,pc,cpu_delta_ns,wall_delta_ns,dso,symbol\n"
            "1,2,3,0x1,5,six,x,f\n"
        ).encode(),
    }
    paths = {}
    for name, data in files.items():
        p = tmp_path / name
        p.write_bytes(data)
        paths[name] = p
    paths["missing"] = tmp_path / "does-not-exist"
    return paths


@pytest.mark.parametrize("prog", ["sampler-report", "sampler-compare", "sampler-plot"])
@pytest.mark.parametrize(
    "case, says",
    [
        ("missing", "no such file"),
        ("empty", "empty file"),
        ("garbage", None),
        ("wrongcols", "wrong columns"),
        ("shortrow", "fields"),
        ("badnumber", "number"),
    ],
)
def test_bad_profiles(bad, tmp_path, prog, case, says):
    if case == "garbage":
        need("sampler-export")
    args = {
        "sampler-report": [bad[case]],
        "sampler-compare": [bad[case], bad[case]],
        "sampler-plot": [bad[case], "-o", tmp_path / "x.png"],
    }[prog]
    expect_error(prog, "--no-cache", *args, says=says)
    assert not (tmp_path / "x.png").exists()


def test_bad_options(bad):
    expect_error("sampler-report", "--top", "zero", LYNSYN, says="--top")
    expect_error("sampler-report", says="required")
    expect_error(
        "sampler-report",
        "--sort",
        "nosuchkey",
        bad["shortrow"].parent / "none",
        says="no such file",
    )
    expect_error("sampler-compare", LYNSYN, says="required")
    expect_error("sampler-plot", LYNSYN, says="-o")


def test_unknown_sort_key(app, tmp_path):
    need("sampler-profile", "sampler-export")
    prof = split_profile(app, tmp_path / "s.prof", {"f20": 3})
    line = expect_error("sampler-report", "--sort", "colour", prof, says="unknown sort key")
    keys = line.split("use one of: ")[1].rstrip(")").split(", ")
    assert len(keys) == len(set(keys)) and keys[:3] == ["samples", "cpu", "name"], keys


@pytest.mark.parametrize(
    "content, says",
    [
        ("time;power1\n0;1\n", "no pcN columns"),
        ("power1;pc1\n1;400000\n", "no time column"),
        ("time;power1;pc1\n0;1;zz\n0.1;1;400000\n", "not hexadecimal"),
        ("time;power1;pc1\n0;one;400000\n", "not a number"),
        ("time;power1;pc1\n1;1;400000\n0;1;400000\n", "backwards"),
        ("time;power1;pc1\n0;1;400000;7\n", "fields"),
        ("Time [s];Power 1 [W];core\n0;1;400000\n", "no pcN columns"),
        ("# only a comment\n", "no data rows"),
    ],
)
def test_bad_lynsyn(tmp_path, content, says):
    src = tmp_path / "bad.csv"
    src.write_text(content)
    expect_error("sampler-import", src, "--maps", MAPS, "-o", tmp_path / "o.prof", says=says)
    assert not (tmp_path / "o.prof").exists()


def test_import_needs_a_map_and_a_real_binary(tmp_path):
    expect_error("sampler-import", LYNSYN, "-o", tmp_path / "o.prof", says="--maps")
    expect_error(
        "sampler-import", LYNSYN, "--binary", LYNSYN, "-o", tmp_path / "o.prof", says="not an ELF"
    )
    bad_maps = tmp_path / "maps"
    bad_maps.write_text("hello world\n")
    expect_error(
        "sampler-import", LYNSYN, "--maps", bad_maps, "-o", tmp_path / "o.prof", says="maps line"
    )


def test_merge_bad_inputs(app, tmp_path, bad):
    need("sampler-profile", "sampler-export")
    prof = split_profile(app, tmp_path / "s.prof", {"f20": 3})
    tl = tmp_path / "tl.csv"
    tl.write_text("time,power\n0,1\n1,1\n")
    expect_error(
        "sampler-import",
        "--merge",
        tl,
        bad["garbage"],
        "-o",
        tmp_path / "o.prof",
        says="sampler-profile dump failed",
    )
    expect_error(
        "sampler-import", "--merge", bad["empty"], prof, "-o", tmp_path / "o.prof", says="empty"
    )
    expect_error("sampler-import", "--merge", tl, prof, "-o", tmp_path / "no/such/dir/o.prof")
    volts = tmp_path / "amps.csv"
    volts.write_text("time,current\n0,1\n1,1\n")
    expect_error(
        "sampler-import", "--merge", volts, prof, "-o", tmp_path / "o.prof", says="--voltage"
    )
    assert not (tmp_path / "o.prof").exists()


def test_missing_program(tmp_path, monkeypatch):
    monkeypatch.setenv("SAMPLER_BIN_DIR", str(tmp_path))
    garbage = tmp_path / "p"
    garbage.write_bytes(b"\x01\x02not a profile")
    line = expect_error("sampler-report", "--no-cache", garbage, says="sampler-export not found")
    assert "SAMPLER_BIN_DIR" in line


def test_help_for_every_script():
    for prog in ("sampler-report", "sampler-compare", "sampler-plot", "sampler-import"):
        proc = subprocess.run(
            [sys.executable, os.path.join(SCRIPTS, prog), "--help"], capture_output=True, text=True
        )
        assert proc.returncode == 0 and proc.stdout.startswith("usage: " + prog)
    report_help = run("sampler-report", "--help").stdout
    assert "Wilson" in report_help and "ratio estimator" in report_help


def test_missing_numpy(tmp_path, monkeypatch):
    """A Python that cannot import numpy (here a numpy.py on PYTHONPATH that
    raises ImportError): a command that reads rows ends with one line that
    names numpy, make deps and the Debian package, and exit status 2; what
    needs no numpy still works (--version, sampler-import, a report the
    cache answers)."""
    prof = tmp_path / "p.csv"
    prof.write_text(
        "# sampler csv v2\n# process pid=100 ppid=1 comm=app argv=app\n"
        "time_ns,pid,tid,kind,pc,cpu_delta_ns,wall_delta_ns,dso,symbol\n"
        "1000,100,100,sample,0x10,500,1000,/bin/app,f1\n"
        "2000,100,100,sample,0x10,700,1000,/bin/app,f2\n"
    )
    cached = run("sampler-report", "--csv", prof).stdout  # fills the cache
    assert cached.splitlines()[1].startswith("f2,/bin/app,1,50,")
    shim = tmp_path / "shim"
    shim.mkdir()
    (shim / "numpy.py").write_text('raise ImportError("hidden by the test")\n')
    monkeypatch.setenv("PYTHONPATH", str(shim))
    commands = [
        ("sampler-report", "--no-cache", prof),
        ("sampler-compare", "--no-cache", prof, prof),
        ("sampler-plot", "-o", tmp_path / "t.svg", prof),
        ("sampler-plot", "--kind", "flame", "-o", tmp_path / "f.svg", prof),
    ]
    for prog, *args in commands:
        proc = run(prog, *args, ok=False)
        assert proc.returncode == 2, (prog, proc.returncode, proc.stderr)
        lines = proc.stderr.splitlines()
        assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
        assert lines[0].startswith(
            "%s: error: numpy is not available to %s: hidden by the test (make deps, "
            "or apt-get install python3-numpy" % (prog, sys.executable)
        ), lines[0]
    assert not (tmp_path / "t.svg").exists() and not (tmp_path / "f.svg").exists()
    for prog in ("sampler-report", "sampler-compare", "sampler-plot", "sampler-import"):
        assert run(prog, "--version").stdout.startswith(prog + " 0.")
    assert run("sampler-report", "--csv", prof).stdout == cached


@pytest.mark.parametrize(
    "prog, extra",
    [
        ("sampler-report", []),
        ("sampler-report", ["--by", "thread"]),
        ("sampler-plot", ["-o", "x.png"]),
    ],
)
def test_damaged_profile_is_an_error_with_its_offset(app, tmp_path, prog, extra):
    """A chunk that fails its CRC was called "truncated", exit 0 and an
    empty result; a truncation after good data stays a warning."""
    need("sampler-profile", "sampler-export")
    good = split_profile(app, tmp_path / "good.prof", {"f20": 3000, "f50": 3000})
    data = bytearray(good.read_bytes())
    # 6 s of samples: chunks of a second each, the damage in a later one
    damaged = tmp_path / "damaged.prof"
    at = len(data) // 2
    data[at : at + 4] = bytes(b ^ 0xFF for b in data[at : at + 4])
    damaged.write_bytes(bytes(data))
    says = "corrupt profile at byte offset "
    line = expect_error(prog, "--no-cache", *extra, damaged, says=says)
    assert "damaged.prof" in line and "the file is damaged" in line
    assert not (tmp_path / "x.png").exists()
    cut = tmp_path / "cut.prof"
    cut.write_bytes(good.read_bytes()[:at])
    proc = run("sampler-report", "--no-cache", cut)
    assert "cut.prof is truncated: using the samples before the cut" in proc.stderr
    assert "f20" in proc.stdout and "f50" in proc.stdout
