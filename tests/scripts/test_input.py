"""Reading profiles: CSV v2 (kind column, totals), the numpy block reader
against a plain per-row reference, the escape rule, pipes, devices and
decompression bombs."""

import bz2
import json
import os
import random
import subprocess
import sys
import threading

import pytest

from conftest import FIXTURES, SCRIPTS, need, run
from samplerlib import blockagg, csvprof, fileio, runagg, textview

BOMB = os.path.join(FIXTURES, "zeros-4g.csv.bz2")  # "# sampler csv v2\n" + 4 GiB of zeros

CHANNELS = [
    ("package-0", "rapl", "uJ", 1e-6, "energy", "sample"),
    ("psu", "scpi", "W", 1, "power", "sample"),
    ("vbus", "scpi", "V", 1, "voltage", "sample"),
    ("instructions", "perf", "", 1, "counter", "thread"),
]


def csv_v2(rows, channels=CHANNELS, stats=None, argv="./app 10"):
    """A CSV v2 text: rows are (time, pid, tid, kind, pc, cpu, wall, [values], dso, symbol)."""
    out = ["# sampler csv v2"]
    out.append("# host hostname=testhost realtime_ns=0 monotonic_ns=0 start_ns=0")
    for i, (name, source, unit, scale, kind, scope) in enumerate(channels):
        out.append(
            "# channel index=%d name=%s source=%s unit=%s scale=%g kind=%s scope=%s"
            % (i, name, source, unit, scale, kind, scope)
        )
    out.append("# process pid=100 ppid=1 comm=app argv=%s" % textview.escape(argv))
    out.append(
        ",".join(
            ["time_ns", "pid", "tid", "kind", "pc", "cpu_delta_ns", "wall_delta_ns"]
            + [c[0] for c in channels]
            + ["dso", "symbol"]
        )
    )
    for r in rows:
        t, pid, tid, kind, pc, cpu, wall, values, dso, sym = r
        cells = [str(t), str(pid), str(tid), kind, "0x%x" % pc, str(cpu), str(wall)]
        cells += ["" if v is None else repr(v) for v in values]
        cells += [dso, sym]
        out.append(",".join(cells))
    if stats:
        out.append("# stats " + " ".join("%s=%s" % kv for kv in stats.items()))
    return "\n".join(out) + "\n"


def random_rows(seed, samples=3000, threads=(101, 102, 103)):
    """Samples of 1-3 threads in 4 functions, some readings missing, some
    threads with no CPU time, and exit rows in between."""
    rnd = random.Random(seed)
    rows, t = [], 0
    syms = ["f1", "f2", "__g", "h%2Cx"]
    for s in range(samples):
        t += 1_000_000
        wall = rnd.choice([1_000_000, 900_000, 1_100_000])
        nth = rnd.randint(1, len(threads))
        power = None if rnd.random() < 0.05 else rnd.uniform(1, 20)
        volts = None if rnd.random() < 0.05 else rnd.uniform(11, 13)
        missing_energy = rnd.random() < 0.05
        for tid in threads[:nth]:
            cpu = 0 if rnd.random() < 0.1 else rnd.randint(1, wall)
            energy = None if missing_energy else float(rnd.randint(0, 5000))
            counter = rnd.randint(0, 10**6)
            sym = rnd.choice(syms)
            rows.append(
                (
                    t,
                    100,
                    tid,
                    "sample",
                    0x1000,
                    cpu,
                    wall,
                    [energy, power, volts, counter],
                    "/bin/app",
                    sym,
                )
            )
        if s % 997 == 5:  # a thread's tail after its last sample
            rows.append(
                (
                    t + 10,
                    100,
                    104,
                    "exit",
                    0,
                    rnd.randint(1, 10**6),
                    0,
                    [0.0, None, None, 777],
                    "[unknown]",
                    "[unknown]",
                )
            )
    return rows


