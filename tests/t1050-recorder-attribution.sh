#!/bin/bash
# Attribution: a workload measures the CPU time share of its three
# functions itself; the profile must attribute the same shares to them
# (within 3 percentage points), resolving PCs through the recorded map of
# the executable (a PIE: load address and file offset matter).  Runs give
# >= 1500 samples, so that sampling error alone (about 1.2 points for a 30%
# share) stays well inside the 3 points.
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

# compare MEASURED PROFILED: each share within 3 points.
compare() {
	for f in f20 f30 f50; do
		m=$(echo "$1" | sed -n "s/.*$f=\([0-9.]*\).*/\1/p")
		p=$(echo "$2" | sed -n "s/.*$f=\([0-9.]*\).*/\1/p")
		expect_near "$m" "$p" 3 "$f share (%), measured by the workload $m" || return 1
	done
}

# attribution HZ SECONDS: record attrib and compare its own shares with the
# profile's; at least 500 samples must land in the three functions.
attribution() {
	"$SAMPLER" -f "$1" -o attr -- "$EXAMPLES/attrib" "$2" >out &&
	measured=$(sed -n "s/^share //p" out) &&
	dump attr &&
	profiled=$(shares attr.txt "$EXAMPLES/attrib" 2>count) &&
	echo "measured: $measured; profiled: $profiled; $(cat count)" &&
	expect_ge 500 "$(sed -n "s/samples=//p" count)" "samples in the three functions" &&
	compare "$measured" "$profiled"
}

test_expect_success 'attribution at 2 kHz: each function within 3 points of its own measure' '
	attribution 2000 1.5
'

test_expect_success 'attribution also holds at a frequency that does not divide the work' '
	attribution 777.7 2
'

test_done
