"""The profiles of one parallel job (one per rank): --by rank,function and
the like in sampler-report, a job per side in sampler-compare."""

import json
import os
import shutil
import signal
import subprocess
import sys
import time

import pytest

from conftest import (
    BIN,
    ENERGY,
    SCRIPTS,
    ProfileText,
    interleave,
    need,
    report_json,
    rows_by_name,
    run,
)


def ranked(app, out, rank, job, counts, energy_uj=0, host="node1"):
    """One rank's profile: one thread, counts {func: samples}, each sample
    1 ms of CPU time and energy_uj of node energy (0: no energy channel)."""
    p = ProfileText(app, channels=[ENERGY] if energy_uj else [])
    head = p.lines[0].replace("hostname=testhost", "hostname=" + host)
    p.lines[0] = head.rstrip("\n") + " rank=%d job_id=%s\n" % (rank, job)
    for func in interleave(counts):
        p.sample([(100, func, 1_000_000)], [energy_uj] if energy_uj else [])
    return p.build(out)


@pytest.fixture
def job7(app, tmp_path):
    """Rank 0: f20, f50 100 samples each, 2 mJ a sample (0.4 J of node
    energy); rank 1: f30 300 samples, 1 mJ a sample (0.3 J), same host."""
    need("sampler-profile", "sampler-export")
    return [
        ranked(app, tmp_path / "app.0.prof", 0, "7", {"f20": 100, "f50": 100}, 2000),
        ranked(app, tmp_path / "app.1.prof", 1, "7", {"f30": 300}, 1000),
    ]


def by_group(doc):
    return {(r["group"], r["name"]): r for r in doc["rows"]}


def test_by_rank_function_each_rank_flat_profile(job7):
    rows = by_group(report_json("--energy-rule", "end", "--by", "rank,function", *job7))
    assert set(rows) == {("rank 0", "f20"), ("rank 0", "f50"), ("rank 1", "f30")}
    f20, f30 = rows[("rank 0", "f20")], rows[("rank 1", "f30")]
    assert f20["samples"] == 100 and f20["share"] == pytest.approx(50.0)
    assert f20["cpu_s"] == pytest.approx(0.1) and f20["cpu_share"] == pytest.approx(50.0)
    assert f30["samples"] == 300 and f30["cpu_share"] == pytest.approx(100.0)
    # node energy once (0.4 J, the larger reading), split by CPU time 0.2:0.3
    assert f20["package-0_J"] == pytest.approx(0.4 * 0.2 / 0.5 / 2, rel=1e-6)
    assert f30["package-0_J"] == pytest.approx(0.4 * 0.3 / 0.5, rel=1e-6)
    assert by_group(report_json("--energy-rule", "end", "--by", "function,rank", *job7)) == rows
    text = run("sampler-report", "--by", "rank,function", *job7).stdout
    assert "shares are of the rank" in text and "load imbalance" in text


def test_by_host_thread_and_profile_dso(job7):
    rows = by_group(report_json("--energy-rule", "end", "--by", "host,thread", *job7))
    assert len(rows) == 2 and all(g == "node1" for g, _ in rows)
    assert sum(r["samples"] for r in rows.values()) == 500
    assert sum(r["cpu_share"] for r in rows.values()) == pytest.approx(100.0)
    rows = by_group(report_json("--energy-rule", "end", "--by", "profile,dso", *job7))
    assert sorted(g for g, _ in rows) == sorted(str(p) for p in job7)


def test_by_function_over_a_job_adds_up(job7):
    doc = report_json("--energy-rule", "end", *job7)
    rows = rows_by_name(doc)
    assert doc["runs"] == 1 and doc["job"]
    assert rows["f30"]["samples"] == 300 and rows["f30"]["share"] == pytest.approx(60.0)
    assert rows["f20"]["cpu_s"] == pytest.approx(0.1)
    assert sum(r["package-0_J"] for r in rows.values()) == pytest.approx(0.4, rel=1e-6)


