"""perf's defaults (20.3), one --weight everywhere, and unresolved
addresses grouped per DSO (20.5).

A profile where thread-samples and CPU time disagree: per sample one
thread runs in f20 (1 ms of CPU) and three wait in f30 (no CPU): f30 has
75% of the thread-samples, f20 100% of the CPU time.  perf orders by CPU
time; so do report, tree, callers, folded and the flame graph unless
--weight samples asks for the wall view.
"""

import csv
import io
import os
import shutil
import subprocess

import pytest

from conftest import BIN, ProfileText, need, pc_in, run


def with_stacks(p, callers):
    """p's text with every thread-sample's callers (innermost first)."""
    stack = " stack=%s stack_end=complete" % ",".join("0x%x" % a for a in callers)
    lines = ["format name=native compressed=0 stacks=1\n"]
    for line in p.text().splitlines(True):
        lines.append(line[:-1] + stack + "\n" if line.startswith("ts ") else line)
    return "".join(lines)


def build_text(text, out):
    need("sampler-profile")
    proc = subprocess.run(
        [os.path.join(BIN, "sampler-profile"), "build", str(out)],
        input=text.encode("utf-8", "surrogateescape"),
        capture_output=True,
    )
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")
    return out


@pytest.fixture
def waiting(app, tmp_path):
    """40 samples: f20 running, f30 waiting in three threads; main calls both."""
    p = ProfileText(app)
    for _ in range(40):
        p.sample([(100, "f20", 1_000_000), (101, "f30", 0), (102, "f30", 0), (103, "f30", 0)])
    return build_text(with_stacks(p, [pc_in(app, "main")]), tmp_path / "w.prof")


def csv_rows(text):
    return list(csv.DictReader(io.StringIO(text)))


def test_report_orders_by_cpu_time_by_default(waiting):
    rows = csv_rows(run("sampler-report", "--csv", waiting).stdout)
    assert [r["name"] for r in rows[:2]] == ["f20", "f30"]
    assert float(rows[0]["cpu_share"]) == pytest.approx(100.0)
    rows = csv_rows(run("sampler-report", "--csv", "--weight", "samples", waiting).stdout)
    assert [r["name"] for r in rows[:2]] == ["f30", "f20"]
    assert float(rows[0]["share"]) == pytest.approx(75.0)
    # --sort still wins over --weight
    rows = csv_rows(run("sampler-report", "--csv", "--sort", "samples", waiting).stdout)
    assert rows[0]["name"] == "f30"


def test_tree_honours_weight_and_sort(waiting):
    def children_of_main(*args):
        rows = csv_rows(run("sampler-report", "--tree", "--csv", *args, waiting).stdout)
        return [r["name"] for r in rows if r["path"].endswith(";main;" + r["name"])]

    assert children_of_main() == ["f20", "f30"]
    assert children_of_main("--weight", "samples") == ["f30", "f20"]
    assert children_of_main("--sort", "samples") == ["f30", "f20"]
    assert children_of_main("--weight", "samples", "--sort", "cpu") == ["f20", "f30"]
    assert children_of_main("--sort", "name") == ["f20", "f30"]
    bad = run("sampler-report", "--tree", "--sort", "bogus", waiting, ok=False)
    assert bad.returncode == 1 and "unknown sort key 'bogus' for a tree" in bad.stderr


def test_callers_order_by_cpu_by_default(waiting):
    rows = csv_rows(run("sampler-report", "--callees", "main", "--csv", waiting).stdout)
    assert [r["name"] for r in rows] == ["main", "f20", "f30"]


