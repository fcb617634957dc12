#!/bin/bash
# The text form's one escape rule (docs/FORMAT.md, "Text view"): every
# control byte, every byte that is not UTF-8, and ' ', '%', '=', ',', '"'
# are written %XX, every other byte (UTF-8 text) as it is;
# argv, comm and map paths holding such bytes round-trip through dump and
# build, and the CSV header lines carry the same escaped text.
. "$(dirname "$0")/lib.sh"

PROFILE=$BUILD/sampler-profile
export LC_ALL=C		# bytes, not characters, for sed and grep

# A program and its directory named with a tab, a newline, '%', '=', ','
# and bytes that are not UTF-8; run with arguments holding the same.
DIR=$'d\tir%=,\n\xff'
NAME=$'b\tu%=,\xfe'
E_DIR='d%09ir%25%3D%2C%0A%FF'
E_NAME='b%09u%25%3D%2C%FE'
E_ARGS='%200.3%20a%09b%20c%25d%3De%2Cf%20g%0Ah%20%FE%FF%20sp%20ace%7F'

test_expect_success 'record a program whose name, path and arguments need escaping' '
	mkdir "$DIR" &&
	cp "$EXAMPLES/busy" "$DIR/$NAME" &&
	"$SAMPLER" -f 500 -o p.prof -- "./$DIR/$NAME" 0.3 $'"'"'a\tb'"'"' "c%d=e,f" $'"'"'g\nh'"'"' $'"'"'\xfe\xff'"'"' "sp ace"$'"'"'\x7f'"'"' &&
	"$PROFILE" dump p.prof >p.dump
'

test_expect_success 'dump escapes argv, comm and map paths by the rule' '
	expect_eq "./$E_DIR/$E_NAME$E_ARGS" "$(sed -n "s/^exec .* argv=//p" p.dump)" "argv" &&
	expect_eq "$E_NAME" "$(sed -n "s/^exec .* comm=\([^ ]*\) .*/\1/p" p.dump)" "comm" &&
	expect_grep "^map .* prot=r-x path=$TRASH/$E_DIR/$E_NAME\$" p.dump &&
	expect_eq 0 "$(LC_ALL=C grep -c "[[:cntrl:]]" p.dump)" "lines holding a raw control byte" &&
	expect_eq 0 "$(grep -vcE "^(format|host|channel|process|exec|thread|name|exit|map|sample|ts|stats) " p.dump)" \
		"lines that do not start a record"
'

test_expect_success 'build from the dump writes a profile that dumps identically' '
	"$PROFILE" build p2.prof <p.dump &&
	"$PROFILE" dump p2.prof >p2.dump &&
	cmp p.dump p2.dump &&
	"$PROFILE" build --format native p3.prof.bz2 <p2.dump &&
	"$PROFILE" dump p3.prof.bz2 | sed 1d >p3.dump &&
	sed 1d p.dump | cmp - p3.dump
'

test_expect_success 'the CSV header lines carry the same escaped argv, comm and host fields' '
	"$EXPORT" --format csv --symbols -o p.csv p.prof &&
	expect_grep "^# process pid=[0-9]* ppid=0 comm=$E_NAME argv=./$E_DIR/$E_NAME$E_ARGS\$" p.csv &&
	expect_eq "$(sed -n "s/^host//p" p.dump)" "$(sed -n "s/^# host//p" p.csv)" "host fields" &&
	expect_eq "$(sed -n "s/^stats//p" p.dump)" "$(sed -n "s/^# stats//p" p.csv)" "stats fields" &&
	expect_grep ",$TRASH/$E_DIR/$E_NAME,\(main\|spin_for\)\$" p.csv
'

test_expect_success 'build decodes every %XX, upper or lower case; dump keeps UTF-8, escapes the rest' '
	printf "exec pid=1 time=2 comm=a%%09%%7f argv=%%25%%3d%%2c%%20\\xc3\\xa9\\xff\\nstats\\n" >in.txt &&
	"$PROFILE" build e.prof <in.txt &&
	"$PROFILE" dump e.prof >e.dump &&
	expect_eq "comm=a%09%7F argv=%25%3D%2C%20"$'"'"'\xc3\xa9'"'"'%FF "$(sed -n "s/^exec pid=1 time=2 //p" e.dump)"
'

test_expect_success 'a bad escape is one error naming the line' '
	for bad in "%" "%4" "%zz" "%00"; do
		printf "process pid=1\nexec pid=1 argv=x%s\n" "$bad" >bad.txt &&
		run_status "$PROFILE" build b.prof <bad.txt 2>b.err &&
		expect_eq 1 "$rc" "status for $bad" &&
		expect_grep "^sampler-profile: error: line 2: bad %-escape" b.err || return 1
	done
'

test_done
