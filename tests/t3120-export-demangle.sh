#!/bin/bash
# C++ and Rust names demangled in what the exporter prints (CSV --symbols,
# folded stacks, the columns' symbol and stack tables), as c++filt gives
# them: examples/cxxnames runs its work in a class template's member in a
# namespace, an operator, a lambda, an anonymous namespace, and two
# functions named with a Rust legacy and a Rust v0 symbol.  For Rust the
# names are perf's: no legacy hash (::h0123...), no crate disambiguator
# ([ca63...]), which c++filt prints.  --no-demangle keeps them mangled; the
# perf.data export holds no names, and perf report demangles them itself.
. "$(dirname "$0")/lib.sh"

test_lazy_prereq CXXNAMES '
	test -x "$EXAMPLES/cxxnames" || { echo "examples/cxxnames is not built (needs g++: make deps)"; exit 1; }
	command -v c++filt >/dev/null || { echo "c++filt is not installed (binutils)"; exit 1; }
'
test_have_prereq CXXNAMES || { skip_all="missing $test_missing_"; test_done; }

# decoded_field FILE COLUMN: a CSV column of the sample rows, %XX decoded.
decoded_field() {
	/usr/bin/python3 -c '
import csv, sys, urllib.parse
rows = (l for l in open(sys.argv[1]) if not l.startswith("#"))
for r in csv.DictReader(rows):
    print(urllib.parse.unquote(r[sys.argv[2]]))' "$1" "$2"
}

# have_each NAMES FILE: every line of NAMES is a line of FILE.
have_each() {
	local missing
	missing=$(sort -u "$2" | comm -23 <(sort -u "$1") -)
	[ -z "$missing" ] && return 0
	echo "missing from $2:"; echo "$missing"; echo "it has:"; sort -u "$2" | head -40
	return 1
}

test_expect_success 'setup: the example recorded with -g; its mangled names and c++filt'"'"'s' '
	"$SAMPLER" -g -f 1000 -o p.prof -- "$EXAMPLES/cxxnames" 0.6 >/dev/null 2>&1 &&
	nm "$EXAMPLES/cxxnames" | awk "\$2 ~ /^[tTW]\$/ && \$3 ~ /^_[ZR]/ { print \$3 }" | sort -u >mangled &&
	expect_eq 6 "$(wc -l <mangled)" "mangled function symbols" &&
	c++filt <mangled | sed -e "s/::h[0-9a-f]\{16\}\$//" -e "s/\[[0-9a-f]*\]//g" >want &&
	expect_grep "^energy::Kernel<unsigned long>::crunch(long)\$" want &&
	expect_grep "^operator+(Vec const&, Vec const&)\$" want &&
	expect_grep "^main::{lambda(unsigned long)#1}::operator()(unsigned long) const\$" want &&
	expect_grep "^(anonymous namespace)::hidden_work(unsigned long)\$" want &&
	expect_grep "^std::rt::lang_start\$" want &&
	expect_grep "^mycrate::foo\$" want
'

test_expect_success 'CSV --symbols: the symbol column and the stacks demangled' '
	"$EXPORT" --format csv --symbols p.prof >p.csv &&
	decoded_field p.csv symbol >symbols &&
	have_each want symbols &&
	decoded_field p.csv stack | tr ";" "\n" >frames &&
	have_each want frames &&
	expect_no_grep "^_[ZR]" symbols &&
	expect_no_grep "^_[ZR]" frames
'

test_expect_success 'folded: the frames demangled' '
	"$EXPORT" --format folded p.prof >p.folded &&
	sed "s/ [0-9]*\$//" p.folded | tr ";" "\n" >frames &&
	have_each want frames &&
	expect_no_grep "^_[ZR]" frames
'

# (the tables follow the binary frames: the first line of one need not
# start a line, so the lines are matched anywhere, -o)
# unquoted_table COLS KEY: the values of the KEY= field of the columns'
# "# KEY id=N KEY=..." lines, %XX decoded.
unquoted_table() {
	grep -ao "# $2 id=[0-9]* .*" "$1" | sed "s/.* $2=//" |
		/usr/bin/python3 -c "import sys, urllib.parse; [print(urllib.parse.unquote(l.rstrip())) for l in sys.stdin]"
}

# (a function's samples all in code inlined into it make a row of the
# inlined function: its own name is in the symbol table with --no-inline)
test_expect_success 'columns --symbols: the symbol and stack tables demangled' '
	"$EXPORT" --format columns --symbols --no-inline -o p.cols p.prof &&
	unquoted_table p.cols symbol >symbols &&
	have_each want symbols &&
	"$EXPORT" --format columns --symbols -o inl.cols p.prof &&
	unquoted_table inl.cols stack | tr ";" "\n" >frames &&
	have_each want frames &&
	unquoted_table inl.cols symbol >symbols &&
	expect_no_grep "^_[ZR]" symbols
'

test_expect_success '--no-demangle: the names as the symbol table has them' '
	"$EXPORT" --format csv --symbols --no-demangle p.prof >raw.csv &&
	decoded_field raw.csv symbol >symbols &&
	have_each mangled symbols &&
	expect_no_grep "^mycrate::foo\$" symbols &&
	"$EXPORT" --format folded --no-demangle p.prof | sed "s/ [0-9]*\$//" | tr ";" "\n" >frames &&
	have_each mangled frames
'

test_expect_success PERF 'perf report of the export demangles the same functions itself' '
	"$EXPORT" -o p.data p.prof &&
	perf report -i p.data --stdio --no-children --sort symbol -g none >report 2>/dev/null &&
	for name in "energy::Kernel<unsigned long>::crunch" "std::rt::lang_start" "mycrate::foo" \
		"(anonymous namespace)::hidden_work"; do
		grep -qF "[.] $name " report || { echo "perf report has no $name"; exit 1; }
	done
'

test_done