@pytest.mark.parametrize("by", ["rank,host", "function,dso", "rank,function,thread", "rank,"])
def test_bad_by_combinations_refused(job7, by):
    proc = run("sampler-report", "--by", by, *job7, ok=False)
    assert proc.returncode != 0 and proc.stdout == ""
    assert len(proc.stderr.splitlines()) == 1 and "one of each" in proc.stderr


def compare_rows(*args):
    doc = json.loads(run("sampler-compare", "--energy-rule", "end", "--json", *args).stdout)
    return {r["name"]: r for r in doc["rows"]}


def test_compare_a_job_per_side(app, tmp_path, job7):
    new = [
        ranked(app, tmp_path / "new.0.prof", 0, "8", {"f20": 100, "f50": 100}, 2000),
        ranked(app, tmp_path / "new.1.prof", 1, "8", {"f30": 600}, 1000),
    ]
    rows = compare_rows("--base-runs", "2", *(job7 + new))
    assert rows["f30"]["base_cpu_s"] == pytest.approx(0.3)  # the job's sum, not a mean
    assert rows["f30"]["new_cpu_s"] == pytest.approx(0.6)
    assert rows["f30"]["cpu_s_flag"] == "+"
    assert rows["f20"]["base_cpu_s"] == pytest.approx(0.1) and rows["f20"]["cpu_s_flag"] == ""
    # node energy once per side: base 0.4 J (max of 0.4, 0.3), new 0.6 J
    assert sum(r["base_package-0_J"] for r in rows.values()) == pytest.approx(0.4, rel=1e-6)
    assert sum(r["new_package-0_J"] for r in rows.values()) == pytest.approx(0.6, rel=1e-6)
    text = run("sampler-compare", "--base-runs", "2", *(job7 + new)).stdout
    assert "job 7 (2 profiles)" in text and "job 8 (2 profiles)" in text


def test_compare_refuses_a_rank_twice_in_one_job(app, tmp_path, job7):
    new = ranked(app, tmp_path / "new.0.prof", 0, "8", {"f20": 100}, 2000)
    proc = run("sampler-compare", "--base-runs", "2", job7[0], job7[0], new, ok=False)
    assert proc.returncode != 0 and len(proc.stderr.splitlines()) == 1
    assert "both rank 0 of job 7" in proc.stderr


def test_plot_bars_a_job_is_one_run(app, tmp_path, job7):
    """sampler-plot --kind bars|violin: the ranks of a job are one run (their
    CPU time added up), not repeated runs: f30 is 0.3 s in job 7 and 0.5 s
    in job 8, so its bar is 0.4 s (not 0.2, the mean over four profiles)."""
    from samplerlib import cli_plot

    job8 = [
        ranked(app, tmp_path / "new.0.prof", 0, "8", {"f20": 100, "f50": 100}, 2000),
        ranked(app, tmp_path / "new.1.prof", 1, "8", {"f30": 500}, 1000),
    ]
    for kind in ("bars", "violin"):
        argv = ["--kind", kind, "-o", str(tmp_path / "b.svg")] + [str(p) for p in job7 + job8]
        args = cli_plot.parse_args(argv)
        plt = cli_plot.pyplot()
        fig = cli_plot.plot_distribution(args, plt)
        try:
            assert fig._suptitle.get_text().startswith("sampler: 2 run(s) of ")
            if kind == "bars":
                ax = fig.axes[0]
                names = [t.get_text() for t in ax.get_yticklabels()]
                width = {n: p.get_width() for n, p in zip(names, ax.patches)}
                assert width["f30"] == pytest.approx(0.4)
                assert width["f20"] == pytest.approx(0.1)
                # node energy once per job: 0.4 J (job 7), 0.5 J (job 8)
                energy = fig.axes[1]
                total = sum(p.get_width() for p in energy.patches)
                assert total == pytest.approx(0.45, rel=1e-6)
        finally:
            plt.close(fig)
    run("sampler-plot", "--kind", "bars", "-o", tmp_path / "b.svg", *(job7 + job8))
    assert "mean of 2 run(s)" in svg_texts_of(tmp_path / "b.svg")


