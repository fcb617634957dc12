# bench/lib.sh - what the bench scripts share (sourced).

median() {	# numbers on stdin
	sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print "-" }'
}

# measure COMMAND...: "wall cpu maxrss_MB" of one run (its output
# discarded; cpu: user + system of it and its children), or "failed - -".
measure() {
	/usr/bin/python3 -c 'import resource, subprocess, sys, time
t = time.monotonic()
r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL)
u = resource.getrusage(resource.RUSAGE_CHILDREN)
print("%.3f %.2f %.0f" % (time.monotonic() - t, u.ru_utime + u.ru_stime, u.ru_maxrss / 1024)
      if r.returncode == 0 else "failed - -")' "$@"
}

runtime() {	# file with the workload's output
	sed -n 's/^runtime_s=//p' "$1"
}

# Folded stacks ("frame;...;leaf weight"), the shares the real-program
# bench compares with perf's own recording.

# perf_fold PERF.DATA: perf script's stacks folded, weighed by the period
# (ns of cpu-clock), without inlined frames (as perf report --no-inline);
# a frame perf cannot name is its [dso], as sampler-export names it.
perf_fold() {
	perf script -i "$1" --no-inline -F tid,period,ip,sym,dso 2>/dev/null | awk '
	function flush() { if (n) { s = f[n]; for (i = n - 1; i >= 1; i--) s = s ";" f[i]; w[s] += p }; n = 0 }
	/^[^ \t]/ || /^ +[0-9]+ +[0-9]+ *$/ { flush(); p = $NF; next }
	/^\t/ { sub(/^[ \t]+[0-9a-f]+ /, ""); d = $NF; sub(/ *\([^()]*\)$/, "")
		if ($0 == "[unknown]") { gsub(/[()]/, "", d); sub(/.*\//, "", d); $0 = "[" d "]" }
		f[++n] = $0; next }
	/^$/ { flush() }
	END { flush(); for (s in w) printf "%s %.0f\n", s, w[s] }'
}

# fold_top FOLDED N: the N leaves of most weight, "share% name" (self).
fold_top() {
	awk '{ w = $NF; sub(/ [0-9]+$/, ""); k = split($0, f, ";"); l = f[k]
		sub(/@@?[A-Z_0-9.]+$/, "", l); self[l] += w; t += w }
	END { for (l in self) printf "%.1f %s\n", 100 * self[l] / t, l }' "$1" |
		sort -k1,1gr | head -n "$2"
}

# fold_self FOLDED NAME: NAME's self share (%), its versioned aliases too.
fold_self() {
	awk -v name="$2" '{ w = $NF; sub(/ [0-9]+$/, ""); k = split($0, f, ";"); l = f[k]
		sub(/@@?[A-Z_0-9.]+$/, "", l); if (l == name) s += w; t += w }
	END { printf "%.1f\n", t ? 100 * s / t : 0 }' "$1"
}

# fold_leaf FOLDED ERE: the share (%) of the weight whose leaf matches ERE.
fold_leaf() {
	awk -v re="$2" '{ w = $NF; sub(/ [0-9]+$/, ""); k = split($0, f, ";")
		if (f[k] ~ re) s += w; t += w }
	END { printf "%.1f\n", t ? 100 * s / t : 0 }' "$1"
}

# fold_under FOLDED ERE: the share (%) of the weight whose stack has a
# frame matching ERE (perf's Children share).
fold_under() {
	awk -v re="$2" '{ w = $NF; sub(/ [0-9]+$/, ""); k = split($0, f, ";"); hit = 0
		for (i = 1; i <= k; i++) if (f[i] ~ re) hit = 1
		if (hit) s += w; t += w }
	END { printf "%.1f\n", t ? 100 * s / t : 0 }' "$1"
}

# perf_branch REPORT ERE: the sum of the "--N%--NAME" branches of perf
# report -g caller whose NAME matches ERE (an inlined frame's share).
perf_branch() {
	awk -v re="^(${2})\$" '{ while (match($0, /--[0-9.]+%--[^|]*$/)) {
		b = substr($0, RSTART + 2); $0 = substr($0, 1, RSTART - 1)
		v = b; sub(/%.*/, "", v); n = b; sub(/^[0-9.]+%--/, "", n); sub(/ +$/, "", n)
		if (n ~ re) s += v } } END { printf "%.1f\n", s }' "$1"
}
