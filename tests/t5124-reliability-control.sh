#!/bin/bash
# The --control FIFO under adversarial writers (issue 19 #10,
# docs/RELIABILITY.md): waiting for enable costs no CPU, a flood of garbage
# gives a few warning lines and a count (not a line each), a CR before the
# newline is accepted, and what a message quotes is escaped and cut.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/recorder-lib.sh"

TIMEFORMAT="%U %S %R"

# cpu_share FILE: (user + system) / real of a bash `time` line.
cpu_share() {
	awk '{ printf "%.3f", ($1 + $2) / ($3 > 0 ? $3 : 1) }' "$1"
}

# Before the fix the FIFO was one O_RDWR descriptor with O_ASYNC: every read
# that found it empty signalled SIGIO to the sampler itself, and the wait
# for enable took 95% of a CPU.  A ratio, not a time: it holds under load.
test_expect_success '--delay -1: waiting 2 s for enable costs under 10% of a CPU' '
	mkfifo ctl &&
	{ time "$SAMPLER" --delay -1 --control ctl -o w.prof -- sleep 2 2>err; } 2>time &&
	cat time &&
	expect_le 0.1 "$(cpu_share time)" "CPU time / wall time of the sampler (user sys real: $(cat time))" &&
	dump w.prof && expect_eq 0 "$(records w.prof.txt sample)" "samples (never enabled)"
'

test_expect_success '--delay -1 with a writer holding the FIFO open: under 10% of a CPU' '
	mkfifo ctl2 &&
	{ sleep 60 >ctl2 & } && holder=$! &&
	test_when_finished "kill $holder 2>/dev/null || :" &&
	{ time "$SAMPLER" --delay -1 --control ctl2 -- sleep 2 2>err; } 2>time &&
	cat time &&
	expect_le 0.1 "$(cpu_share time)" "CPU time / wall time of the sampler (user sys real: $(cat time))"
'

# 200,000 lines of garbage: before, one warning each (1,587,215 lines,
# 141 MB, for 3 s of `yes garbage`).  The target waits until the flood is
# written; what the sampler had not read when it ended is at most what the
# FIFO holds (64 KB: 8,192 lines).
test_expect_success 'a flood of garbage: three warnings and one count, not a line each; sampling goes on' '
	mkfifo ctl3 &&
	{ "$SAMPLER" -f 200 --control ctl3 -o g.prof -- sh -c "
		while [ ! -e flooded ]; do \"$EXAMPLES/busy\" 0.05; done" 2>err & } &&
	pid=$! &&
	test_when_finished "touch flooded; wait $pid 2>/dev/null || :" &&
	yes garbage | head -n 200000 >ctl3 &&
	touch flooded &&
	wait $pid &&
	but_rate_warning err >ctl.err &&
	cat ctl.err &&
	expect_eq 4 "$(wc -l <ctl.err)" "stderr lines (but the rate warning)" &&
	expect_eq 3 "$(grep -c "^sampler: warning: --control: unknown command .garbage. ignored (write enable or disable)" ctl.err)" "warnings quoting a command" &&
	expect_grep "further ones are counted, not shown" ctl.err &&
	n=$(sed -n "s/^sampler: warning: --control: \([0-9]*\) unknown commands ignored in all.*/\1/p" ctl.err) &&
	expect_le 200000 "$n" "unknown commands counted" &&
	expect_ge $((200000 - 65536 / 8)) "$n" "unknown commands counted (all but what the FIFO held at the end)" &&
	dump g.prof && expect_ge 1 "$(records g.prof.txt sample)" "samples"
'

test_expect_success 'enable with a CR before the newline (a line from Windows) enables' '
	mkfifo ctl4 &&
	{ printf "enable\r\n" >ctl4 & } &&
	"$SAMPLER" -f 200 --delay -1 --control ctl4 -o cr.prof -- "$EXAMPLES/busy" 0.3 2>err &&
	expect_no_grep "unknown command" err &&
	dump cr.prof &&
	expect_eq "0 1" "$(field_values cr.prof.txt window enabled | tr "\n" " " | sed "s/ \$//")" "window states" &&
	expect_ge 1 "$(records cr.prof.txt sample)" "samples"
'

test_expect_success 'an unknown command is quoted with its bytes escaped and cut at 40' '
	mkfifo ctl5 &&
	{ { printf "en\001able\377\r\n"; printf "%05000d\n" 0; } >ctl5 & } &&
	"$SAMPLER" --control ctl5 -- "$EXAMPLES/busy" 0.3 2>err &&
	but_rate_warning err >ctl.err &&
	cat ctl.err &&
	expect_eq 2 "$(wc -l <ctl.err)" "stderr lines" &&
	expect_eq "sampler: warning: --control: unknown command '"'"'en\\x01able\\xff'"'"' ignored (write enable or disable)" \
		"$(head -1 ctl.err)" "first warning" &&
	expect_grep "^sampler: warning: --control: unknown command .0\{40\}\.\.\.. ignored" ctl.err
'

test_done
