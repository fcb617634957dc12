#!/bin/bash
# t5045-hardening-names.sh - names that carry ESC, BEL, a newline, a quote,
# a comma, '<&>' and bytes that are not UTF-8 (the binary's file name, its
# argv, two of its functions renamed with objcopy, a thread named with
# prctl PR_SET_NAME) go through every text output by the one escaping rule
# (common/textescape.h, scripts/samplerlib/escape.py; docs/EXPORT.md):
# no raw ESC or BEL reaches stdout of --info, sampler-report or sampler top
# --stdio, no line is forged, the SVG parses (Python's XML parser and
# Chromium), the speedscope JSON loads with Python's strict json, the CSV
# reads back with Python's csv module field for field.
. "$(dirname "$0")/lib.sh"

PY=/usr/bin/python3
export LC_ALL=C		# bytes, not characters, for tr, grep and sed

BIN=$'x\e[2J\e]0;PWNED\a'
E_BIN='x%1B[2J%1B]0;PWNED%07'
MAIN_FN=$'"m\e[2J\a\n,q\xff<&>fn'
E_MAIN_FN='"m%1B[2J%07%0A,q%FF<&>fn'
THREAD_FN=$'t\e]0;X\a\x01\n,\xfe\'fn'
E_THREAD_FN="t%1B]0;X%07%01%0A,%FE'fn"
ARG=$'arg\nforged line'
# in a call stack's text (folded, flame graph, tree) ';' is the separator:
# a name's own ';' is ':' there
S_BIN='x%1B[2J%1B]0:PWNED%07'
S_THREAD_FN="t%1B]0:X%07%01%0A,%FE'fn"

test_lazy_prereq OBJCOPY '
	command -v objcopy >/dev/null || { echo "objcopy is not installed (binutils)"; exit 1; }
'

# bytes FILE: how many ESC and BEL bytes FILE holds ("ESC BEL")
bytes() {
	echo "$(tr -cd '\033' <"$1" | wc -c) $(tr -cd '\007' <"$1" | wc -c)"
}

# has FILE TEXT: FILE holds TEXT (a fixed string) on some line
has() {
	grep -q -F -e "$2" "$1" && return 0
	echo "expected a line holding '$2' in $1, which holds:"
	sed "s/^/  /" "$1"
	return 1
}

# no_raw FILE WHAT: no ESC, no BEL, no line forged by a name's newline
no_raw() {
	expect_eq "0 0" "$(bytes "$1")" "ESC and BEL bytes in $2" &&
	expect_eq 0 "$(grep -c '^\(forged\|,q\|,%FE\|fn\)' "$1")" "lines forged in $2"
}

test_expect_success OBJCOPY 'record a program whose file, argv, functions and thread have hostile names' '
	objcopy --redefine-sym "hostile_main_fn=$MAIN_FN" \
		--redefine-sym "hostile_thread_fn=$THREAD_FN" \
		"$EXAMPLES/hostile-names" "./$BIN" &&
	nm "./$BIN" >nm.out &&
	expect_eq 2 "$(grep -c -F -e "$(printf "%s" "$MAIN_FN" | head -n 1)" -e "$(printf "%s" "$THREAD_FN" | head -n 1)" nm.out)" "renamed symbols" &&
	"$SAMPLER" -g -f 200 -o h.prof -- "./$BIN" 0.6 "$ARG" 2>rec.err &&
	"$BUILD/sampler-profile" dump h.prof >h.dump &&
	has h.dump " comm=arg%0Aforged%20line"
'

test_expect_success OBJCOPY 'sampler-export --info: escaped names, no raw byte, no forged line' '
	"$EXPORT" --info h.prof >info.txt &&
	no_raw info.txt --info &&
	has info.txt "command:    ./$E_BIN 0.6 arg%0Aforged line ($E_BIN)"
'

