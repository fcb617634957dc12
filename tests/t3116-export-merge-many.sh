#!/bin/bash
# Merging many ranks into one perf.data (issue 45): a k-way merge over a
# heap, every input open at once (the soft limit of open files raised to
# the hard one), each process named with its rank and given its own pid;
# beyond 512 profiles the ids are numbered in order.  perf report, not our
# reader, says what each rank holds.
. "$(dirname "$0")/lib.sh"

PY=/usr/bin/python3
FAKES=$ROOT/tests/fakes

# copies N DIR: N rank copies of one.prof (ranks 0 .. N-1) in DIR
copies() {
	mkdir -p "$2" && $PY "$FAKES/rank-copies.py" mark.prof "$1" "$2"
}

# per_rank PERFDATA: "COUNT COMM" per process name, its cpu-time samples
# by perf script (wall-time is the interval since the merge's previous
# sample, 0 for ranks sampled at one time: not counted)
per_rank() {
	perf script -i "$1" -F comm,event 2>/dev/null |
		sed -n "s/^ *\(.*[^ ]\) *cpu-time: *\$/\1/p" | sort | uniq -c | sed "s/^ *//"
}

test_expect_success PERF 'setup: one profile, rebuilt with a rank to copy' '
	"$SAMPLER" -f 200 -o one.prof -- "$EXAMPLES/busy" 0.1 2>/dev/null &&
	"$BUILD/sampler-profile" dump one.prof >one.txt &&
	sed "1,/^host/s/ rank=[^ ]*/ rank=9876543/" one.txt |
		"$BUILD/sampler-profile" build mark.prof &&
	"$EXPORT" -o one.data one.prof &&
	per_rank one.data | cut -d" " -f1 >one.count &&
	expect_ge 5 "$(cat one.count)" "samples of the single export"
'

# 256 was the most one merge took: "300 profiles are more than the 256 one
# merge takes"
test_expect_success PERF '300 ranks: perf report shows each with its samples and its pid' '
	copies 300 r300 &&
	"$EXPORT" -o m300.data r300/app.*.prof 2>err &&
	expect_empty "$(cat err)" "stderr" &&
	per_rank m300.data >ranks &&
	expect_eq 300 "$(wc -l <ranks)" "process names" &&
	expect_eq 300 "$(grep -c "^$(cat one.count) busy\[rank [0-9]*\]\$" ranks)" \
		"ranks with the single export'"'"'s sample count" &&
	for r in 0 150 299; do
		expect_grep "busy\[rank $r\]\$" ranks || exit 1
	done &&
	perf script -i m300.data -F comm,pid 2>/dev/null | sort -u >pids &&
	expect_eq 300 "$(wc -l <pids)" "comm and pid pairs" &&
	expect_eq 300 "$(awk "{ print \$NF }" pids | sort -u | wc -l)" "distinct pids" &&
	perf report -i m300.data --stdio --sort comm 2>/dev/null >report &&
	expect_eq 300 "$(grep -o "busy\[rank [0-9]*\]" report | sort -u | wc -l)" "ranks in perf report"
'

test_expect_success PERF '600 ranks (ids numbered in order): each its samples and pid' '
	copies 600 r600 &&
	"$EXPORT" -o m600.data r600/app.*.prof 2>err &&
	expect_empty "$(cat err)" "stderr" &&
	per_rank m600.data >ranks &&
	expect_eq 600 "$(grep -c "^$(cat one.count) busy\[rank [0-9]*\]\$" ranks)" \
		"ranks with the single export'"'"'s sample count" &&
	perf script -i m600.data -F comm,pid 2>/dev/null | sort -u >pids &&
	expect_eq 600 "$(awk "{ print \$NF }" pids | sort -u | wc -l)" "distinct pids" &&
	expect_eq 0 "$(awk "\$NF < 1 || \$NF > 2147483647" pids | wc -l)" "pids out of 1 .. 2^31-1"
'

test_expect_success PERF 'the soft limit of open files is raised; the hard one is named' '
	(ulimit -Sn 64 && exec "$EXPORT" -o soft.data r300/app.*.prof) 2>err &&
	expect_empty "$(cat err)" "stderr" &&
	expect_eq 300 "$(per_rank soft.data | wc -l)" "ranks under a soft limit of 64" &&
	run_status sh -c "ulimit -n 64 && exec \"\$0\" -o hard.data r300/app.*.prof" "$EXPORT" 2>err &&
	expect_eq 1 "$rc" "status" &&
	expect_eq "sampler-export: error: cannot merge 300 profiles: at most 64 files may be open (raise the limit: ulimit -n 332)" \
		"$(cat err)" "error" &&
	expect_eq 0 "$(ls hard.data 2>/dev/null | wc -l)" "output written"
'

test_done
