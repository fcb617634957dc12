#!/bin/bash
# Call stacks in the exports: perf.data with a user call chain on every
# event (perf report -g, --children, --call-graph=caller, perf script,
# stackcollapse, file and pipe mode, no warning; perf report --children
# needs file mode, as with perf record's own pipes), agreeing with perf's own
# dwarf recording of the same workload; folded stacks weighted by samples,
# CPU, wall time, energy or a counter, with the profile's totals.  (Shares
# are compared with the truth and with perf on the plain build only: see
# callstack-lib.sh.)
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/recorder-lib.sh"
. "$ROOT/tests/callstack-lib.sh"
. "$ROOT/tests/export-lib.sh"

PATHS="a b leaf rec50 sorter"

# children REPORT EVENT SYMBOL: the Children share (%) of SYMBOL in the
# section of EVENT (a prefix of the event name) of perf report --children.
children() {
	awk -v ev="$2" -v sym="$3" '
		/^# Samples:/ { split($0, q, "\047"); cur = index(q[2], ev) == 1 }
		cur && $3 == "[.]" && $4 == sym { sub(/%/, "", $1); print $1; exit }
	' "$1"
}

if ! command -v perf >/dev/null 2>&1; then
	test_skip 'call stacks in perf.data' 'perf is not installed (make deps installs linux-perf)'
	test_done
	exit
fi

test_expect_success 'setup: calltree recorded with -g (dwarf), exported to perf.data' '
	"$SAMPLER" -f 2000 -g -o p.prof -- "$EXAMPLES/calltree" 3 >out &&
	"$EXPORT" -o perf.data p.prof 2>export.err &&
	expect_empty "$(cat export.err)" "export stderr" &&
	"$EXPORT" --format folded --weight cpu p.prof >cpu.folded
'

test_expect_success 'perf report --children: the shares of the call paths, no warning' '
	perf report -i perf.data --stdio --children --sort symbol -g none >children.txt 2>err &&
	expect_empty "$(cat err)" "perf report stderr" &&
	for f in $PATHS; do
		expect_near "$(folded_children cpu.folded $f)" "$(children children.txt cpu-time $f)" 0.5 \
			"cpu-time children share of $f (%), as the folded stacks give it" || exit 1
	done
'

test_expect_success 'perf report -g (callee and caller graphs) shows the paths, no warning' '
	perf report -i perf.data --stdio --no-children --sort symbol -g graph,0.5,callee >callee.txt 2>err &&
	expect_empty "$(cat err)" "stderr of -g callee" &&
	expect_grep "%--a$" callee.txt &&
	expect_grep "%--b$" callee.txt &&
	perf report -i perf.data --stdio --children --sort symbol --call-graph=caller >caller.txt 2>err &&
	expect_empty "$(cat err)" "stderr of --call-graph=caller" &&
	expect_grep "%--leaf$" caller.txt &&
	grep -A3 -- "--sorter$" caller.txt >sorter.txt &&
	expect_grep "qsort" sorter.txt
'

test_expect_success 'perf script prints each sample with its stack, no warning' '
	perf script -i perf.data -F comm,tid,event,ip,sym >script.txt 2>err &&
	expect_empty "$(cat err)" "perf script stderr" &&
	awk "/ leaf\$/ { getline c; n++; if (c ~ / a\$/) via_a++; if (c ~ / b\$/) via_b++ }
	     END { print n, via_a + via_b }" script.txt >leaf.txt &&
	expect_ge 100 "$(cut -d" " -f1 leaf.txt)" "samples in leaf" &&
	expect_eq "$(cut -d" " -f1 leaf.txt)" "$(cut -d" " -f2 leaf.txt)" "leaf samples called from a or b"
'

test_expect_success 'perf script report stackcollapse, file and pipe mode, no warning' '
	perf script -i perf.data report stackcollapse >collapsed.txt 2>err &&
	expect_empty "$(cat err)" "stackcollapse stderr" &&
	expect_grep "^calltree;_start;.*;main;timed;a;leaf [0-9]*$" collapsed.txt &&
	expect_grep "^calltree;clone3;start_thread;signal_thread;outside;__restore_rt;handler;handler_work [0-9]*$" collapsed.txt &&
	"$EXPORT" -o - p.prof | perf script -i - report stackcollapse >piped.txt 2>err &&
	expect_empty "$(cat err)" "pipe-mode stackcollapse stderr" &&
	diff collapsed.txt piped.txt &&
	"$EXPORT" -o - p.prof | perf report -i - --stdio --no-children --sort symbol -g graph,0.5,callee >piped-report.txt 2>err &&
	expect_empty "$(cat err)" "pipe-mode perf report stderr" &&
	diff -I "^#" callee.txt piped-report.txt
'