test_expect_success OBJCOPY,NUMPY 'sampler-report flat, by thread, tree: escaped names, no raw byte, no forged line' '
	$PY "$ROOT/scripts/sampler-report" --no-cache h.prof >flat.txt &&
	no_raw flat.txt "the flat report" &&
	has flat.txt "$E_MAIN_FN" &&
	has flat.txt "$E_THREAD_FN" &&
	has flat.txt "  $E_BIN" &&
	$PY "$ROOT/scripts/sampler-report" --no-cache --by thread h.prof >thread.txt &&
	no_raw thread.txt "the report by thread" &&
	has thread.txt " arg%0Aforged line " &&
	$PY "$ROOT/scripts/sampler-report" --no-cache --tree h.prof >tree.txt &&
	no_raw tree.txt "the tree" &&
	has tree.txt "  $E_BIN" &&
	has tree.txt "  $S_THREAD_FN" &&
	$PY "$ROOT/scripts/sampler-compare" --no-cache h.prof h.prof >compare.txt &&
	no_raw compare.txt "sampler-compare" &&
	has compare.txt "$E_MAIN_FN"
'

test_expect_success OBJCOPY 'sampler top --stdio: escaped names, no raw byte, no forged line' '
	"$SAMPLER" top --stdio -r 0.2 -- "./$BIN" 0.6 "$ARG" >top.txt 2>top.err &&
	no_raw top.txt "sampler top --stdio" &&
	has top.txt "$E_MAIN_FN" &&
	has top.txt "  $E_BIN" &&
	"$SAMPLER" top --stdio --by thread -r 0.2 -- "./$BIN" 0.6 "$ARG" >topt.txt 2>topt.err &&
	no_raw topt.txt "sampler top --stdio --by thread" &&
	has topt.txt " arg%0Aforged line "
'

test_expect_success OBJCOPY 'folded: one stack a line, names escaped' '
	"$EXPORT" --format folded h.prof >h.folded &&
	no_raw h.folded "the folded output" &&
	expect_eq 0 "$(grep -cv " [0-9][0-9]*\$" h.folded)" "lines that are not STACK COUNT" &&
	has h.folded "$S_BIN;_start;" &&
	has h.folded ";main;$E_MAIN_FN;" &&
	has h.folded ";thread;$S_THREAD_FN;"
'

test_expect_success OBJCOPY 'speedscope JSON: strict UTF-8 and json, the escaped names' '
	"$EXPORT" --format speedscope -o h.json h.prof &&
	$PY -c "