def test_folded_and_flame_weigh_cpu_time_by_default(waiting, tmp_path):
    need("sampler-export")
    folded = subprocess.run(
        [os.path.join(BIN, "sampler-export"), "--format", "folded", "-o", "-", str(waiting)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    weights = {}
    for line in folded.splitlines():
        weights[line.rsplit(";", 1)[1].split()[0]] = int(line.split()[-1])
    assert weights == {"f20": 40_000_000}  # CPU ns; the waiting threads weigh nothing
    svg = tmp_path / "f.svg"
    run("sampler-plot", "--kind", "flame", "-o", svg, waiting)
    assert "f30" not in svg.read_text()
    run("sampler-plot", "--kind", "flame", "--weight", "samples", "-o", svg, waiting)
    assert "<title>f30 (120 samples, 75.00%)</title>" in svg.read_text()


def test_help_prints_percent_signs_once():
    for prog in ("sampler-report", "sampler-plot", "sampler-compare"):
        out = run(prog, "--help").stdout
        assert "%%" not in out, prog
    assert "default 1% here" in run("sampler-report", "--help").stdout


# ---- unresolved addresses ---------------------------------------------------


@pytest.fixture
def stripped(app, tmp_path_factory):
    """The test program without its symbol table: every PC is an address."""
    if not shutil.which("strip"):
        pytest.skip("strip not installed")
    exe, syms, pie = app
    d = tmp_path_factory.mktemp("stripped")
    out = d / "app-stripped"
    shutil.copy(str(exe), str(out))
    subprocess.run(["strip", "-s", str(out)], check=True)
    return out, syms, pie


def stripped_profile(info, out, funcs):
    p = ProfileText(info)
    for k, f in enumerate(funcs):
        p.sample([(100, f, 1_000_000)])
    return p.build(out)


def test_addresses_are_one_row_per_dso(stripped, tmp_path):
    prof = stripped_profile(stripped, tmp_path / "s.prof", ["f20", "f30", "f50"] * 10)
    rows = csv_rows(run("sampler-report", "--csv", prof).stdout)
    assert [r["name"] for r in rows] == ["[app-stripped]"]
    assert float(rows[0]["samples"]) == 30
    split = csv_rows(run("sampler-report", "--csv", "--addresses", prof).stdout)
    assert len(split) > 3 and all(r["name"].startswith("0x") for r in split)
    assert sum(float(r["samples"]) for r in split) == 30


def test_compare_of_two_stripped_runs_flags_nothing_new(stripped, tmp_path):
    # the same work at other addresses of the same functions (k varies the PC)
    a = stripped_profile(stripped, tmp_path / "a.prof", ["f20", "f30"] * 20)
    b = stripped_profile(stripped, tmp_path / "b.prof", ["f30", "f20"] * 20 + ["f50"])
    rows = csv_rows(run("sampler-compare", "--csv", a, b).stdout)
    assert [r["name"] for r in rows] == ["[app-stripped]"]
    assert rows[0]["cpu_s_flag"] == ""


# ---- --no-demangle ------------------------------------------------------------

CXX = r"""
namespace ns { __attribute__((noinline)) long spin(long n) { long s = 0;
    for (long i = 0; i < n; i++) s += i ^ (s >> 3); return s; } }
int main(int argc, char **argv) { return (int)ns::spin(argc * 1000) & 1; }
"""


def exporter_demangles():
    need("sampler-export")
    out = subprocess.run(
        [os.path.join(BIN, "sampler-export"), "--help"], capture_output=True, text=True
    )
    return "--no-demangle" in out.stdout + out.stderr


def test_no_demangle_is_passed_to_the_exporter(tmp_path):
    if not exporter_demangles():
        pytest.skip(
            "this sampler-export has no --no-demangle yet (it comes with the demangling "
            "branch; the scripts pass the option through)"
        )
    if not shutil.which("g++"):
        pytest.skip("g++ not installed")
    src = tmp_path / "cxx.cc"
    src.write_text(CXX)
    exe = tmp_path / "cxx"
    subprocess.run(["g++", "-O1", "-g", "-o", str(exe), str(src)], check=True)
    syms = symbols_of_cxx(exe)
    p = ProfileText((exe, syms, True), comm="cxx")
    for _ in range(10):
        p.sample([(100, "_ZN2ns4spinEl", 1_000_000)])
    prof = p.build(tmp_path / "c.prof")
    names = [r["name"] for r in csv_rows(run("sampler-report", "--csv", prof).stdout)]
    assert names == ["ns::spin(long)"]
    raw = run("sampler-report", "--csv", "--no-demangle", prof).stdout
    assert [r["name"] for r in csv_rows(raw)] == ["_ZN2ns4spinEl"]


def symbols_of_cxx(exe):
    out = subprocess.run(
        ["nm", "-S", "--defined-only", str(exe)], capture_output=True, text=True, check=True
    ).stdout
    syms = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 4:
            syms[parts[3]] = (int(parts[0], 16), int(parts[1], 16))
    return syms
