#!/bin/bash
# sampler top: the live view of a running program.  --stdio tables against
# the kept profile and sampler-report, energy from a fake RAPL tree, the
# terminal view through a pseudo-terminal, --pid, bad input and hang-ups.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/recorder-lib.sh"
. "$ROOT/tests/pmu/pmu-lib.sh"

PY=/usr/bin/python3
FAKE="$PY $ROOT/tests/fakes/fake-powercap.py"
REPORT="$PY $ROOT/scripts/sampler-report"

# tables FILE WHAT [ARG]: facts of the --stdio output in FILE.
cat >"$TRASH/tables.py" <<'PYEOF'
import statistics, sys
tables = []
for line in open(sys.argv[1]):
    line = line.rstrip("\n")
    if line.startswith("# sampler top:"):
        tables.append({"title": line, "rows": []})
    elif tables and line.strip() and not line.lstrip().startswith("CPU%"):
        tables[-1]["rows"].append(line.split())
what = sys.argv[2]
def title_num(t, key):      # "..., package-0 12.34 W" or "3.02 s, ..."
    w = t["title"].replace(",", " ").replace(";", " ").split()
    return float(w[w.index(key) + 1]) if key in w else float(w[3])
if what == "count":
    print(len(tables))
elif what == "wall":
    print(title_num(tables[-1], "top:"))
elif what == "first":
    print(tables[0]["rows"][0][-2])
elif what == "watts":       # median over the full intervals (not the first or last)
    mid = tables[1:-1] or tables
    print(statistics.median(title_num(t, sys.argv[3]) for t in mid))
elif what == "rows":        # rows of the last table
    print(len(tables[-1]["rows"]))
elif what == "total":       # CPU s since the start, first row of the last table
    print(tables[-1]["rows"][0][2])
elif what == "empty":       # middle tables whose interval had no sample
    print(sum(1 for t in tables[1:-1] if not t["rows"]))
elif what == "joules":      # FUNCTION's joules since the start, last table
    print(next(r[7] for r in tables[-1]["rows"] if r[-2] == sys.argv[3]))
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

test_expect_success '--stdio -p rapl: watts follow the fake power, joules the report' '
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
	within_percent 20 "$(tables e.out watts package-0)" 25 "median watts of the intervals" &&
	$REPORT --csv ekept >report.csv &&
	want=$(awk -F, "NR == 1 { for (i = 1; i <= NF; i++) if (\$i == \"package-0_J\") c = i }
		\$1 == \"f50\" { print \$c }" report.csv) &&
	within_percent "$want" "$(tables e.out joules f50)" 1 "f50 joules: sampler top vs sampler-report"
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

test_expect_success '--input --by process: one row, the CPU time of the whole profile' '
	$SAMPLER top --stdio --by process --input kept >proc.out &&
	cat proc.out &&
	expect_eq 1 "$(tables proc.out rows)" "rows" &&
	$REPORT kept >report &&
	expect_near "$(awk "\$1 == \"total\" { print \$4 }" report)" "$(tables proc.out total)" 0.002 "CPU s"
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

# term.py ARGS...: run sampler top in a pseudo-terminal of 80x24 whose
# screen a terminal emulator (pyte) keeps, as a user sees it (curses
# redraws only the characters that change, so the bytes alone do not hold
# the text); KEYS (env) is a list of "wait-text:key" steps, each waiting
# for the text on the screen; prints what it showed and how the program
# ended.
cat >"$TRASH/term.py" <<'PYEOF'
import os, pty, select, signal, struct, sys, time, fcntl, termios
import pyte
pid, fd = pty.fork()
if pid == 0:
    os.environ["TERM"] = "xterm"
    os.environ["LINES"], os.environ["COLUMNS"] = "24", "80"
    os.execv(sys.argv[1], sys.argv[1:])
fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
screen = pyte.Screen(80, 24)
stream = pyte.ByteStream(screen)
seen = b""
def shown():
    return "\n".join(screen.display)
def read_until(text, limit):
    global seen
    end = time.monotonic() + limit
    while text not in shown() and time.monotonic() < end:
        r, _, _ = select.select([fd], [], [], 0.1)
        if r:
            try:
                data = os.read(fd, 65536)
            except OSError:
                return False
            seen += data
            stream.feed(data)
    return text in shown()
for step in os.environ.get("KEYS", "").split(";"):
    if not step:
        continue
    text, key = step.rsplit(":", 1)
    if not read_until(text, 60):
        print("never showed: " + text)
        print("the screen:\n" + shown())
        os.kill(pid, signal.SIGKILL)
        sys.exit(1)
    print("showed: " + text)
    seen = b""
    if key == "HUP":
        os.close(fd)
        fd = -1
        break
    os.write(fd, key.replace("ENTER", "\r").encode())
t0 = time.monotonic()
while True:
    done, status = os.waitpid(pid, os.WNOHANG)
    if done:
        break
    if fd >= 0:
        r, _, _ = select.select([fd], [], [], 0.05)
        if r:
            try:
                os.read(fd, 65536)
            except OSError:
                pass
    else:
        time.sleep(0.05)
    if time.monotonic() - t0 > 30:
        print("still running 30 s after the last key")
        os.kill(pid, signal.SIGKILL)
        sys.exit(1)
print("status %d" % os.waitstatus_to_exitcode(status))
PYEOF

test_expect_success PYTE 'terminal view: the hot function shows, e sorts by energy, Enter expands, q quits' '
	$FAKE make fake2 >/dev/null &&
	KEYS="f50:e;[sort energy:c;[sort cpu:ENTER;f50 <- :q" SAMPLER_SYSFS_ROOT=$TRASH/fake2 \
		$PY "$TRASH/term.py" $SAMPLER top -g -r 0.3 -p rapl:package-0 -o tkept -- \
		"$EXAMPLES/attrib" 60 >pty.out &&
	cat pty.out &&
	expect_grep "^showed: f50" pty.out &&
	expect_grep "^showed: \[sort energy" pty.out &&
	expect_grep "^showed: \[sort cpu" pty.out &&
	expect_grep "^showed: f50 <- " pty.out &&
	expect_grep "^status 130" pty.out &&
	$REPORT tkept >report &&
	expect_eq f50 "$(awk "NR == 4 { print \$1 }" report)" "the kept profile'"'"'s hottest function"
'

test_expect_success PYTE 'terminal view: a hang-up ends the run, the kept profile complete' '
	KEYS="f50:HUP" $PY "$TRASH/term.py" $SAMPLER top -r 0.3 -o hkept -- \
		"$EXAMPLES/attrib" 60 >hup.out &&
	cat hup.out &&
	expect_grep "^status" hup.out &&
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

test_done
