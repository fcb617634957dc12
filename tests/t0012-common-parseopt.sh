#!/bin/sh
# The one option parser of sampler, sampler-export and sampler top
# (common/parseopt.h) on a table of each kind of entry: what each form of
# an option sets, the arguments it leaves, its errors and its --help.
. "$(dirname "$0")/lib.sh"

CHECK=$BUILD/tests/parseopt-check

# parsed MODE ARG...: the check's one line
parsed() {
	"$CHECK" "$@"
}

test_expect_success 'short, long, clusters, = and the next argument' '
	expect_eq "debug=1 verbose=1 pass=0 output=f number=3 list=3 args=x,y before=2 dashdash=0 end=null" \
		"$(parsed plain -dv -o f x -n 3 y)" "-dv -o f x -n 3 y" &&
	expect_eq "debug=1 verbose=1 pass=0 output=f number=0 list= args=x before=1 dashdash=0 end=null" \
		"$(parsed plain -dvof x)" "-dvof: the argument ends the cluster" &&
	expect_eq "debug=0 verbose=0 pass=0 output=f number=4 list=4 args=-v before=0 dashdash=1 end=null" \
		"$(parsed plain --output=f --number 4 -- -v)" "--output=f --number 4 -- -v" &&
	expect_eq "debug=0 verbose=0 pass=0 output=- number=0 list= args=- before=1 dashdash=0 end=null" \
		"$(parsed plain -o - -)" "-o - and - (stdin) as an argument" &&
	expect_eq "debug=0 verbose=0 pass=0 output=--x number=0 list= args= before=0 dashdash=0 end=null" \
		"$(parsed plain --output --x)" "a required argument is taken even if it starts with -" &&
	expect_eq "debug=0 verbose=0 pass=0 output=(null) number=2 list=1,2 args= before=0 dashdash=0 end=null" \
		"$(parsed plain -n1 --number=2)" "-n1 --number=2, in order" &&
	expect_eq "debug=0 verbose=0 pass=0 output=(null) number=0 list= args= before=0 dashdash=0 end=null" \
		"$(parsed plain -v --quiet)" "the last of --verbose and --quiet wins"
'

test_expect_success 'abbreviations: a unique prefix, an exact name, an ambiguous one' '
	expect_eq "debug=1 verbose=0 pass=0 output=f number=0 list= args= before=0 dashdash=0 end=null" \
		"$(parsed plain --deb --out f)" "--deb --out f" &&
	expect_eq "done" "$(parsed plain --name-one)" "--name-one, exact" &&
	expect_eq "error: option '"'"'--name'"'"' is ambiguous: --name-one, --name-two (see check --help)" \
		"$(parsed plain --name)" "--name"
'

test_expect_success 'stop at the first argument: the command keeps its options' '
	expect_eq "debug=1 verbose=0 pass=0 output=(null) number=0 list= args=x,-v before=2 dashdash=0 end=null" \
		"$(parsed stop -d x -v)" "-d x -v" &&
	expect_eq "debug=0 verbose=0 pass=0 output=(null) number=0 list= args=-d before=0 dashdash=1 end=null" \
		"$(parsed stop -- -d)" "-- -d"
'

test_expect_success 'keep unknown: exact names, clusters and abbreviations handed on' '
	expect_eq "debug=0 verbose=0 pass=1 output=f number=0 list= args=-dg,--pass,-x1,--deb,-p,3,cmd,-d before=6 dashdash=1 end=null" \
		"$(parsed keep -dg --pass -x1 --deb -o f -p 3 -- cmd -d)" "keep"
'

test_expect_success 'an optional argument: attached, the next, or none before an option' '
	expect_eq "debug=0 verbose=0 pass=0 output=(null) number=0 list=100 args= before=0 dashdash=0 end=null" \
		"$(parsed plain -F 100)" "-F 100" &&
	expect_eq "debug=1 verbose=0 pass=0 output=(null) number=0 list=7 args= before=0 dashdash=0 end=null" \
		"$(parsed plain -dF7)" "-dF7" &&
	expect_eq "debug=1 verbose=0 pass=0 output=(null) number=0 list=(none) args= before=0 dashdash=0 end=null" \
		"$(parsed plain -F -d)" "-F -d"
'

test_expect_success 'errors: one line naming the option and the help' '
	expect_eq "error: unknown option '"'"'-dz'"'"' (see check --help)" "$(parsed plain -dz)" "-dz" &&
	expect_eq "error: unknown option '"'"'--bogus'"'"' (see check --help)" "$(parsed plain --bogus)" "--bogus" &&
	expect_eq "error: unknown option '"'"'--=1'"'"' (see check --help)" "$(parsed plain --=1)" "--=1: no name" &&
	expect_eq "error: option '"'"'-o'"'"' needs an argument (see check --help)" "$(parsed plain -do)" "-do" &&
	expect_eq "error: option '"'"'--output'"'"' needs an argument (see check --help)" "$(parsed plain --output)" "--output" &&
	expect_eq "error: option '"'"'--debug'"'"' takes no argument (drop '"'"'=1'"'"'; see check --help)" \
		"$(parsed plain --debug=1)" "--debug=1" &&
	expect_eq "error: option '"'"'--pass'"'"' takes no argument (drop '"'"'=1'"'"'; see check --help)" \
		"$(parsed keep --pass=1)" "--pass=1, kept" &&
	expect_eq "error: -n: bad number '"'"'x'"'"'" "$(parsed plain -n x)" "the function'"'"'s own error, -n" &&
	expect_eq "error: --number: bad number '"'"'x'"'"'" "$(parsed plain --num=x)" "the function'"'"'s own error, --number" &&
	expect_eq "done" "$(parsed plain -d -x -z)" "a function that ends the parsing" &&
	expect_eq "check $("$SAMPLER" -V | cut -d" " -f2)
done" "$(parsed plain -dV -z)" "-V prints the version and ends the parsing"
'

test_expect_success '--help: every shown entry, aligned, hidden ones left out' '
	"$CHECK" plain --help >help.txt &&
	cat >expected <<-\EOF &&
	usage: check
	  FILE...               the files
	  -d, --debug           debug
	  -v, --verbose         say more
	                        and more
	      --quiet           say less
	  -o, --output FILE     write FILE
	  -n, --number N        a number
	      --name-one
	      --name-two        another name
	  -x, --exit            done
	  -h, --help            this help
	  -V, --version         the version
	footer
	done
	EOF
	diff expected help.txt
'

test_done
