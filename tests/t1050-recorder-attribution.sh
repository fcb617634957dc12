#!/bin/bash
# Attribution: a workload measures the CPU time share of its three
# functions itself; the profile must attribute the same shares to them
# (within 3 percentage points), resolving PCs through the recorded map of
# the executable (a PIE: load address and file offset matter).
#
# The samples fall on the functions like random draws (24 runs of 800-2500
# samples: errors up to 2.3 points, as a binomial with those counts gives),
# so the tolerance is 3 points or 3.5 standard errors of a share of that
# many samples, whichever is larger (4.5 points for a 50% share of 1000).
# At least 1000 samples must land in the three functions: on a loaded
# machine (or the sanitizer build) the sampler takes fewer per second, and
# the run is repeated, as long as the rate it got says it takes (at most
# 60 s), until it has them.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/recorder-lib.sh"

PY=/usr/bin/python3

# shares PROFILE.txt BINARY: "f20=.. f30=.. f50=.." from the samples.
shares() {
	nm -S "$2" >syms &&
	readelf -lW "$2" >segments &&
	$PY - "$1" "$2" syms segments <<-'PYEOF'
	import sys
	text, binary, syms, segs = sys.argv[1:5]
	funcs = {}
	for line in open(syms):
	    f = line.split()
	    if len(f) == 4 and f[3] in ("f20", "f30", "f50"):
	        funcs[f[3]] = (int(f[0], 16), int(f[0], 16) + int(f[1], 16))
	# the executable PT_LOAD segment: vaddr = file offset - p_offset + p_vaddr
	for line in open(segs):
	    f = line.split()
	    if f and f[0] == "LOAD" and "E" in f[6:-1]:
	        p_offset, p_vaddr = int(f[1], 16), int(f[2], 16)
	maps, counts = {}, dict.fromkeys(funcs, 0)
	for line in open(text):
	    f = line.split()
	    kv = dict(x.split("=", 1) for x in f[1:])
	    if f[0] == "map" and kv["prot"] == "r-x" and kv["path"] == binary:
	        maps[kv["pid"]] = (int(kv["start"], 16), int(kv["len"], 16), int(kv["pgoff"], 16))
	    elif f[0] == "ts" and kv["pid"] in maps:
	        start, length, pgoff = maps[kv["pid"]]
	        pc = int(kv["pc"], 16)
	        if not start <= pc < start + length:
	            continue
	        vaddr = pc - start + pgoff - p_offset + p_vaddr
	        for name, (lo, hi) in funcs.items():
	            if lo <= vaddr < hi:
	                counts[name] += 1
	total = sum(counts.values())
	print(" ".join("%s=%.2f" % (n, 100.0 * counts[n] / max(total, 1)) for n in sorted(counts)))
	print("samples=%d" % total, file=sys.stderr)
	PYEOF
}

# compare MEASURED PROFILED SAMPLES: each share within its tolerance.
compare() {
	for f in f20 f30 f50; do
		m=$(echo "$1" | sed -n "s/.*$f=\([0-9.]*\).*/\1/p")
		p=$(echo "$2" | sed -n "s/.*$f=\([0-9.]*\).*/\1/p")
		tol=$(awk -v m="$m" -v n="$3" "BEGIN { q = m / 100; t = 3.5 * 100 * sqrt(q * (1 - q) / n)
			printf \"%.2f\", (t > 3 ? t : 3) }")
		expect_near "$m" "$p" "$tol" "$f share (%) of $3 samples, measured by the workload $m" || return 1
	done
}

# attribution HZ SECONDS: record attrib and compare its own shares with the
# profile's, once at least 1000 samples landed in the three functions.
attribution() {
	local seconds=$2 n=0
	for run in 1 2 3; do
		"$SAMPLER" -f "$1" -o attr -- "$EXAMPLES/attrib" "$seconds" >out &&
		measured=$(sed -n "s/^share //p" out) &&
		dump attr &&
		profiled=$(shares attr.txt "$EXAMPLES/attrib" 2>count) || return 1
		n=$(sed -n "s/samples=//p" count)
		echo "$seconds s: measured: $measured; profiled: $profiled; samples=$n"
		[ "$n" -ge 1000 ] && break
		seconds=$(awk -v s="$seconds" -v n="$n" "BEGIN { t = s * 1300 / (n > 20 ? n : 20); print (t > 60 ? 60 : t) }")
	done
	expect_ge 1000 "$n" "samples in the three functions" &&
	compare "$measured" "$profiled" "$n"
}

test_expect_success 'attribution at 2 kHz: each function within 3 points (or 3.5 standard errors) of its own measure' '
	attribution 2000 1.5
'

test_expect_success 'attribution also holds at a frequency that does not divide the work' '
	attribution 777.7 2
'

test_done
