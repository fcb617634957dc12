#!/bin/sh
# t4700-scripts-browser.sh - our views in a real browser (headless Chromium
# driven by selenium, tests/scripts/browser.py): the SVG flame graph of
# sampler-plot --kind flame fits the window and zooms on a click, its
# search gives the matched share; speedscope's own page (its npm package,
# which make deps installs into build/npm) opens our speedscope export
# and shows our frames with our weights.  SAMPLER_SCREENSHOT=FILE keeps
# the flame graph's screenshot (docs/flame-screenshot.png is one).  The
# differential flame graph of sampler-plot --kind diff: examples/phases
# with beta's phase 10 ms, then 25 ms, of a three-phase cycle; beta red,
# alpha and gamma blue, each as wide as its share in the new profile's
# folded export, zoomed on a click; SAMPLER_DIFF_SCREENSHOT=FILE keeps its
# screenshot (docs/images/diff-flame.png is one).
. "$(dirname "$0")/lib.sh"

PY=/usr/bin/python3
BROWSER="$PY $ROOT/tests/scripts/browser.py"
SPEEDSCOPE_INDEX=${SPEEDSCOPE_DIR:-$ROOT/build/npm}/node_modules/speedscope/dist/release/index.html

test_lazy_prereq BROWSER '
	$PY -c "import selenium" 2>/dev/null ||
	{ echo "python3-selenium is not installed (make deps installs it)"; exit 1; }
	test -x /usr/bin/chromium && test -x /usr/bin/chromedriver ||
	{ echo "chromium or chromium-driver is not installed (make deps installs them)"; exit 1; }
	mkdir -p "$TRASH/probe" && $BROWSER probe "$TRASH/probe"
'
test_lazy_prereq SPEEDSCOPE '
	test -f "$SPEEDSCOPE_INDEX" ||
	{ echo "speedscope is not installed in build/npm (make deps installs it with npm)"; exit 1; }
'

# value KEY FILE: the value of KEY=VALUE in the helper's output
value() {
	sed -n "s/^$1=//p" "$2" | head -n 1
}

test_expect_success NUMPY,BROWSER 'a graph 150 frames deep fits the window: its root shows, its width follows' '
	deep=$(awk "BEGIN { for (i = 0; i < 150; i++) printf \"%s0x%x\", i ? \",\" : \"\", 0x555555555200 + i }") &&
	sed "s/^\(ts tid=500 pc=0x555555555140 cpu=1000000 counters=10 stack=\)[^ ]*/\1$deep/" \
		"$ROOT/tests/fixtures/stacks.txt" >deep.txt &&
	"$BUILD/sampler-profile" build deep.prof <deep.txt &&
	$PY "$ROOT/scripts/sampler-plot" --kind flame --weight samples -o deep.svg deep.prof &&
	expect_grep "width=\"1200\"" deep.svg &&
	mkdir b1 && $BROWSER flame b1 deep.svg "[app]" app deep.png 1000x900 >deep.out &&
	cat deep.out &&
	expect_ge 2000 "$(value svg_height deep.out | cut -d. -f1)" "the graph is higher than the window" &&
	expect_ge 0 "$(value root_top deep.out | cut -d. -f1)" "root frame top (px)" &&
	expect_le 900 "$(value root_bottom deep.out | cut -d. -f1)" "root frame bottom (px)" &&
	expect_ge 970 "$(value svg_width deep.out | cut -d. -f1)" "graph width in a 1000-px window" &&
	expect_le 1000 "$(value svg_width deep.out | cut -d. -f1)" "graph width in a 1000-px window"
'

test_expect_success NUMPY,BROWSER 'setup: demo-workload recorded with -g' '
	"$SAMPLER" -g -f 200 -o cs.prof -- "$EXAMPLES/demo-workload" >/dev/null 2>&1 &&
	$PY "$ROOT/scripts/sampler-plot" --kind flame -o cs.svg cs.prof &&
	"$EXPORT" --format folded --weight cpu cs.prof >cs.folded &&
	expect_grep ";start_thread;run_sort;sort_array" cs.folded
'