def svg_texts_of(path):
    import xml.etree.ElementTree as ET

    root = ET.parse(path).getroot()
    return ["".join(t.itertext()) for t in root.iter("{http://www.w3.org/2000/svg}text")]


@pytest.fixture
def job12(app, tmp_path):
    """Twelve ranks on three hosts: ten alike (f20 and f50, 100 samples
    each), rank 7 only f30 (200 samples), rank 11 f20 300 and f50 100."""
    need("sampler-profile", "sampler-export")
    paths = []
    for r in range(12):
        counts = {"f20": 100, "f50": 100}
        if r == 7:
            counts = {"f30": 200}
        elif r == 11:
            counts = {"f20": 300, "f50": 100}
        host = "node%d" % (r % 3)
        paths.append(ranked(app, tmp_path / ("app.%d.prof" % r), r, "9", counts, host=host))
    return paths


def test_job_header_is_a_summary(job12):
    """However many ranks, the header is the job's: its ranks, hosts,
    totals, imbalance and the ranks most unlike it with their distance
    (total variation of the CPU-time shares per function); --verbose
    lists the profiles too."""
    text = run("sampler-report", "--by", "rank", *job12).stdout
    head = [line for line in text.splitlines() if line.startswith("#")]
    assert len(head) <= 10, head
    assert not any(str(p) in line for p in job12 for line in head), head
    assert head[0] == "# job 9: 12 profiles, ranks 0-11, on 3 hosts (node0,node1,node2)"
    # 11 ranks of 200 samples, one of 400, 1 ms of CPU time each
    assert "# total: 2600 samples, 2600 thread-samples, 2.600 s of CPU time" in head
    # the job: f20 1300, f50 1100, f30 200 ms of 2600
    whole = {"f20": 1300 / 2600, "f50": 1100 / 2600, "f30": 200 / 2600}
    d7 = 50 * (whole["f20"] + whole["f50"] + 1 - whole["f30"])
    d11 = 50 * (abs(0.75 - whole["f20"]) + abs(0.25 - whole["f50"]) + whole["f30"])
    d0 = 50 * (abs(0.5 - whole["f20"]) + abs(0.5 - whole["f50"]) + whole["f30"])
    line = [x for x in head if x.startswith("# most unlike the job")]
    assert len(line) == 1
    assert line[0].endswith(
        "rank 7 %.1f%%, rank 11 %.1f%%, rank 0 %.1f%%, rank 1 %.1f%%, rank 2 %.1f%%"
        % (d7, d11, d0, d0, d0)
    ), line
    assert "slowest: rank 11 (0.400 s" in text
    verbose = run("sampler-report", "--by", "rank", "--verbose", *job12).stdout
    assert sum(1 for p in job12 if "# %s: " % p in verbose) == 12


def test_parallel_reading_gives_the_numbers_of_one_process(job12):
    """--jobs 2 (the profiles read by two processes, the parts joined)
    gives what one process gives, to the last digit, and the numbers are
    the profiles' (f20: 1300 samples of 1 ms)."""
    for view in (["--by", "rank"], ["--by", "function"]):
        one = report_json("--jobs", "1", "--min-share", "0", *view, *job12)
        two = report_json("--jobs", "2", "--min-share", "0", *view, *job12)
        assert one["rows"] == two["rows"], view
    f20 = rows_by_name(report_json("--jobs", "2", *job12))["f20"]
    assert f20["samples"] == 1300 and f20["cpu_s"] == pytest.approx(1.3)


