#!/bin/sh
# t9010-docs-man.sh - the man pages name what the commands do: every option
# and format sampler-export --help lists is in sampler-export(1), the
# call-path views and the flame graph are in sampler-tools(7), and what
# the pages say of merging is what the exporter does.
. "$(dirname "$0")/lib.sh"

# plain PAGE: the page's text without font changes and escapes
plain() {
	sed 's/\\f[BIRP]//g; s/\\-/-/g; s/\\(bu//g' "$ROOT/docs/$1"
}

test_expect_success 'sampler-export(1): every option and format of --help' '
	plain sampler-export.1 >export.txt &&
	"$EXPORT" --help >help.txt 2>&1 &&
	grep -o -- "--[a-z][a-z-]*" help.txt | sort -u >options &&
	expect_ge 5 "$(wc -l <options)" "options in --help" &&
	while read -r o; do
		grep -q -- "$o" export.txt || { echo "sampler-export.1 lacks $o"; exit 1; }
	done <options &&
	formats=$(sed -n "s/.*--format \([a-z|]*\).*/\1/p" help.txt | head -n 1 | tr "|" " ") &&
	expect_grep speedscope help.txt &&
	for f in $formats; do
		grep -q -- "--format $f" export.txt || { echo "sampler-export.1 lacks --format $f"; exit 1; }
	done
'

test_expect_success 'sampler-tools(7): --tree, --callers, --callees, --kind flame and its --weight' '
	plain sampler-tools.7 >tools.txt &&
	for o in --tree "--callers func" "--callees func" --min-share "--kind flame" "--weight cpu"; do
		grep -q -- "$o" tools.txt || { echo "sampler-tools.7 lacks $o"; exit 1; }
	done &&
	expect_grep "Reset zoom" tools.txt &&
	expect_grep "Search" tools.txt
'

# Two profiles with a sampling window merge (merge.h: each input counts
# only inside its own windows); the page must not say they are refused.
test_expect_success 'sampler-export(1) says profiles with windows merge, and they do' '
	"$SAMPLER" --delay 0.1 -o w1.prof -- "$EXAMPLES/busy" 0.3 >/dev/null 2>&1 &&
	"$SAMPLER" -o w2.prof -- "$EXAMPLES/busy" 0.2 >/dev/null 2>&1 &&
	"$EXPORT" --format csv -o merged.csv w1.prof w2.prof &&
	expect_ge 2 "$(grep -c ",sample," merged.csv)" "merged rows" &&
	plain sampler-export.1 | tr "\n" " " >export.line &&
	expect_no_grep "windows[^.]*refused" export.line &&
	expect_grep "windows.*merge" export.line
'

# Issue 46 #9: man sampler-report, -compare, -plot, -import and
# sampler-profile found nothing.  make install puts a page for every
# installed command where man looks (the scripts' lead to sampler-tools(7)).
test_expect_success 'make install: man finds a page for every command it installs' '
	command -v man >/dev/null || { echo "no man (apt-get install man-db)"; exit 0; }
	make -s -C "$ROOT" install DESTDIR="$TRASH/dest" PREFIX=/usr/local BUILD="$BUILD" >install.out 2>&1 ||
		{ cat install.out; exit 1; }
	for c in $(ls "$TRASH/dest/usr/local/bin"); do
		MANPATH="$TRASH/dest/usr/local/share/man" man -P cat "$c" >page.txt 2>page.err ||
			{ echo "man $c: $(cat page.err)"; exit 1; }
		grep -q -- "$c" page.txt || { echo "man $c does not name $c"; exit 1; }
	done &&
	ls "$TRASH/dest/usr/local/bin" >commands &&
	expect_ge 7 "$(wc -l <commands)" "commands installed (sampler, -export, -profile and the four scripts)"
'

test_done