# One thread (calltree ... 1): shares of the whole process are then those
# of its call paths, whatever CPU share another thread gets in either run.
test_expect_success PLAIN_BUILD 'perf record --call-graph dwarf of the same workload: --children shares within 5 points' '
	"$SAMPLER" -f 2000 -g -o one.prof -- "$EXAMPLES/calltree" 3 1 >/dev/null &&
	"$EXPORT" -o one.data one.prof &&
	perf report -i one.data --stdio --children --sort symbol -g none >one.txt 2>/dev/null &&
	run_status perf record -q -F 2000 --call-graph dwarf -o own.data -- "$EXAMPLES/calltree" 3 1 >own.out 2>own.err &&
	if [ $rc -ne 0 ]; then cat own.err; echo "perf record failed"; exit 1; fi &&
	perf report -i own.data --stdio --children --sort symbol -g none >own.txt 2>/dev/null &&
	for f in $PATHS; do
		echo "$f: perf $(children own.txt "" $f), sampler $(children one.txt cpu-time $f)" &&
		expect_near "$(children own.txt "" $f)" "$(children one.txt cpu-time $f)" 5 \
			"children share of $f (%) in perf'"'"'s own recording" || exit 1
	done
'

test_expect_success 'folded: totals are the profile'"'"'s (samples, CPU time with exit tails, wall)' '
	dump p.prof &&
	"$EXPORT" --format folded --weight samples p.prof >samples.folded &&
	"$EXPORT" --format folded --weight wall p.prof >wall.folded &&
	sum() { awk "{ s += \$NF } END { printf \"%.0f\", s }" "$1"; } &&
	expect_eq "$(stat_of p.prof.txt thread_samples)" "$(sum samples.folded)" "thread-samples" &&
	cpu=$(awk "/^(ts|exit) / { for (i = 2; i <= NF; i++) if (\$i ~ /^dcpu=/) s += substr(\$i, 6) } END { printf \"%.0f\", s }" p.prof.txt) &&
	expect_near "$cpu" "$(sum cpu.folded)" "$(grep -c . cpu.folded)" "CPU ns (rounded per line)" &&
	wall=$(awk "/^sample / { n = \$3; sub(/nthreads=/, \"\", n); t = \$2; sub(/time=/, \"\", t);
		if (prev) s += n * (t - prev); else s += n * (t - start); prev = t }
		/^host / { for (i = 2; i <= NF; i++) if (\$i ~ /^start_ns=/) start = substr(\$i, 10) }
		END { printf \"%.0f\", s }" p.prof.txt) &&
	expect_near "$wall" "$(sum wall.folded)" "$(grep -c . wall.folded)" "wall ns"
'

test_expect_success 'CSV: a trailing stack column with stacks only, its last frame the symbol (or inlined there)' '
	"$EXPORT" --format csv --symbols p.prof >p.csv &&
	expect_grep "^time_ns,.*,dso,symbol,stack$" p.csv &&
	grep -v "^#" p.csv | tail -n +2 >rows &&
	expect_eq "$(stat_of p.prof.txt thread_samples)" "$(grep -c "^[0-9]*,[0-9]*,[0-9]*,sample," rows)" "sample rows" &&
	awk -F, "{ n = split(\$NF, f, \";\"); while (n > 1 && f[n] ~ /%20\\(inlined\\)\$/) n--
		if (f[n] == \$(NF - 1)) same++ } END { print same + 0 }" rows >same &&
	expect_ge "$(( $(wc -l <rows) * 95 / 100 ))" "$(cat same)" \
		"rows whose stack ends in their symbol (then the functions inlined there)" &&
	expect_grep ",leaf,_start;__libc_start_main[^;]*;__libc_start_call_main;main;timed;b;leaf\(;[^;]*%20(inlined)\)*$" rows &&
	"$EXPORT" --format csv p.prof | grep -v "^#" | sed -n 2p >hex &&
	expect_grep ",\(\[truncated:%20[a-z-]*\];\)\{0,1\}0x[0-9a-f]*\(;0x[0-9a-f]*\)*$" hex &&
	"$SAMPLER" -o plain.prof -- "$EXAMPLES/calltree" 0.2 >/dev/null &&
	"$EXPORT" --format csv --symbols plain.prof | grep "^time_ns" >plain.head &&
	expect_no_grep "stack" plain.head
'

test_expect_success 'folded: bad weights are refused with one error line' '
	for w in bogus energy energy:dram; do
		run_status "$EXPORT" --format folded --weight $w p.prof >/dev/null 2>err &&
		expect_eq 1 "$rc" "exit status of --weight $w" &&
		expect_eq 1 "$(wc -l <err)" "error lines" &&
		expect_grep "^sampler-export: error: .*--weight" err || exit 1
	done &&
	run_status "$EXPORT" --weight cpu p.prof 2>err &&
	expect_grep "only" err
'

