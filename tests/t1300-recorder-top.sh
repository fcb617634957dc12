#!/bin/bash
# sampler top: the live view of a running program.  --stdio tables against
# the kept profile, sampler-report and sampler-export, energy from a fake
# RAPL tree; the terminal view through a pseudo-terminal: every key, a
# resize, a hang-up, --pid; bad and cut input.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/recorder-lib.sh"
. "$ROOT/tests/pmu/pmu-lib.sh"

PY=/usr/bin/python3
FAKE="$PY $ROOT/tests/fakes/fake-powercap.py"
REPORT="$PY $ROOT/scripts/sampler-report"

# tables FILE WHAT [ARG...]: facts of the --stdio output in FILE, read by
# the headings (columns are two spaces apart).
cat >"$TRASH/tables.py" <<'PYEOF'
import re, statistics, sys
# Columns are two spaces apart; no cell or heading holds two spaces.
tables = []
for line in open(sys.argv[1]):
    line = line.rstrip("\n")
    if line.startswith("# sampler top:"):
        tables.append({"title": line, "head": None, "rows": []})
    elif not tables or not line.strip():
        continue
    elif tables[-1]["head"] is None:
        tables[-1]["head"] = re.split(r"\s{2,}", line.strip())
    else:
        cells = re.split(r"\s{2,}", line.strip())
        tables[-1]["rows"].append(dict(zip(tables[-1]["head"], cells)))
what, args = sys.argv[2], sys.argv[3:]
def title_num(t, key):      # "..., package-0 12.34 W" or "3.02 s, ..."
    w = t["title"].replace(",", " ").replace(";", " ").split()
    return float(w[w.index(key) + 1]) if key in w else float(w[3])
def num(cell):              # "35.7%", "8.850 +- 1.492"
    return float(cell.split()[0].rstrip("%"))
def row(t, label):
    return next(r for r in t["rows"] if r["function"] == label)
if what == "count":
    print(len(tables))
elif what == "wall":        # seconds since the start, last table
    print(title_num(tables[-1], "top:"))
elif what == "first":
    print(tables[0]["rows"][0]["function"])
elif what == "watts":       # median over the full intervals (not the first or last)
    mid = tables[1:-1] or tables
    print(statistics.median(title_num(t, args[0]) for t in mid))
elif what == "rows":        # rows of the last table
    print(len(tables[-1]["rows"]))
elif what == "total":       # CPU s since the start, first row of the last table
    print(tables[-1]["rows"][0]["tot CPU s"])
elif what == "empty":       # middle tables whose interval had no sample
    print(sum(1 for t in tables[1:-1] if not t["rows"]))
elif what == "cell":        # FUNCTION COLUMN: its number in the last table
    print(num(row(tables[-1], args[0])[args[1]]))
elif what == "half":        # FUNCTION COLUMN: the half width of its interval
    print(row(tables[-1], args[0])[args[1]].split()[2])
elif what == "sum":         # FUNCTION COLUMN: summed over the tables
    print(sum(num(r[args[1]]) for t in tables for r in t["rows"] if r["function"] == args[0]))
elif what == "rowsum":      # COLUMN: median over the full intervals of its sum over the rows
    mid = tables[1:-1] or tables
    print(statistics.median(sum(num(r[args[0]]) for r in t["rows"]) for t in mid))
PYEOF
tables() { $PY "$TRASH/tables.py" "$@"; }