def reference(rows):
    """The aggregation, one row at a time (the rule of docs/SCRIPTS.md):
    {(pid, tid, dso, symbol): {field: sum}}."""
    acc = {}

    def slot(r):
        key = (r[1], r[2], r[8], textview.unescape(r[9]))
        return acc.setdefault(
            key,
            dict.fromkeys(
                ["n", "cpu", "wall", "e", "se", "sw", "p", "ps", "psw", "v", "vn", "c"], 0.0
            ),
        )

    samples = []
    for r in rows:
        if r[3] == "exit":
            a = slot(r)
            a["cpu"] += r[5] * 1e-9
            a["c"] += r[7][3]
            continue
        if samples and samples[-1][0][0] == r[0]:
            samples[-1].append(r)
        else:
            samples.append([r])
    for buf in samples:
        wall = buf[0][6] * 1e-9
        cpus = [r[5] * 1e-9 for r in buf]
        tot = sum(cpus)
        frac = [c / tot for c in cpus] if tot > 0 else [1.0 / len(buf)] * len(buf)
        energies = [r[7][0] for r in buf]
        e_ok = None not in energies
        es = sum(e * 1e-6 for e in energies) if e_ok else 0
        p = buf[0][7][1]
        for i, r in enumerate(buf):
            a = slot(r)
            a["n"] += 1
            a["cpu"] += cpus[i]
            a["wall"] += wall
            if e_ok:
                a["e"] += energies[i] * 1e-6
                a["se"] += es
                a["sw"] += wall
            if p is not None:
                a["p"] += p * wall * frac[i]
                a["ps"] += p * wall
                a["psw"] += wall
            if r[7][2] is not None:
                a["v"] += r[7][2]
                a["vn"] += 1
            a["c"] += r[7][3]
    return acc


def aggregated(path):
    run_ = blockagg.aggregate(csvprof.Profile(str(path)), "test")
    e, p = runagg.BASE, runagg.BASE + runagg.PER_ENERGY
    out = {}
    for key, v in run_.keys.items():
        out[key] = {
            "n": v[runagg.N],
            "cpu": v[runagg.CPU],
            "wall": v[runagg.WALL],
            "e": v[e + runagg.E],
            "se": v[e + runagg.SE],
            "sw": v[e + runagg.SW],
            "p": v[p + runagg.E],
            "ps": v[p + runagg.SE],
            "psw": v[p + runagg.SW],
            "v": v[run_.off_reading(0)],
            "vn": v[run_.off_reading(0) + 1],
            "c": v[run_.off_counter(0)],
        }
    return run_, out


@pytest.mark.parametrize("block, threads", [(csvprof.BLOCK, 3), (5000, 3), (333, 3), (7000, 90)])
def test_numpy_blocks_match_the_per_row_reference(tmp_path, monkeypatch, block, threads):
    """Whatever the block size (samples cut across blocks) and the number
    of keys, the sums are those of the per-row rule."""
    monkeypatch.setattr(csvprof, "BLOCK", block)
    rows = random_rows(seed=block, threads=tuple(range(101, 101 + threads)))
    path = tmp_path / "r.csv"
    path.write_text(csv_v2(rows))
    run_, got = aggregated(path)
    want = reference(rows)
    assert set(got) == set(want)
    for key in want:
        for field in want[key]:
            assert got[key][field] == pytest.approx(want[key][field], rel=1e-9, abs=1e-12), (
                key,
                field,
            )
    assert run_.samples == len({r[0] for r in rows if r[3] == "sample"})
    assert "h,x" in {k[3] for k in got}  # symbols are unescaped


def test_csv_v2_counts_samples_and_totals_every_row(tmp_path):
    """Sample counts count `sample` rows; CPU time and counters add the
    `exit` rows, so that the report's totals are the stats totals."""
    rows = [
        (
            1_000_000,
            100,
            101,
            "sample",
            0x1000,
            400_000,
            1_000_000,
            [10.0, 5.0, 12.0, 100],
            "/bin/app",
            "f1",
        ),
        (
            1_000_000,
            100,
            102,
            "sample",
            0x1000,
            600_000,
            1_000_000,
            [20.0, 5.0, 12.0, 300],
            "/bin/app",
            "f2",
        ),
        (1_500_000, 100, 102, "exit", 0x1000, 250_000, 0, [0.0, 0.0, None, 50], "/bin/app", "f2"),
        (
            1_600_000,
            100,
            103,
            "exit",
            0,
            1_000_000,
            0,
            [None, None, None, 7],
            "[unknown]",
            "[unknown]",
        ),
    ]
    path = tmp_path / "v2.csv"
    path.write_text(csv_v2(rows, stats={"wall": 2_000_000, "samples": 1, "thread_samples": 2}))
    doc = json.loads(run("sampler-report", "--json", "--no-cache", path).stdout)
    total = doc["total"]
    assert total["samples"] == 2
    assert total["cpu_s"] == pytest.approx(2.25e-3, rel=1e-12)
    assert total["instructions"] == 457
    assert total["package-0_J"] == pytest.approx(30e-6, rel=1e-12)
    rows_ = {r["name"]: r for r in doc["rows"]}
    assert rows_["f2"]["samples"] == 1 and rows_["f2"]["cpu_s"] == pytest.approx(0.85e-3)
    assert rows_["[unknown]"]["samples"] == 0 and rows_["[unknown]"]["cpu_s"] == pytest.approx(
        1e-3
    )
    text = run("sampler-report", "--no-cache", path).stdout
    assert "1 samples, 2 thread-samples" in text


