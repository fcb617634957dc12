# callstack-lib.sh - helpers for the call-stack tests, sourced after lib.sh.
# The workload examples/calltree prints the shares it measured itself;
# path_shares computes the same figures from collapsed stacks.

PY=/usr/bin/python3

# measured OUT [wall]: the workload's own "a=.. b=.. ..." line (its CPU
# time shares, or of wall-clock time).
measured() {
	sed -n "s/^${2:-share} //p" "$1"
}

# path_shares FOLDED: inclusive shares (percent) of the main thread's call
# paths, as the workload measures them: a, b, leaf via a (leaf_a), leaf via
# b (leaf_b), a's self time, rec, sort; of the main thread's weight (every
# stack without a frame of the signal thread).  Also, on
# stderr: the weight counted, the deepest recursion, the share of the
# comparator's weight with a qsort frame between sorter and cmp, the
# handler's share of the signal thread, and the share of the handler's
# weight whose stack crosses the signal frame down to signal_thread (through
# outside, or from signal_thread's own loop).
path_shares() {
	$PY - "$1" <<-'PYEOF'
	import sys
	groups = dict.fromkeys(("a", "b", "leaf_a", "leaf_b", "a_self", "rec", "sort"), 0.0)
	total = depth = cmp_all = cmp_qsort = sig = handler = handler_ok = 0.0
	for line in open(sys.argv[1], encoding="utf-8", errors="surrogateescape"):
	    stack, weight = line.rstrip("\n").rsplit(" ", 1)
	    frames, w = stack.split(";")[1:], float(weight)
	    depth = max(depth, frames.count("rec"))
	    if {"signal_thread", "outside", "handler", "handler_work"} & set(frames):
	        sig += w
	        if "handler" in frames:
	            handler += w
	            # the signal interrupted outside(), or (rarely: the tick
	            # landed on its loop, whose load of stop shares a cache line
	            # with sink) signal_thread itself
	            below = frames[:frames.index("handler")]
	            if below[-1:] == ["__restore_rt"] and (below[-3:-1] == ["signal_thread", "outside"] or
	                                                   below[-2:-1] == ["signal_thread"]):
	                handler_ok += w
	        continue
	    total += w
	    if "a" in frames:
	        groups["a"] += w
	        groups["leaf_a"] += w if "leaf" in frames[frames.index("a"):] else 0
	        groups["a_self"] += w if frames[-1] == "a" else 0
	    if "b" in frames:
	        groups["b"] += w
	        groups["leaf_b"] += w if "leaf" in frames[frames.index("b"):] else 0
	    groups["rec"] += w if "rec" in frames else 0
	    groups["sort"] += w if "sorter" in frames else 0
	    if "cmp" in frames:
	        cmp_all += w
	        between = frames[frames.index("sorter") + 1:frames.index("cmp")] if "sorter" in frames else []
	        cmp_qsort += w if any("qsort" in f for f in between) else 0
	pct = lambda x, t: 100.0 * x / t if t else 0.0
	# the share of a frame's weight on the right path; -1 when nothing
	# was weighed there (no sample in the comparator or the handler): a
	# check that it is all on the right path fails then
	ok = lambda x, t: 100.0 * x / t if t else -1.0
	print(" ".join("%s=%.2f" % (k, pct(v, total)) for k, v in groups.items()))
	print("weight=%g depth=%d cmp_qsort=%.1f handler=%.2f handler_ok=%.1f" %
	      (total, depth, ok(cmp_qsort, cmp_all), pct(handler, sig), ok(handler_ok, handler)),
	      file=sys.stderr)
	PYEOF
}

# folded_children FOLDED SYMBOL: the share (%) of the weight whose stack
# holds SYMBOL (a frame after the comm), what perf report --children gives.
folded_children() {
	awk -v sym="$2" '{
		w = $NF; total += w; n = split(substr($0, 1, length($0) - length(w) - 1), f, ";")
		for (i = 2; i <= n; i++) if (f[i] == sym) { hit += w; break }
	} END { printf "%.2f\n", total ? 100 * hit / total : 0 }' "$1"
}

# value KEY LINE: the number after KEY= in LINE.
value() {
	echo "$2" | sed -n "s/.*\<$1=\(-\{0,1\}[0-9.]*\).*/\1/p"
}