test_expect_success NUMPY,BROWSER 'a click on a frame zooms into it; search gives the matched share; reset' '
	mkdir b2 && $BROWSER flame b2 cs.svg start_thread sort_array flame.png >flame.out &&
	cat flame.out &&
	gw=$(value graph_width flame.out) &&
	expect_near "$gw" "$(value clicked_width flame.out)" 1 "clicked frame width (px): the whole graph" &&
	expect_near 10 "$(value clicked_left flame.out)" 1 "clicked frame at the left edge" &&
	expect_eq 0 "$(value shown_outside flame.out)" "frames shown beside the zoomed one" &&
	expect_ge 1 "$(value hidden flame.out)" "frames hidden by the zoom" &&
	expect_near "$(value child_width_expected flame.out)" "$(value child_width flame.out)" 1 \
		"width of $(value child flame.out) (px) in the zoom" &&
	# the share of CPU time under sort_array, from the folded export
	share=$(awk "{ w = \$NF; total += w; if (\$0 ~ /;sort_array[; ]/) hit += w }
		END { printf \"%.1f\", 100 * hit / total }" cs.folded) &&
	matched=$(value matched flame.out | sed "s/^Matched: \([0-9.]*\)%$/\1/") &&
	expect_near "$share" "$matched" 0.5 "matched share of sort_array (%)" &&
	expect_ge 1 "$(value coloured flame.out)" "frames coloured by the search" &&
	expect_near "$(value clicked_width_before flame.out)" "$(value reset_width flame.out)" 0.2 \
		"frame width after Reset zoom" &&
	expect_eq 0 "$(value reset_hidden flame.out)" "frames hidden after Reset zoom" &&
	expect_eq PNG "$(head -c 4 flame.png | tail -c 3)" "screenshot" &&
	if test -n "${SAMPLER_SCREENSHOT:-}"; then cp flame.png "$SAMPLER_SCREENSHOT"; fi
'

test_expect_success NUMPY,BROWSER,SPEEDSCOPE 'speedscope'"'"'s page opens our export and shows our frames and times' '
	"$EXPORT" --format speedscope -o cs.json cs.prof &&
	mkdir b3 && $BROWSER speedscope b3 "$SPEEDSCOPE_INDEX" cs.json >ss.out &&
	cat ss.out &&
	expect_eq "cpu (ns) - speedscope" "$(value title ss.out)" "page title" &&
	$PY - cs.json ss.out <<-\EOF
	import json, re, sys
	doc = json.load(open(sys.argv[1]))
	out = open(sys.argv[2]).read().splitlines()
	names = [f["name"] for f in doc["shared"]["frames"]]
	active = doc["profiles"][doc["activeProfileIndex"]]
	want = "%s (%d/%d)" % (active["name"], doc["activeProfileIndex"] + 1, len(doc["profiles"]))
	shown = [line[len("profile="):] for line in out if line.startswith("profile=")]
	assert shown == [want], "profile shown %r, expected %r" % (shown, want)
	# the total of each function: the weight of the stacks that hold it
	total = {}
	for s, w in zip(active["samples"], active["weights"]):
	    for i in set(s):
	        total[names[i]] = total.get(names[i], 0) + w
	units = {"ns": 1, "µs": 1e3, "ms": 1e6, "s": 1e9}
	rows = {}
	for line in out:
	    if line.startswith("row="):
	        t, _, name = line[4:].split("\t")
	        m = re.match(r"([0-9.]+)(ns|µs|ms|s) ", t)
	        rows[name] = float(m.group(1)) * units[m.group(2)]
	# every name shown is ours; all of them where the table fits the page
	assert set(rows) <= set(total), "names shown %s, in the file %s" % (sorted(rows), sorted(total))
	assert set(rows) == set(total) or len(rows) >= 20, "%d names shown of %d" % (len(rows), len(total))
	for name, ns in rows.items():
	    assert abs(ns - total[name]) <= 0.01 * total[name], "%s: %s ns shown, %s in the file" % (name, ns, total[name])
	print("%d functions shown with their totals" % len(rows))
	EOF
'


test_expect_success NUMPY 'setup: phases with beta 10 ms, then 25 ms, of its cycle (-g)' '
	PHASES_CYCLE=alpha:10,beta:10,gamma:10 "$SAMPLER" -g -f 500 -o base.prof -- \
		"$EXAMPLES/phases" 1.5 10 >/dev/null 2>&1 &&
	PHASES_CYCLE=alpha:10,beta:25,gamma:10 "$SAMPLER" -g -f 500 -o grown.prof -- \
		"$EXAMPLES/phases" 1.5 10 >/dev/null 2>&1 &&
	"$EXPORT" --format folded --weight cpu base.prof >base.folded &&
	"$EXPORT" --format folded --weight cpu grown.prof >grown.folded &&
	$PY "$ROOT/scripts/sampler-plot" --kind diff -o diff.svg base.prof grown.prof &&
	expect_grep ";main;beta" grown.folded
'

test_expect_success NUMPY 'sampler-plot --kind diff draws two profiles, not one' '
	run_status $PY "$ROOT/scripts/sampler-plot" --kind diff -o one.svg grown.prof 2>err &&
	expect_eq 1 "$rc" "exit status" &&
	expect_eq 1 "$(wc -l <err)" "error lines" &&
	expect_grep "^sampler-plot: error: --kind diff draws two profiles: BASE NEW" err &&
	test ! -e one.svg
'

test_expect_success NUMPY,BROWSER 'the differential flame graph: beta red, alpha and gamma blue, new widths; zoom' '
	mkdir b4 && $BROWSER diff b4 diff.svg beta diff.png >diff.out &&
	$PY - base.folded grown.folded diff.out <<-\EOF
	import re, sys
	def shares(path):
	    total, hit = 0, {}
	    for line in open(path):
	        stack, w = line.rsplit(" ", 1)
	        total += int(w)
	        for f in ("alpha", "beta", "gamma"):
	            if re.search(";main;%s(;|$)" % f, stack):
	                hit[f] = hit.get(f, 0) + int(w)
	    return {f: 100 * w / total for f, w in hit.items()}
	base, new = shares(sys.argv[1]), shares(sys.argv[2])
	out = open(sys.argv[3]).read().splitlines()
	gw = float([x for x in out if x.startswith("graph_width=")][0].split("=")[1])
	def frames(what):
	    got = {}
	    for line in out:
	        if line.startswith(what + "="):
	            name, tip, fill, width = line[len(what) + 1:].split("\t")
	            rgb = tuple(int(v) for v in re.findall(r"\d+", fill))
	            got.setdefault(name, (tip, rgb, float(width)))
	    return got
	shown = frames("frame")
	for f, grew in (("beta", True), ("alpha", False), ("gamma", False)):
	    assert (new[f] > base[f]) == grew, (f, base[f], new[f])
	    tip, (r, g, b), width = shown[f]
	    print("%s: base %.2f%% new %.2f%%, fill %s, %.1f px" % (f, base[f], new[f], (r, g, b), width))
	    red, blue = r == 255 and g == b < 160, b == 255 and r == g < 200
	    assert red if grew else blue, "%s: fill %s, %s" % (f, (r, g, b), "grew" if grew else "shrank")
	    assert abs(width - (new[f] / 100 * gw - 0.5)) <= 1, (f, width, new[f], gw)
	    said = [float(v) for v in re.findall(r"([0-9.]+)%", tip)]
	    assert abs(said[0] - new[f]) <= 0.05 and abs(said[1] - base[f]) <= 0.05, (f, tip, base[f], new[f])
	assert shown["beta"][1][1] < shown["alpha"][1][0], "beta changed most: the deepest colour"
	zoomed = frames("zoomed")
	assert abs(zoomed["beta"][2] - (gw - 0.5)) <= 1, ("beta zoomed", zoomed["beta"], gw)
	assert zoomed["beta"][1] == shown["beta"][1], "beta keeps its colour in the zoom"
	assert "alpha" not in zoomed and "gamma" not in zoomed, sorted(zoomed)
	reset = frames("reset")
	assert all(abs(reset[f][2] - shown[f][2]) <= 0.2 for f in ("alpha", "beta", "gamma")), reset
	print("colours, widths, zoom and reset as the folded exports say")
	EOF
	expect_eq PNG "$(head -c 4 diff.png | tail -c 3)" "screenshot" &&
	if test -n "${SAMPLER_DIFF_SCREENSHOT:-}"; then cp diff.png "$SAMPLER_DIFF_SCREENSHOT"; fi
'

test_done