def test_csv_v1_is_still_read(tmp_path):
    text = (
        "# sampler csv v1\n# process pid=100 ppid=1 comm=app argv=app\n"
        "time_ns,pid,tid,pc,cpu_delta_ns,wall_delta_ns,dso,symbol\n"
        "1000,100,100,0x10,500,1000,/bin/app,f1\n2000,100,100,0x10,700,1000,/bin/app,f2\n"
    )
    (tmp_path / "v1.csv").write_text(text)
    doc = json.loads(run("sampler-report", "--json", "--no-cache", tmp_path / "v1.csv").stdout)
    assert {r["name"]: r["samples"] for r in doc["rows"]} == {"f1": 1, "f2": 1}
    assert doc["total"]["cpu_s"] == pytest.approx(1.2e-6)


# ---- the escape rule ------------------------------------------------------


def test_escape_rule_every_byte_round_trips():
    data = bytes(range(256)) + b"\xff\xfe not UTF-8 \xc3\xa9 \xe2\x80\xa8"
    text = textview.escape(data)
    raw = textview.to_bytes(text)
    for b in raw:
        assert b > 0x20 and b != 0x7F and b not in b"=,", "%r left unescaped" % bytes([b])
    assert textview.to_bytes(textview.unescape(text)) == data
    assert textview.escape("a\tb%c=d,e f\n") == "a%09b%25c%3Dd%2Ce%20f%0A"
    assert textview.escape("\x7f") == "%7F"
    assert textview.escape("é") == "é"  # bytes >= 0x80 are written raw


def test_text_view_words_split_at_blanks_only():
    # U+00A0 (no-break space) and U+2028 are blanks to str.split(): not here
    line = textview.format_line("exec", [("comm", "a\u00a0b"), ("argv", "x\u2028y\tz")])
    kind, fields = textview.parse_line(line)
    assert kind == "exec" and fields == {"comm": "a\u00a0b", "argv": "x\u2028y\tz"}


@pytest.mark.parametrize(
    "argv",
    [
        'sh -c "./spin\t# tab"',
        "a\nb",
        "100% a=b,c",
        b"caf\xe9 \xff".decode("utf-8", "surrogateescape"),
    ],
)
def test_csv_header_fields_round_trip(tmp_path, argv):
    rows = [(1000, 100, 100, "sample", 0x10, 500, 1000, [1.0, 1.0, 12.0, 1], "/bin/app", "f")]
    path = tmp_path / "a.csv"
    path.write_bytes(textview.to_bytes(csv_v2(rows, argv=argv)))
    prof = csvprof.Profile(str(path))
    assert prof.processes[100]["argv"] == argv
    for _ in prof.blocks():
        pass


# ---- pipes, devices, bombs ------------------------------------------------


def test_report_reads_a_named_pipe(tmp_path):
    rows = random_rows(seed=7, samples=300)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    text = csv_v2(rows)

    def writer():
        with open(fifo, "w") as f:
            f.write(text)

    th = threading.Thread(target=writer)
    th.start()
    doc = json.loads(run("sampler-report", "--json", fifo).stdout)
    th.join()
    assert doc["total"]["samples"] == sum(1 for r in rows if r[3] == "sample")