# effective_samples PROFILE COLUMN: how many equal samples the main thread's
# weights (a CSV column: cpu_delta_ns, wall_delta_ns) are worth,
# (sum w)^2 / sum w^2.  A starved machine takes fewer samples, and one
# sample after a long wait carries the whole wait's wall time (energy).
# The CPU time is in the thread-samples' rows and their clock samples'
# (kind cpu: docs/EXPORT.md).
effective_samples() {
	"$EXPORT" --format csv "$1" | $PY -c '
import csv, sys
rows = csv.DictReader(line for line in sys.stdin if not line.startswith("#"))
w = [float(r[sys.argv[1]]) for r in rows if r["kind"] in ("sample", "cpu") and r["tid"] == r["pid"]]
s2 = sum(x * x for x in w)
print("%.0f" % (sum(w) ** 2 / s2 if s2 else 0))' "$2"
}

# tolerance POINTS NEFF: POINTS holds for the DESIGN_SAMPLES effective
# samples a run gets on a machine that is merely loaded (sampling error
# about 1 point for a 35% share); a run worth fewer has a sampling error
# larger by sqrt(DESIGN_SAMPLES / NEFF), and so has its margin, up to
# twice POINTS at MIN_SAMPLES (runs worth fewer are made longer first:
# enough_samples).
DESIGN_SAMPLES=2000
MIN_SAMPLES=500
tolerance() {
	awk -v p="$1" -v n="$2" -v d=$DESIGN_SAMPLES 'BEGIN {
		t = n > 0 && n < d ? p * sqrt(d / n) : p
		printf "%.2f", t < 2 * p ? t : 2 * p }'
}

# enough_samples SECONDS CMD...: run CMD SECONDS (it reads $secs) and
# again longer, up to 8 times as long, until its profile ./neff holds at
# least MIN_SAMPLES effective samples (a starved machine samples less);
# then that many are there, or it fails.  The assertions come after, once.
enough_samples() {
	secs=$1 base=$1
	shift
	while :; do
		"$@" || return 1
		# a sanitizer build compares no shares: no need of more samples
		test_have_prereq PLAIN_BUILD || return 0
		n=$(cat neff)
		[ "${n:-0}" -ge $MIN_SAMPLES ] && return 0
		[ "$(awk -v s="$secs" -v b="$base" 'BEGIN { print (s >= 8 * b) }')" = 1 ] && break
		secs=$(awk -v s="$secs" -v n="${n:-0}" -v m=$MIN_SAMPLES 'BEGIN {
			f = n > 0 ? 1.3 * m / n : 8; if (f < 1.5) f = 1.5; printf "%.1f", s * f }')
		echo "$n effective samples: again for $secs s"
	done
	expect_ge $MIN_SAMPLES "$n" "effective samples in a ${secs} s run"
}

# Every share the workload measures.
ALL_PATHS="a b leaf_a leaf_b a_self rec sort"

# compare_paths MEASURED PROFILED POINTS [KEYS]: each share within POINTS;
# a share missing on either side fails.  The test asks for PLAIN_BUILD
# (tests/lib.sh: a sanitizer build unwinds ten times slower and its shares
# drift), so that it shows as skipped there, not as a pass.
compare_paths() {
	test_have_prereq PLAIN_BUILD ||
	{ echo "compare_paths: the test must ask for PLAIN_BUILD (a sanitizer build)"; return 1; }
	for k in ${4:-$ALL_PATHS}; do
		for v in "$(value $k "$1")" "$(value $k "$2")"; do
			case $v in
			[0-9]*) ;;
			*) echo "no share of $k in '$1' or '$2'"; return 1 ;;
			esac
		done
		expect_near "$(value $k "$1")" "$(value $k "$2")" "$3" \
			"share of $k (%), measured by the workload $(value $k "$1")" || return 1
	done
}

# frame_shares FOLDED NAME...: inclusive shares (percent) of the frames
# NAME of a one-thread program's CPU-weighted stacks, as "NAME=SHARE ...".
frame_shares() {
	$PY - "$@" <<-'PYEOF'
	import sys
	names, weights, total = sys.argv[2:], {}, 0.0
	for line in open(sys.argv[1], encoding="utf-8", errors="surrogateescape"):
	    stack, weight = line.rstrip("\n").rsplit(" ", 1)
	    frames, w = set(stack.split(";")[1:]), float(weight)
	    total += w
	    for n in names:
	        weights[n] = weights.get(n, 0.0) + (w if n in frames else 0.0)
	if not total:
	    sys.exit("frame_shares: no weight in " + sys.argv[1])
	print(" ".join("%s=%.2f" % (n, 100.0 * weights[n] / total) for n in names))
	PYEOF
}