# The fake power PMU counts CPU 0's clock: exactly 1 J per second, so every
# interval's energy is exact (the fake powercap tree is written by a Python
# process in steps, which under load come in bursts).  With one thread the
# energy of a path is the power times the wall-clock time spent in it,
# which the workload measures too (equal to its CPU time on an idle
# machine; a loaded one preempts the thread while its time goes on).
if [ "$(id -u)" = 0 ]; then
test_expect_success 'energy per call path (fake RAPL PMU): 1 W over the readings, perf report shares it as the folded stacks' '
	"$ROOT/tests/fakes/fake-power-pmu.sh" "$TRASH/pmu" 0 &&
	SAMPLER_SYSFS_ROOT=$TRASH/pmu "$SAMPLER" -f 2000 -g -p rapl-perf -o e.prof -- "$EXAMPLES/calltree" 3 1 >e.out &&
	fake_power_holds e.prof 1 &&
	"$EXPORT" --format folded --weight energy e.prof >energy.folded &&
	"$EXPORT" --format folded --weight energy:package-0 e.prof >energy2.folded &&
	cmp energy.folded energy2.folded &&
	path_shares energy.folded >energy.paths &&
	neff=$(effective_samples e.prof wall_delta_ns) &&
	echo "$neff" >energy.neff &&
	echo "measured: cpu $(measured e.out), wall $(measured e.out wall); energy: $(cat energy.paths); effective samples: $neff" &&
	"$EXPORT" -o e.data e.prof &&
	perf report -i e.data --stdio --children --sort symbol -g none >e.txt 2>err &&
	expect_empty "$(cat err)" "perf report stderr" &&
	expect_near "$(folded_children energy.folded leaf)" "$(children e.txt energy-package-0 leaf)" 0.5 \
		"energy children share of leaf in perf report (%)"
'

test_expect_success PLAIN_BUILD 'energy per call path (fake RAPL PMU): leaf via a and via b as the time spent there' '
	compare_paths "$(measured e.out wall)" "$(cat energy.paths)" "$(tolerance 3 "$(cat energy.neff)")" "leaf_a leaf_b a b"
'
else
	test_skip 'energy per call path' 'the fake RAPL PMU needs root (system-wide perf events)'
fi

# A counter event gets its stacks as cpu-time and wall-time do; each
# event's samples are printed with their stacks.
test_expect_success 'every event carries the call chain: cpu-time, wall-time and a counter (perf plug-in)' '
	"$SAMPLER" -f 1000 -g -p perf:perf::TASK-CLOCK -o k.prof -- "$EXAMPLES/calltree" 2 >/dev/null &&
	"$EXPORT" -o k.data k.prof 2>err &&
	expect_empty "$(cat err)" "export stderr" &&
	perf script -i k.data -F event,ip,sym >k.script 2>err &&
	expect_empty "$(cat err)" "perf script stderr" &&
	awk "/: *\$/ { ev = \$1; n[ev]++; getline f; getline c
			if (f ~ / leaf\$/) { leaf[ev]++; if (c ~ / (a|b)\$/) ok[ev]++ } }
	     END { for (e in n) print e, n[e], leaf[e] + 0, ok[e] + 0 }" k.script | sort >k.events &&
	cat k.events &&
	expect_eq "cpu-time: perf::TASK-CLOCK: wall-time:" "$(cut -d" " -f1 k.events | tr "\n" " " | sed "s/ \$//")" "events" &&
	while read ev n leaf ok; do
		expect_ge 100 "$leaf" "$ev samples in leaf" &&
		expect_eq "$leaf" "$ok" "$ev samples in leaf called from a or b" || exit 1
	done <k.events &&
	perf report -i k.data --stdio --children --sort symbol -g none >k.txt 2>err &&
	expect_empty "$(cat err)" "perf report stderr" &&
	"$EXPORT" --format folded --weight perf::TASK-CLOCK k.prof >k.folded &&
	expect_near "$(folded_children k.folded leaf)" "$(children k.txt perf::TASK-CLOCK leaf)" 0.5 \
		"task-clock children share of leaf in perf report (%)"
'

test_expect_success 'truncated, stripped and JIT stacks export without a warning' '
	"$SAMPLER" --call-graph dwarf,256 -o t.prof -- "$EXAMPLES/calltree" 0.3 >/dev/null &&
	"$SAMPLER" -g -o s.prof -- "$EXAMPLES/calltree-stripped" 0.3 >/dev/null &&
	"$SAMPLER" -g -o j.prof -- "$EXAMPLES/jit" 0.3 &&
	for p in t s j; do
		"$EXPORT" -o $p.data $p.prof 2>err &&
		expect_empty "$(cat err)" "export stderr of $p" &&
		perf report -i $p.data --stdio --children -g caller >/dev/null 2>err &&
		expect_empty "$(cat err)" "perf report stderr of $p" &&
		"$EXPORT" --format folded $p.prof >$p.folded 2>err &&
		expect_empty "$(cat err)" "folded stderr of $p" || exit 1
	done &&
	expect_grep "^calltree-stripp;\[truncated: no-cfi\];\[calltree-stripped\] [0-9]" s.folded &&
	expect_grep "^jit;_start;.*;main;jit_caller;\[unknown\] [0-9]" j.folded
'

test_done
