#!/bin/sh
# Text tables that fit (issue 46 #5): a C++ program whose hot function's
# name is a few hundred characters (templates of templates) gave
# sampler-report lines over 1,000 characters wide and COLUMNS was
# ignored.  Now --width N (else the terminal's width, else $COLUMNS)
# bounds the table, the names cut in the middle, and --short-names drops
# template and function arguments.  Without a width (a pipe, no
# $COLUMNS) the names stay whole, for scripts that read them.
. "$(dirname "$0")/lib.sh"
test_have_prereq NUMPY || { skip_all="missing $test_missing_"; test_done; }
command -v g++ >/dev/null || { skip_all="no g++ (make deps installs it)"; test_done; }
export SAMPLER_BIN_DIR=$BUILD SAMPLER_NO_CACHE=1
REPORT="/usr/bin/python3 $ROOT/scripts/sampler-report"
COMPARE="/usr/bin/python3 $ROOT/scripts/sampler-compare"

test_expect_success 'setup: a C++ program with a long template name, recorded' '
	cat >long.cc <<-\EOF &&
	#include <map>
	#include <string>
	#include <vector>
	#include <ctime>
	template <class Key, class Value> struct a_rather_long_template_name_for_tables {
		__attribute__((noinline)) static long spin_for_a_while(const std::map<Key, Value> &m, double s) {
			timespec t; clock_gettime(CLOCK_MONOTONIC, &t);
			double end = t.tv_sec + t.tv_nsec / 1e9 + s; long x = (long)m.size();
			do { for (int i = 0; i < 1000; i++) x = x * 7 + i; clock_gettime(CLOCK_MONOTONIC, &t); }
			while (t.tv_sec + t.tv_nsec / 1e9 < end);
			return x;
		}
	};
	int main() {
		std::map<std::vector<std::string>, std::map<std::string, std::vector<long>>> m;
		return a_rather_long_template_name_for_tables<std::vector<std::string>,
			std::map<std::string, std::vector<long>>>::spin_for_a_while(m, 0.3) == 42;
	}
	EOF
	g++ -O1 -g -o long long.cc &&
	"$SAMPLER" -f 500 -o l.prof -- ./long &&
	$REPORT l.prof >whole.txt &&
	$REPORT --csv l.prof | /usr/bin/python3 -c "import csv, sys; print(next(r[0] for r in csv.reader(sys.stdin) if \"spin_for_a_while\" in r[0]))" >name &&
	echo "$(wc -c <name) characters in the name" &&
	expect_ge 200 "$(wc -c <name)" "characters of the hot function'"'"'s name"
'

# table_width FILE: the widest line of the table (not the # header lines),
# in characters (sampler-compare's headings hold a Greek delta)
table_width() {
	grep -v "^#" "$1" | /usr/bin/python3 -c "import sys; print(max(len(l.rstrip(\"\n\")) for l in sys.stdin))"
}

test_expect_success 'a pipe without $COLUMNS: names whole, as scripts read them' '
	expect_ge 200 "$(table_width whole.txt)" "the widest line"
'

test_expect_success '--width 100: every line of the table in 100, the name cut in its middle' '
	$REPORT --width 100 l.prof >w100.txt &&
	cat w100.txt &&
	expect_le 100 "$(table_width w100.txt)" "the widest line" &&
	head=$(cut -c1-12 name) && tail=$(rev name | cut -c1-12 | rev) &&
	grep -F "$head" w100.txt | grep -F "..." | grep -F "$tail " >cut.txt &&
	expect_eq 1 "$(wc -l <cut.txt)" "rows of the name cut in its middle ($head...$tail)"
'

test_expect_success '$COLUMNS bounds it too, and sampler-compare the same way' '
	COLUMNS=110 $REPORT l.prof >c110.txt &&
	expect_le 110 "$(table_width c110.txt)" "the widest line with COLUMNS=110" &&
	COLUMNS=140 $COMPARE l.prof l.prof >cmp.txt &&
	expect_le 140 "$(table_width cmp.txt)" "the widest line of sampler-compare" &&
	$COMPARE l.prof l.prof >cmpwhole.txt &&
	expect_ge 200 "$(table_width cmpwhole.txt)" "sampler-compare without a width"
'

test_expect_success '--short-names: template and function arguments dropped' '
	$REPORT --short-names l.prof >short.txt &&
	cat short.txt &&
	expect_grep "^a_rather_long_template_name_for_tables<>::spin_for_a_while() " short.txt &&
	$REPORT --csv --short-names l.prof >short.csv &&
	expect_grep "spin_for_a_while(std::map<" short.csv
'

test_expect_success '--width 0: no limit; a bad --width is one error line' '
	COLUMNS=60 $REPORT --width 0 l.prof >w0.txt &&
	expect_ge 200 "$(table_width w0.txt)" "the widest line with --width 0" &&
	run_status $REPORT --width wide l.prof 2>bad.err &&
	expect_eq 1 "$(wc -l <bad.err)" "error lines"
'

test_done