# no_thread_stopped PID: no thread of PID in a stopped state (T or t).
no_thread_stopped() {
	states=$(for s in /proc/$1/task/*/stat; do sed "s/.*) //" "$s" | cut -d" " -f1; done | tr -d "\n")
	case "$states" in *[Tt]*) echo "thread states of $1: $states"; return 1 ;; esac
}

test_expect_success '--stdio: a table per second, the first led by the hottest function' '
	$SAMPLER top --stdio -o kept -- "$EXAMPLES/attrib" 4 >top.out 2>top.err &&
	cat top.out | head -8 &&
	wall=$(tables top.out wall) &&
	expect_ge 3.5 "$wall" "run length (s)" &&
	expect_ge "$(awk -v w="$wall" "BEGIN { print int(w) - 1 }")" "$(tables top.out count)" "tables" &&
	$REPORT kept >report &&
	first=$(awk "NR == 4 { print \$1 }" report) &&
	expect_eq f50 "$first" "the report'"'"'s hottest function" &&
	expect_eq "$first" "$(tables top.out first)" "first row of the first table"
'

# The recorder flushes a chunk into a pipe every 100 ms of samples (1 s
# into a file): a refresh of 0.3 s sees new samples every time, not every
# third time.
test_expect_success '--stdio -r 0.3: the stream comes in time for every refresh' '
	$SAMPLER top --stdio -r 0.3 -- "$EXAMPLES/attrib" 3 >fast.out 2>fast.err &&
	n=$(tables fast.out count) &&
	expect_ge 6 "$n" "tables" &&
	expect_le "$(( (n - 2) / 4 ))" "$(tables fast.out empty)" "tables with an empty interval"
'

# energy FILE.csv CHANNEL SYMBOL: the joules sampler-export's CSV gives
# SYMBOL's thread-samples in CHANNEL, and the half width of their 95%
# interval, 1.96 sqrt(sum e^2) (the sampling error of a sum).
cat >"$TRASH/energy.py" <<'PYEOF'
import math, sys
path, channel, symbol = sys.argv[1:4]
scale, head, joules, squares = None, None, 0.0, 0.0
for line in open(path):
    line = line.rstrip("\n")
    if line.startswith("# channel ") and (" name=%s " % channel) in line + " ":
        scale = float(line.split(" scale=")[1].split()[0])
    elif line.startswith("#"):
        continue
    elif head is None:
        head = line.split(",")
        e, sym = head.index(channel), head.index("symbol")
    else:
        f = line.split(",")
        if f[sym] == symbol:
            joules += float(f[e] or 0) * scale
            squares += (float(f[e] or 0) * scale) ** 2
print("%.6f %.6f" % (joules, 1.959963984540054 * math.sqrt(squares)))
PYEOF

test_expect_success '--stdio -p rapl: joules and watts, interval and total, with their intervals' '
	$FAKE make fake >/dev/null &&
	{ $FAKE run fake --rate intel-rapl:0=20 --seconds 30 --step-ms 5 --log fake.log & } &&
	fake=$! &&
	test_when_finished "kill $fake 2>/dev/null; true" &&
	n=0 &&
	while [ "$(cat fake/class/powercap/intel-rapl:0/energy_uj)" -eq 0 ]; do
		n=$((n + 1)) && [ $n -lt 600 ] || exit 1
		sleep 0.05
	done &&
	SAMPLER_SYSFS_ROOT=$TRASH/fake $SAMPLER top --stdio -p rapl:package-0 -o ekept -- \
		"$EXAMPLES/attrib" 4 >e.out 2>e.err &&
	head -8 e.out &&
	within_percent 20 "$(tables e.out watts package-0)" 25 "median watts of the intervals (title)" &&
	within_percent 20 "$(tables e.out rowsum "package-0 W")" 25 "median of the rows'"'"' watts summed" &&
	# (a live view divides energy by the end rule: the trapezoid rule needs
	# the whole profile; the report and the CSV are asked for the same)
	$REPORT --csv --energy-rule end ekept >report.csv &&
	want=$(awk -F, "NR == 1 { for (i = 1; i <= NF; i++) if (\$i == \"package-0_J\") c = i }
		\$1 == \"f50\" { print \$c }" report.csv) &&
	expect_ge 1 "$want" "f50 joules in the report" &&
	within_percent "$want" "$(tables e.out cell f50 "package-0 tot J")" 1 "f50 joules since the start: sampler top vs sampler-report" &&
	within_percent "$want" "$(tables e.out sum f50 "package-0 J")" 1 "f50 joules of the intervals, summed, vs sampler-report" &&
	wall=$(tables e.out wall) &&
	within_percent "$(awk -v j="$want" -v w="$wall" "BEGIN { print j / w }")" \
		"$(tables e.out cell f50 "package-0 tot W")" 1 "f50 mean watts since the start: report joules / seconds" &&
	"$EXPORT" --format csv --energy-rule end --symbols -o e.csv ekept &&
	set -- $($PY "$TRASH/energy.py" e.csv package-0 f50) &&
	within_percent "$1" "$want" 1 "f50 joules: the CSV vs sampler-report" &&
	expect_ge 0.01 "$2" "the CSV'"'"'s half width" &&
	within_percent "$2" "$(tables e.out half f50 "package-0 tot J")" 2 "f50 joules since the start: 95% half width"
'

test_expect_success '--input: a corrupt stream ends with one error line and the tables before it' '
	size=$(stat -c %s kept) &&
	cp kept bad &&
	printf "0123456789abcdefghijklmnopqrstuvwxyz" |
		dd of=bad bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null &&
	run_status $SAMPLER top --stdio --input bad >bad.out 2>bad.err &&
	cat bad.err &&
	expect_eq 125 $rc "exit status" &&
	expect_eq 1 "$(wc -l <bad.err)" "error lines" &&
	expect_grep "^sampler top: error: .*byte" bad.err &&
	expect_ge 1 "$(tables bad.out count)" "tables" &&
	printf "not a profile\n" >junk &&
	run_status $SAMPLER top --stdio --input junk >junk.out 2>junk.err &&
	expect_eq 125 $rc "exit status" &&
	expect_eq 1 "$(wc -l <junk.err)" "error lines" &&
	expect_eq 0 "$(wc -c <junk.out)" "bytes of tables"
'

test_expect_success '--input: a stream cut short gives its tables and one warning' '
	head -c $(( $(stat -c %s kept) * 2 / 3 )) kept >cut &&
	run_status $SAMPLER top --stdio --input cut >cut.out 2>cut.err &&
	cat cut.err &&
	expect_eq 0 $rc "exit status" &&
	expect_eq 1 "$(wc -l <cut.err)" "warning lines" &&
	expect_grep "^sampler top: warning: the profile stream ended at byte [0-9]*, cut short" cut.err &&
	expect_ge 1 "$(tables cut.out count)" "tables" &&
	expect_eq f50 "$(tables cut.out first)" "first row"
'

test_expect_success '--input --by process: one row, the CPU time of the whole profile' '
	$SAMPLER top --stdio --by process --input kept >proc.out &&
	cat proc.out &&
	expect_eq 1 "$(tables proc.out rows)" "rows" &&
	$REPORT kept >report &&
	expect_near "$(awk "\$1 == \"total\" { print \$4 }" report)" "$(tables proc.out total)" 0.002 "CPU s"
'

# Issue 45: top --input on a 200,000-process profile ran 769 s ignoring
# SIGTERM and SIGINT (the view waited for the reader to read it all).  Here
# 20,000 processes, then a pipe that stays open: only the signal ends it.
test_expect_success '--input: SIGTERM ends the view of a big stream, status 143' '
	"$BUILD/sampler-profile" dump kept >kept.txt &&
	$PY "$FAKES/many-processes.py" kept.txt 20000 | "$BUILD/sampler-profile" build many.prof &&
	mkfifo many.fifo &&
	{ { cat many.prof; exec sleep 120; } >many.fifo & } &&
	feeder=$! &&
	test_when_finished "kill $feeder 2>/dev/null || true" &&
	# (the view exits without joining its reader, which may be blocked in
	# a read for ever: in the sanitizer build LeakSanitizer would report
	# what that thread holds at the exit, so the leak check is off here)
	{ ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
		$SAMPLER top --stdio -r 0.2 --input many.fifo >many.out 2>many.err & } &&
	top=$! &&
	for i in $(seq 300); do
		grep -q "^\$" many.out && break	# a whole table
		sleep 0.1
	done &&
	expect_grep "^ *[0-9.]*%.* p[0-9]*\$" many.out &&
	kill -TERM $top &&
	# until it is gone or a zombie (kill -0 holds for one); in the
	# sanitizer build its leak check stops it under ptrace at exit (t)
	for i in $(seq 300); do
		state=$(awk "{ print \$3 }" /proc/$top/stat 2>/dev/null) &&
		test -n "$state" && test "$state" != Z || break
		sleep 0.1
	done &&
	expect_empty "$(awk "\$3 != \"Z\"" /proc/$top/stat 2>/dev/null)" "the view, 30 s after SIGTERM" &&
	run_status wait $top &&
	expect_eq 143 "$rc" "exit status (128 + SIGTERM)" &&
	expect_empty "$(cat many.err)" "stderr"
'

test_expect_success 'bad view options: one error line each' '
	run_status $SAMPLER top --sort watts -- true 2>err &&
	expect_eq 125 $rc "exit status" &&
	expect_grep "^sampler top: error: --sort .watts.: unknown (use --sort cpu" err &&
	run_status $SAMPLER top -r x -- true 2>err &&
	expect_grep "^sampler top: error: -r .x.: not a number" err &&
	run_status $SAMPLER top -o p.bz2 -- true 2>err &&
	expect_grep "^sampler top: error: -o p.bz2: .*drop .bz2" err
'

test_lazy_prereq PYTE '
	/usr/bin/python3 -c "import pyte" 2>/dev/null ||
		{ echo "pyte, the terminal emulator the view is read with, is missing (make deps installs python3-pyte)"; exit 1; }
'

# term.py ROWSxCOLS SCENARIO PROGRAM ARGS...: PROGRAM in a pseudo-terminal
# read through a terminal emulator, driven by the Python SCENARIO below;
# prints what it checked and "status N", how PROGRAM ended.
cat >"$TRASH/term.py" <<'PYEOF'
# term.py ROWSxCOLS SCRIPT PROGRAM ARGS...: run PROGRAM in a pseudo-terminal
# whose screen a terminal emulator (pyte) keeps, as a user sees it (curses
# redraws only the characters that change, so the bytes alone do not hold
# the text), and run SCRIPT (Python) against it with the helpers below.
# SCRIPT fails with fail(); at its end the program must end (a key such as
# q is SCRIPT's to send) and its exit status is printed: "status N".
import fcntl, os, pty, re, select, signal, struct, sys, termios, time
import pyte

rows, cols = (int(x) for x in sys.argv[1].split("x"))
pid, fd = pty.fork()
if pid == 0:
    # not xterm: its terminfo has rep (CSI b, repeat the last character),
    # which curses uses for runs of spaces and pyte 0.8 ignores
    os.environ["TERM"] = "vt220"
    # curses takes LINES and COLUMNS over the terminal's size, resized or not
    os.environ.pop("LINES", None)
    os.environ.pop("COLUMNS", None)
    fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
    os.execv(sys.argv[3], sys.argv[3:])
screen = pyte.Screen(cols, rows)
stream = pyte.ByteStream(screen)
ROW = re.compile(r"^\s*\d+\.\d%  ")
PATH = re.compile(r"^ {4}\s*\d+\.\d{3} s  \S")

ended = False
def pump(seconds):
    """Take what the program draws for seconds."""
    global ended
    end = time.monotonic() + seconds
    while fd >= 0 and not ended:
        left = end - time.monotonic()
        if left <= 0:
            break
        r, _, _ = select.select([fd], [], [], min(left, 0.05))
        if r:
            try:
                data = os.read(fd, 65536)
            except OSError:
                data = b""
            if not data:
                ended = True    # the program closed the terminal: it ended
                return
            stream.feed(data)

def settle(gap=0.1, limit=5):
    """Take what comes until nothing has come for gap seconds: a screen
    that takes several writes is read whole, not half drawn."""
    end = time.monotonic() + limit
    while fd >= 0 and not ended and time.monotonic() < end:
        r, _, _ = select.select([fd], [], [], gap)
        if not r:
            return
        pump(0.01)

def lines():
    return [l.rstrip() for l in screen.display]

def cells(line):
    return re.split(r"\s{2,}", line.strip())

def num(cell):
    """The number a cell starts with ("35.7%", "8.850 +- 1.492")."""
    return float(cell.split()[0].rstrip("%"))

def half(cell):
    return float(cell.split()[2])

class View:
    """The screen read back: title, status line, headings, rows (dicts by
    heading), call path lines, and the lines that are none of these."""
    def __init__(self):
        ls = lines()
        self.lines = ls
        self.title = ls[0]
        self.status = ls[1] if len(ls) > 1 else ""
        self.head = cells(ls[2]) if len(ls) > 2 and "CPU%" in ls[2] else []
        self.rows, self.paths, self.garbage = [], [], []
        for l in ls[3:] if self.head else []:
            if not l or l.startswith("    (no call path"):
                continue
            # a row: a cell under every heading (the DSO may be cut off)
            if ROW.match(l) and len(cells(l)) >= len(self.head) - (self.head[-1] == "DSO"):
                self.rows.append(dict(zip(self.head, cells(l))))
            elif PATH.match(l):
                self.paths.append(l.strip())
            else:
                self.garbage.append(l)
        if not self.title.startswith("# sampler top:") or not self.status.startswith("[sort "):
            self.garbage[:0] = ls[:2]
    def labels(self):
        return [r[self.head[-2] if self.head[-1] == "DSO" else self.head[-1]] for r in self.rows]
    def col(self, name):
        return [num(r[name]) for r in self.rows]
    def key(self):
        return (self.title, tuple(tuple(sorted(r.items())) for r in self.rows))

def show():
    print("the screen:\n" + "\n".join(lines()))

def fail(what):
    print("FAILED: " + what)
    show()
    if pid:
        os.kill(pid, signal.SIGKILL)
    sys.exit(1)

def wait_for(pred, what, limit=60):
    """Pump until pred(View()) holds; the View."""
    end = time.monotonic() + limit
    while True:
        v = View()
        if pred(v):
            settle()
            v = View()
        if pred(v):
            print("showed: " + what)
            return v
        if time.monotonic() > end or fd < 0 or ended:
            fail("never showed: " + what + (" (the program ended)" if ended else ""))
        pump(0.1)

def key(k):
    os.write(fd, k.encode())

def resize(r, c):
    """The terminal's new size: the kernel sends SIGWINCH."""
    screen.resize(r, c)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", r, c, 0, 0))

def hangup():
    global fd
    os.close(fd)
    fd = -1

def check(cond, what):
    if not cond:
        fail(what)
    print("ok: " + what)

exec(open(sys.argv[2]).read())
t0 = time.monotonic()
while True:
    done, status = os.waitpid(pid, os.WNOHANG)
    if done:
        break
    if fd >= 0 and not ended:
        pump(0.05)
    else:
        time.sleep(0.05)
    if time.monotonic() - t0 > 30:
        print("still running 30 s after the script's end")
        os.kill(pid, signal.SIGKILL)
        sys.exit(1)
print("status %d" % os.waitstatus_to_exitcode(status))
PYEOF
term() { $PY "$TRASH/term.py" "$@"; }

cat >"$TRASH/hot.py" <<'PYEOF'
v = wait_for(lambda v: "f50" in v.labels(), "f50 in the table")
check(not v.garbage, "every line is the title, the status, the headings, a row")
key("\r")
def expanded(v):      # the paths of the first row, and one has callers
    return (v.paths and all(cells(p)[1].split(" <- ")[0] == v.labels()[0] for p in v.paths) and
            any(" <- " in p for p in v.paths))
v = wait_for(expanded, "Enter: the call paths of the selected (first) row")
check(not v.garbage, "no stray text")
key("q")
PYEOF

test_expect_success PYTE 'terminal view: the hot function shows, Enter expands its path, q quits' '
	$FAKE make fake2 >/dev/null &&
	SAMPLER_SYSFS_ROOT=$TRASH/fake2 run_status term 24x80 "$TRASH/hot.py" \
		$SAMPLER top -g -r 0.3 -p rapl:package-0 -o tkept -- "$EXAMPLES/attrib" 600 >pty.out &&
	cat pty.out &&
	expect_eq 0 $rc "the scenario (term.py)" &&
	expect_grep "^showed: Enter" pty.out &&
	expect_grep "^status 130" pty.out &&
	$REPORT tkept >report &&
	expect_eq f50 "$(awk "NR == 4 { print \$1 }" report)" "the kept profile'"'"'s hottest function"
'

# blocked 1 8: one thread works, eight wait: the waiters lead the
# thread-samples with no CPU time and little energy, the worker leads the
# CPU time and the energy, so each sort gives another order.
cat >"$TRASH/sort.py" <<'PYEOF'
def ordered(v, col):
    vals = v.col(col)
    return len(vals) >= 2 and all(a >= b for a, b in zip(vals, vals[1:]))
def by(key_, col, other):
    return lambda v: ("[sort %s" % key_) in v.status and ordered(v, col) and not ordered(v, other)
wait_for(by("samples", "samples", "CPU s"), "--sort samples: rows by samples, not by CPU")
key("e")
wait_for(by("energy", "package-0 J", "samples"), "e: rows by energy, not by samples")
key("s")
wait_for(by("samples", "samples", "package-0 J"), "s: rows by samples, not by energy")
key("c")
v = wait_for(by("cpu", "CPU s", "samples"), "c: rows by CPU, not by samples")
check(not v.garbage, "no stray text")
key("q")
PYEOF

test_expect_success PYTE 'terminal view: c, e, s sort by CPU, energy, samples' '
	$FAKE make fake3 >/dev/null &&
	{ $FAKE run fake3 --rate intel-rapl:0=20 --seconds 300 --step-ms 5 --log fake3.log & } &&
	fake=$! &&
	test_when_finished "kill $fake 2>/dev/null; true" &&
	SAMPLER_SYSFS_ROOT=$TRASH/fake3 run_status term 30x200 "$TRASH/sort.py" \
		$SAMPLER top -r 0.3 --sort samples -p rapl:package-0 -- "$EXAMPLES/blocked" 1 8 100000 >sort.out &&
	cat sort.out &&
	expect_eq 0 $rc "the scenario (term.py)" &&
	expect_grep "^showed: c: rows by CPU" sort.out &&
	expect_grep "^status 130" sort.out
'

cat >"$TRASH/pause.py" <<'PYEOF'
def tot(v):
    return sum(v.col("tot CPU s"))
def since(v):
    return float(v.title.split()[3])
v = wait_for(lambda v: v.rows and tot(v) >= 2.0, "2 s of CPU time since the start")
key(" ")
wait_for(lambda v: ", paused" in v.status, "space: paused")
settle()
held = View()
pump(1.5)
settle()
check(View().key() == held.key(), "paused: the table stays as it is for five refresh intervals")
key(" ")
wait_for(lambda v: ", paused" not in v.status and v.title != held.title, "space again: the table moves again")
settle()
before = View()
check(tot(before) >= 2.0, "before z: %.3f s of CPU time since the start" % tot(before))
key("z")
v = wait_for(lambda v: v.rows and since(v) < since(before), "z: the time since the start begins again")
check(tot(v) < tot(before) / 2, "z: CPU time since the start %.3f s, was %.3f s" % (tot(v), tot(before)))
key("q")
PYEOF

test_expect_success PYTE 'terminal view: space pauses and resumes, z zeroes the counts' '
	run_status term 30x160 "$TRASH/pause.py" $SAMPLER top -r 0.3 -- "$EXAMPLES/attrib" 600 >pause.out &&
	cat pause.out &&
	expect_eq 0 $rc "the scenario (term.py)" &&
	expect_grep "^ok: z: CPU time since the start" pause.out &&
	expect_grep "^status 130" pause.out
'

cat >"$TRASH/filter.py" <<'PYEOF'
import re
def ids(v):
    return [l.split()[0] for l in v.labels()]
v = wait_for(lambda v: v.head and v.head[-1] == "thread" and len(v.rows) >= 6, "--by thread: six threads")
shown = set(ids(v))
key("t")
v = wait_for(lambda v: " only" in v.title and v.rows, "t: one thread only")
tid = re.search(r"tid (\d+) only", v.title).group(1)
check(tid in shown and ids(v) == [tid], "t: the row of thread %s only (shown: %s)" % (tid, ids(v)))
key("t")
wait_for(lambda v: " only" not in v.title and len(v.rows) >= 6, "t again: every thread")
key("b")
v = wait_for(lambda v: v.head and v.head[-1] == "process" and len(v.rows) == 2, "b: a row per process")
shown = set(ids(v))
key("p")
v = wait_for(lambda v: " only" in v.title and v.rows, "p: one process only")
pid_ = re.search(r"pid (\d+) only", v.title).group(1)
check(pid_ in shown and ids(v) == [pid_], "p: the row of process %s only (shown: %s)" % (pid_, ids(v)))
key("p")
wait_for(lambda v: " only" not in v.title and len(v.rows) == 2, "p again: both processes")
key("b")
wait_for(lambda v: v.head and v.head[-1] == "rank" and v.labels() == ["rank -"], "b: one row, the rank")
key("b")
v = wait_for(lambda v: v.head[-2:] == ["function", "DSO"] and v.rows, "b: a row per function again")
check(not v.garbage, "no stray text")
key("q")
PYEOF

test_expect_success PYTE 'terminal view --pid: t, p keep one thread or process, b cycles --by, q detaches' '
	{ "$EXAMPLES/blocked" 1 3 100000 >blocked.out & } &&
	a=$! &&
	{ "$EXAMPLES/busy" 600 & } &&
	b=$! &&
	test_when_finished "kill $a $b 2>/dev/null; true" &&
	wait_exec $a "$EXAMPLES/blocked" && wait_exec $b "$EXAMPLES/busy" &&
	for i in $(seq 200); do [ "$(ls /proc/$a/task | wc -l)" -ge 5 ] && break; sleep 0.05; done &&
	run_status term 30x160 "$TRASH/filter.py" $SAMPLER top -r 0.3 --by thread --pid $a,$b >filter.out &&
	cat filter.out &&
	expect_eq 0 $rc "the scenario (term.py)" &&
	expect_grep "^ok: p: the row of process" filter.out &&
	expect_grep "^status 0" filter.out &&
	for p in $a $b; do
		expect_eq 0 "$(sed -n "s/^TracerPid:\t*//p" /proc/$p/status)" "TracerPid of $p" &&
		no_thread_stopped $p || exit 1
	done
'

cat >"$TRASH/resize.py" <<'PYEOF'
v = wait_for(lambda v: "f50" in v.labels(), "f50 at 80 columns")
check("columns hidden" in v.status and "package-0 tot W" not in v.head,
      "80 columns: the widest columns left out, and said so")
check(not v.garbage, "80 columns: no stray text")
resize(40, 200)
v = wait_for(lambda v: "package-0 tot W" in v.head and "f50" in v.labels(), "200 columns: every column")
check("hidden" not in v.status and not v.garbage, "200 columns: nothing hidden, no stray text")
check(all(len(r) == len(v.head) for r in v.rows), "200 columns: a cell under every heading")
resize(8, 60)
v = wait_for(lambda v: v.head[:1] == ["CPU%"] and "package-0 W" not in v.head and len(v.rows) == 5,
             "8x60: CPU% and the function, five rows")
check(not v.garbage, "8x60: no stray text")
key("q")
PYEOF

test_expect_success PYTE 'terminal view: a resized terminal gets the view of its new size' '
	$FAKE make fake4 >/dev/null &&
	SAMPLER_SYSFS_ROOT=$TRASH/fake4 run_status term 24x80 "$TRASH/resize.py" \
		$SAMPLER top -g -r 0.3 -p rapl:package-0 -- "$EXAMPLES/attrib" 600 >resize.out &&
	cat resize.out &&
	expect_eq 0 $rc "the scenario (term.py)" &&
	expect_grep "^showed: 8x60" resize.out &&
	expect_grep "^status 130" resize.out
'

cat >"$TRASH/hup.py" <<'PYEOF'
wait_for(lambda v: "f50" in v.labels(), "f50 in the table")
hangup()
PYEOF

test_expect_success PYTE 'terminal view: a hang-up ends the run, the kept profile complete' '
	run_status term 24x80 "$TRASH/hup.py" $SAMPLER top -r 0.3 -o hkept -- "$EXAMPLES/attrib" 600 >hup.out &&
	cat hup.out &&
	expect_eq 0 $rc "the scenario (term.py)" &&
	expect_grep "^status 129" hup.out &&
	$BUILD/sampler-profile dump hkept >dump &&
	expect_grep "^stats " dump
'

test_expect_success 'sampler top --pid: a signal detaches; the program goes on untraced, its signal delivered' '
	rm -f in out log && mkfifo in &&
	{ "$EXAMPLES/attachee" log <in >out 2>&1 & } &&
	app=$! &&
	exec 7>in &&
	test_when_finished "exec 7>&-; kill $app 2>/dev/null; true" &&
	for i in $(seq 200); do grep -q ready out 2>/dev/null && break; sleep 0.05; done &&
	expect_grep ready out &&
	{ $SAMPLER top --stdio -r 0.3 --pid $app >att.out 2>att.err & } &&
	top=$! &&
	for i in $(seq 400); do [ "$(grep -c "^# sampler top" att.out)" -ge 2 ] && break; sleep 0.05; done &&
	kill -USR1 $app &&
	sleep 0.2 &&
	kill -INT $top &&
	run_status wait $top &&
	cat att.err &&
	expect_eq 0 $rc "sampler top status" &&
	expect_grep "spin_full" att.out &&
	expect_eq 0 "$(sed -n "s/^TracerPid:\t*//p" /proc/$app/status)" "TracerPid" &&
	no_thread_stopped $app &&
	echo 5 >&7 && exec 7>&- &&
	run_status wait $app &&
	expect_eq 3 $rc "the program'"'"'s own status" &&
	expect_grep "sum=5 usr1=1 " out
'

# plain_page: sampler-top(1)'s text without font changes and escapes
plain_page() {
	sed 's/\\f[BIRP]//g; s/\\-/-/g; s/\\(bu//g' "$ROOT/docs/sampler-top.1"
}

test_expect_success 'sampler-top(1): every option of sampler top --help, every key' '
	plain_page >page.txt &&
	$SAMPLER top --help >help.txt &&
	grep -o -- "--[a-z][a-z-]*" help.txt | sort -u >options &&
	expect_ge 9 "$(wc -l <options)" "options in --help" &&
	while read -r o; do
		grep -q -- "$o" page.txt || { echo "sampler-top.1 lacks $o"; exit 1; }
	done <options &&
	sed -n "/^\.SH KEYS/,/^\.SH/p" page.txt >keys.txt &&
	for k in c space z t b Enter q; do
		grep -q "^\.BR* $k\( \|\$\)" keys.txt || { echo "sampler-top.1 KEYS lacks $k"; exit 1; }
	done
'

test_done
