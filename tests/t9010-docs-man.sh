#!/bin/sh
# t9010-docs-man.sh - the man pages name what the commands do: every option
# and format sampler-export --help lists is in sampler-export(1), the
# call-path views and the flame graph are in sampler-tools(7), what
# the pages say of merging is what the exporter does, and every link of
# the README and docs/ (and every docs/ page the tree names) resolves.
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

# broken_links PAGE...: "PAGE: TARGET" for each relative markdown link or
# image of the pages whose target (its #anchor dropped) does not exist,
# relative to the page's directory.  Links to the web are not followed.
broken_links() {
	for page in "$@"; do
		grep -oE '\]\([^)[:space:]]+\)' "$page" | sed 's/^](//; s/)$//; s/#.*//' |
		while read -r target; do
			case $target in
			''|http://*|https://*|mailto:*) continue ;;
			esac
			[ -e "$(dirname "$page")/$target" ] || echo "$page: $target"
		done
	done
}

# broken_names DIR: "FILE: NAME" for each page under docs/ (a .md page,
# also under notes/, or a man page, .1 or .7) that a text file under DIR
# names and DIR does not have: a comment, a help text or a doc pointing at
# a page that moved.  (The check's own fixture below builds its names, so
# that this file names none.)
broken_names() {
	grep -rIoE --exclude-dir=.git --exclude-dir="build*" \
		"docs/[A-Za-z0-9_/-]+[.](md|1|7)" "$1" |
	while IFS=: read -r file name; do
		[ -e "$1/$name" ] || echo "${file#"$1"/}: $name"
	done
}

test_expect_success 'the link checks find a broken link and a stale page name' '
	d=docs &&
	mkdir -p site/$d/sub &&
	printf "ok\n" >site/$d/there.md && printf "x" >site/$d/sub/pic.png &&
	printf "[a]($d/there.md) [b]($d/gone.md#x) ![c]($d/sub/pic.png) [d](https://x.org/y)\n" >site/README.md &&
	printf "[e](../README.md) [f](sub/nope.png) see $d/there.md, $d/moved.md\n" >site/$d/page.md &&
	broken_links site/README.md site/$d/page.md >got.links &&
	printf "site/README.md: $d/gone.md\nsite/$d/page.md: sub/nope.png\n" >want.links &&
	expect_eq "$(cat want.links)" "$(cat got.links)" "broken links found" &&
	broken_names "$PWD/site" | LC_ALL=C sort >got.names &&
	printf "README.md: $d/gone.md\n$d/page.md: $d/moved.md\n" >want.names &&
	expect_eq "$(cat want.names)" "$(cat got.names)" "stale page names found"
'

test_expect_success 'README and docs: every relative link resolves, every docs/ page named exists' '
	ls "$ROOT"/README.md "$ROOT"/docs/*.md "$ROOT"/docs/notes/*.md >pages &&
	expect_ge 10 "$(wc -l <pages)" "pages" &&
	for page in $(cat pages); do
		grep -oE "\]\([^)[:space:]]+\)" "$page" || :
	done >links &&
	expect_ge 20 "$(wc -l <links)" "links in the README and docs/" &&
	broken_links $(cat pages) >broken &&
	broken_names "$ROOT" >>broken &&
	expect_empty "$(cat broken)" "broken links and page names"
'

test_done