def test_report_reads_a_profile_from_a_pipe(split_prof, tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    data = split_prof.read_bytes()

    def writer():
        with open(fifo, "wb") as f:
            f.write(data)

    th = threading.Thread(target=writer)
    th.start()
    doc = json.loads(run("sampler-report", "--json", "--no-cache", fifo).stdout)
    th.join()
    assert {r["name"]: r["samples"] for r in doc["rows"]} == {"f20": 2, "f50": 3}


@pytest.fixture
def split_prof(app, tmp_path):
    from conftest import split_profile

    need("sampler-profile", "sampler-export")
    return split_profile(app, tmp_path / "s.prof", {"f20": 2, "f50": 3})


def one_error(proc, prog="sampler-report"):
    lines = proc.stderr.splitlines()
    assert proc.returncode == 1 and len(lines) == 1, proc.stderr
    assert lines[0].startswith(prog + ": error: ") and "Traceback" not in proc.stderr
    return lines[0]


def test_devices_and_empty_pipes_are_named(tmp_path):
    line = one_error(run("sampler-report", "/dev/zero", ok=False))
    assert "is a character device" in line and "empty" not in line
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    th = threading.Thread(target=lambda: open(fifo, "wb").close())
    th.start()
    line = one_error(run("sampler-report", fifo, ok=False))
    th.join()
    assert "the pipe gave no data" in line


def test_a_directory_is_named_with_the_file_it_stands_for(split_prof, tmp_path):
    """A directory where a file belongs: the error names that argument and
    the kind of file it wants (issue 44: a timeline given as a directory
    was told to be a profile; -o DIR said "check the directory exists")."""
    d = tmp_path / "d"
    (d / "x.svg").mkdir(parents=True)
    timeline = tmp_path / "t.csv"
    timeline.write_text("time,power\n0,1\n1000,1\n")
    cases = [
        ("sampler-report", [d], "%s: is a directory (give a profile file)" % d),
        ("sampler-report", ["-o", d, split_prof], "cannot write %s: it is a directory" % d),
        ("sampler-plot", ["-o", d / "x.svg", split_prof], "write %s: it is a dir" % (d / "x.svg")),
        ("sampler-compare", [split_prof, d], "%s: is a directory (give a profile file)" % d),
        (
            "sampler-import",
            ["--merge", d, split_prof, "-o", tmp_path / "m.prof"],
            "%s: is a directory (give a meter CSV file)" % d,
        ),
        (
            "sampler-import",
            ["--merge", timeline, "--time", "relative", split_prof, "-o", d],
            "cannot write %s: it is a directory (give a file name)" % d,
        ),
    ]
    for prog, argv, want in cases:
        line = one_error(run(prog, *argv, ok=False), prog)
        assert want in line, (prog, argv, line)
    assert sorted(os.listdir(d)) == ["x.svg"]  # no temporary left in it


def peak_rss_kb(*argv):
    """Run argv; (its exit status, stderr, its peak RSS in KB)."""
    code = (
        "import resource, subprocess, sys\n"
        "p = subprocess.run(sys.argv[1:], capture_output=True, text=True, timeout=120)\n"
        "sys.stderr.write(p.stderr)\n"
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
        "sys.exit(p.returncode)\n"
    )
    p = subprocess.run(
        [sys.executable, "-c", code] + [str(a) for a in argv],
        capture_output=True,
        text=True,
        timeout=150,
    )
    return p.returncode, p.stderr, int(p.stdout.strip())


def test_bz2_bomb_is_read_in_bounded_memory():
    """4 GiB of zeros in 3 KB of bzip2: one clear error, in bounded memory
    (it used to take 8.4 GB for 60 s: the head was decompressed whole)."""
    assert os.path.getsize(BOMB) < 4096
    assert fileio.head_bytes(BOMB, 17) == b"# sampler csv v2\n"
    script = os.path.join(SCRIPTS, "sampler-report")
    status, err, rss = peak_rss_kb(sys.executable, script, "--no-cache", BOMB)
    assert status == 1 and "longer than 16 MiB" in err, err
    assert rss < 400_000, "peak RSS %d KB" % rss


def test_long_line_in_plain_csv(tmp_path):
    path = tmp_path / "long.csv"
    with open(path, "wb") as f:
        f.write(b"# sampler csv v2\n")
        f.write(b"x" * (20 << 20))
    line = one_error(run("sampler-report", "--no-cache", path, ok=False))
    assert "line 2 is longer than 16 MiB" in line


def test_bz2_csv_with_a_large_first_block(tmp_path):
    """A bzip2 CSV whose first compressed block is larger than the 4 KB the
    head used to look at is still recognised as a CSV."""
    rows = random_rows(seed=3, samples=4000)
    text = csv_v2(rows).encode()
    data = bz2.compress(text)
    assert data.find(b"BZh", 4) < 0 and len(data) > 8192
    path = tmp_path / "big.csv.bz2"
    path.write_bytes(data)
    assert fileio.head_bytes(str(path), 17) == b"# sampler csv v2\n"
    _, got = aggregated(path)
    want = reference(rows)
    assert sum(v["n"] for v in got.values()) == sum(v["n"] for v in want.values())


def test_progress_only_on_a_terminal(monkeypatch, capsys):
    monkeypatch.setattr(sys.stderr, "isatty", lambda: False, raising=False)
    p = fileio.Progress("prog", "rows")
    p.last = 0
    p.update(5)
    p.done()
    assert capsys.readouterr().err == ""
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)
    p = fileio.Progress("prog", "rows")
    p.last = 0
    p.update(5)
    p.done()
    assert "prog: rows: 5" in capsys.readouterr().err