import json, sys
doc = json.loads(open(\"h.json\", \"rb\").read().decode(\"utf-8\"))
print(\"\\n\".join(f[\"name\"] for f in doc[\"shared\"][\"frames\"]))
print(\"\\n\".join(p[\"name\"] for p in doc[\"profiles\"]))
" >json.names &&
	has json.names "$E_MAIN_FN" &&
	has json.names "$E_THREAD_FN" &&
	has json.names "arg%0Aforged line (tid"
'

test_expect_success OBJCOPY 'CSV: strict UTF-8, every row as many fields as the header, names read back' '
	"$EXPORT" --format csv --symbols -o h.csv h.prof &&
	$PY -c "
import csv, sys
sys.path.insert(0, \"$ROOT/scripts\")
from samplerlib.textview import unescape
data = open(\"h.csv\", \"rb\").read()
try:
    data.decode(\"utf-8\")
    print(\"utf8 yes\")
except UnicodeDecodeError as e:
    print(\"utf8 no: %s\" % e)
lines = data.decode(\"utf-8\", \"surrogateescape\").split(\"\\n\")
rows = list(csv.reader([l for l in lines if l and not l.startswith(\"#\")]))
head, rows = rows[0], rows[1:]
print(\"fields %s\" % \" \".join(str(n) for n in sorted(set(len(r) for r in rows))))
print(\"header %d\" % len(head))
syms = set(unescape(r[head.index(\"symbol\")]) for r in rows if len(r) == len(head))
for name in sys.argv[1:]:
    print(\"name %s\" % (\"found\" if name in syms else \"missing\"))
" "$MAIN_FN" "$THREAD_FN" >csv.out &&
	cat csv.out &&
	expect_eq "$(sed -n "s/^header //p" csv.out)" "$(sed -n "s/^fields //p" csv.out)" \
		"fields per row (the header'"'"'s count)" &&
	expect_eq "utf8 yes" "$(grep "^utf8" csv.out)" "the CSV decodes as UTF-8" &&
	expect_eq "found found" "$(sed -n "s/^name //p" csv.out | tr "\n" " " | sed "s/ \$//")" \
		"the raw names read back from the symbol column"
'

test_expect_success OBJCOPY,NUMPY 'SVG flame graph: parses as XML, the escaped names' '
	$PY "$ROOT/scripts/sampler-plot" --kind flame -o h.svg h.prof &&
	$PY -c "
import xml.etree.ElementTree as ET
ns = \"{http://www.w3.org/2000/svg}\"
tips = [t.text for t in ET.parse(\"h.svg\").iter(ns + \"title\")]
print(\"\\n\".join(tips))
" >svg.tips &&
	has svg.tips "$E_MAIN_FN (" &&
	has svg.tips "$S_THREAD_FN ("
'

test_expect_success 'C and Python escape any byte string alike (sampler-profile dump, textview.escape)' '
	$PY -c "
import random
random.seed(5045)
pieces = [b\"\\xc2\\x85\", b\"\\xc2\\xa0\", b\"\\xe2\\x82\\xac\", b\"\\xed\\xa0\\x80\", b\"\\xf0\\x9f\\x98\\x80\",
          b\"\\xf4\\x90\\x80\\x80\", b\"\\xe0\\x80\\x80\", b\"\\xc0\\xaf\", b\"\\xf0\\x9f\", b\"a\", b\"%\", b\"\\x22\",
          b\"\\x1b\", b\"\\x7f\", b\"\\xff\", b\"\\n\"]
with open(\"values\", \"wb\") as v, open(\"in.txt\", \"w\") as t:
    for i in range(1, 301):
        n = random.randrange(1, 8)
        val = b\"\".join(random.choice(pieces + [bytes([random.randrange(1, 256)])]) for _ in range(n))
        v.write(val.hex().encode() + b\"\\n\")
        t.write(\"process pid=%d ppid=0 time=1\\nexec pid=%d time=2 comm=x argv=%s\\n\"
                % (i, i, \"\".join(\"%%%02X\" % b for b in val)))
    t.write(\"stats\\n\")
" &&
	"$BUILD/sampler-profile" build fz.prof <in.txt &&
	"$BUILD/sampler-profile" dump fz.prof | sed -n "s/^exec .* argv=//p" >c.escaped &&
	$PY -c "
import sys
sys.path.insert(0, \"$ROOT/scripts\")
from samplerlib.textview import escape
for line in open(\"values\"):
    sys.stdout.buffer.write(escape(bytes.fromhex(line.strip())).encode(\"utf-8\", \"surrogateescape\") + b\"\\n\")
" >py.escaped &&
	expect_eq 300 "$(wc -l <c.escaped)" "values dumped" &&
	expect_eq 0 "$(diff c.escaped py.escaped | grep -c "^<")" "values escaped differently in C and Python" &&
	expect_eq 0 "$(LC_ALL=C grep -c "[[:cntrl:]]" c.escaped)" "escaped values holding a control byte"
'

test_lazy_prereq BROWSER '
	$PY -c "import selenium" 2>/dev/null ||
	{ echo "python3-selenium is not installed (make deps installs it)"; exit 1; }
	test -x /usr/bin/chromium && test -x /usr/bin/chromedriver ||
	{ echo "chromium or chromium-driver is not installed (make deps installs them)"; exit 1; }
	mkdir -p "$TRASH/probe" && $PY "$ROOT/tests/scripts/browser.py" probe "$TRASH/probe"
'

test_expect_success OBJCOPY,NUMPY,BROWSER 'SVG flame graph: Chromium shows it without a parse error' '
	mkdir b && $PY "$ROOT/tests/scripts/browser.py" frames b h.svg >b.out &&
	expect_eq 0 "$(sed -n "s/^parse_errors=//p" b.out)" "XML parse errors in Chromium" &&
	expect_ge 5 "$(grep -c "^tip=" b.out)" "frames Chromium shows" &&
	has b.out "tip=\"$E_BIN (" &&
	has b.out "tip=\"$S_THREAD_FN ("
'

test_done