def deep_ranks(tmp_path, count, samples):
    """count -g profiles of ranks 0.. (tests/scripts/deepstacks.py): rank r
    has 2 + r % 3 leaves of samples thread-samples each, 6 frames deep."""
    need("sampler-profile")
    if shutil.which("gcc") is None:
        pytest.skip("gcc is not installed (deepstacks.py builds its program)")
    deep = os.path.join(os.path.dirname(__file__), "deepstacks.py")
    paths = []
    for r in range(count):
        out = str(tmp_path / ("deep.%d.prof" % r))
        os.makedirs(tmp_path / ("deep%d" % (2 + r % 3)), exist_ok=True)
        subprocess.run(
            [sys.executable, deep, "--bin", BIN, "--rank", str(r), "--samples", str(samples)]
            + ["--dir", str(tmp_path / ("deep%d" % (2 + r % 3))), out, "6", str(2 + r % 3)],
            check=True,
            capture_output=True,
        )
        paths.append(out)
    return paths


def test_parallel_tree_gives_the_numbers_of_one_process(tmp_path):
    """--tree --by rank in two processes: the tree of one, and each rank's
    frame holds its own samples."""
    paths = deep_ranks(tmp_path, 7, 2)
    one = report_json("--jobs", "1", "--tree", "--by", "rank", "--min-share", "0", *paths)
    two = report_json("--jobs", "2", "--tree", "--by", "rank", "--min-share", "0", *paths)
    assert one["rows"] == two["rows"]
    frames = {r["name"]: r["samples"] for r in two["rows"] if r["name"].startswith("rank ")}
    assert frames == {"rank %d" % r: 2 * (2 + r % 3) for r in range(7)}


def mpirun_argv(np_):
    if shutil.which("mpirun") is None:
        pytest.skip("mpirun is not installed (make deps: openmpi-bin)")
    probe = subprocess.run([sys.executable, "-c", "import mpi4py"], capture_output=True)
    if probe.returncode:
        pytest.skip("mpi4py is not installed (make deps: python3-mpi4py)")
    return ["mpirun", "--oversubscribe", "--allow-run-as-root", "-np", str(np_)]


def test_mpi_reduction_gives_the_numbers_of_one_process(job12, tmp_path):
    """mpirun -np 2 sampler-report: each process reads half the profiles,
    rank 0 joins the parts and prints; the same rows as one process."""
    argv = mpirun_argv(2) + [sys.executable, os.path.join(SCRIPTS, "sampler-report")]
    deep = deep_ranks(tmp_path, 5, 2)
    for view, paths in (
        (["--by", "rank"], job12),
        (["--by", "function"], job12),
        (["--tree", "--by", "rank"], deep),
    ):
        one = report_json("--jobs", "1", "--min-share", "0", *view, *paths)
        assert one["rows"]
        proc = subprocess.run(
            argv + ["--json", "--min-share", "0"] + view + [str(p) for p in paths],
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert proc.returncode == 0, proc.stderr
        assert json.loads(proc.stdout)["rows"] == one["rows"], view


def test_sigterm_stops_a_big_report(app, tmp_path):
    """SIGTERM in the middle of a report of many profiles read by worker
    processes: the report ends (status: killed by SIGTERM) and leaves no
    worker or exporter behind."""
    need("sampler-export")
    paths = deep_ranks(tmp_path, 2, 20000)
    paths = [paths[i % 2] for i in range(40)]
    proc = subprocess.Popen(
        [sys.executable, os.path.join(SCRIPTS, "sampler-report"), "--jobs", "2", "--no-cache"]
        + ["--tree", "--by", "rank"] + [str(p) for p in paths],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    time.sleep(1.5)  # the workers and their exporters at work
    assert proc.poll() is None, "the report ended before the signal (make it bigger)"
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=60)  # (generous: a loaded machine)
    assert proc.returncode == -signal.SIGTERM, err
    assert b"terminated" in err and not out
    for _ in range(100):  # what the session still holds: nothing, soon
        try:
            os.killpg(proc.pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.1)
    else:
        raise AssertionError("processes of the report outlived it")