def test_outputs_are_new_files_under_the_umask(tmp_path):
    """-o writes a new file (O_EXCL, unpredictable name) renamed over the
    target: a symlink planted at the target is replaced, the file behind
    it untouched, and the mode is the umask's."""
    rows = [(1000, 100, 100, "sample", 0x10, 500, 1000, [1.0, 1.0, 12.0, 1], "/bin/app", "f")]
    src = tmp_path / "a.csv"
    src.write_text(csv_v2(rows))
    victim = tmp_path / "victim"
    victim.write_text("keep me\n")
    out = tmp_path / "out.csv"
    os.symlink(victim, out)
    code = "import os, subprocess, sys; os.umask(0o027); sys.exit(subprocess.call(sys.argv[1:]))"
    script = os.path.join(SCRIPTS, "sampler-report")
    for target in (out, tmp_path / "out.csv.bz2"):
        subprocess.run(
            [
                sys.executable,
                "-c",
                code,
                sys.executable,
                script,
                "--csv",
                "--no-cache",
                "-o",
                str(target),
                str(src),
            ],
            check=True,
            timeout=60,
        )
        assert not os.path.islink(target) and os.stat(target).st_mode & 0o777 == 0o640
    assert victim.read_text() == "keep me\n"
    assert out.read_text().startswith("name,dso,samples")
    assert bz2.decompress((tmp_path / "out.csv.bz2").read_bytes()).startswith(b"name,dso,samples")
    assert sorted(os.listdir(tmp_path)) == ["a.csv", "out.csv", "out.csv.bz2", "victim"]


@pytest.mark.parametrize(
    "argv",
    [
        'sh -c "./spin\t# tab"',
        "a\nb\rc",
        "100% a=b,c d",
        b"caf\xe9 \xff\x01\x7f".decode("utf-8", "surrogateescape"),
    ],
)
def test_argv_round_trips_through_the_c_tools(app, tmp_path, argv):
    """Escaped by textview, built by sampler-profile, exported as CSV by
    sampler-export, read back by csvprof: the same bytes."""
    from conftest import ProfileText

    need("sampler-profile", "sampler-export")
    p = ProfileText(app)
    p.lines = [
        textview.format_line(
            "exec", [("pid", p.pid), ("time", 5_000_000_000), ("comm", "app"), ("argv", argv)]
        )
        if line.startswith("exec ")
        else line
        for line in p.lines
    ]
    p.sample([(100, "f20", 1000)])
    prof = p.build(tmp_path / "a.prof")
    profile = csvprof.Profile(str(prof))
    for _ in profile.blocks():
        pass
    assert textview.to_bytes(profile.processes[100]["argv"]) == textview.to_bytes(argv)


def test_unknown_kind_is_damage(tmp_path):
    rows = [(1000, 100, 100, "sampel", 0x10, 500, 1000, [1.0, 1.0, 12.0, 1], "/bin/app", "f")]
    (tmp_path / "k.csv").write_text(csv_v2(rows))
    line = one_error(run("sampler-report", "--no-cache", tmp_path / "k.csv", ok=False))
    assert "line 9: kind 'sampel' (expected sample, exit or cpu" in line
