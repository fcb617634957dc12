#!/bin/sh
# t4620-scripts-demo.sh - what `make demo` shows (examples/demo.sh): the
# per-function report, then with call stacks the call tree, the flame graph
# (of energy: as root, the tests' fake power PMU when there is no RAPL; else
# of CPU time) and the collapsed stacks; run with the Python make deps
# equips even when another python3 comes first on PATH.  The README's
# figure, docs/demo-flame.svg, is such an energy flame graph of the demo.
. "$(dirname "$0")/lib.sh"
test_have_prereq NUMPY || { skip_all="missing $test_missing_"; test_done; }

test_expect_success 'examples/demo.sh: report, call tree, flame graph, with another python3 first on PATH' '
	mkdir bin &&
	printf "#!/bin/sh\necho not the python make deps equips >&2\nexit 1\n" >bin/python3 &&
	chmod +x bin/python3 &&
	PATH=$TRASH/bin:$PATH DEMO_DIR=$TRASH/demo PYTHON=/usr/bin/python3 \
		"$ROOT/examples/demo.sh" >demo.out 2>demo.err &&
	cat demo.out &&
	expect_grep "^sort_array " demo.out &&
	expect_grep "^== sampler-report --tree" demo.out &&
	expect_grep " run_integrate$" demo.out &&
	expect_grep " __sin_fma$" demo.out &&
	if [ "$(id -u)" = 0 ]; then
		expect_grep "^incl%.*cpu%.*E%.*E95%ci.*E self%  call path$" demo.out
	fi &&
	expect_no_grep "not the python" demo.err
'

test_expect_success 'the flame graph: every path of the collapsed stacks, its total the run'"'"'s' '
	/usr/bin/python3 -c "import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])" demo/flame.svg &&
	if [ "$(id -u)" = 0 ]; then weight=energy unit=J scale=1e6; else weight=cpu unit=s scale=1e9; fi &&
	expect_grep ">demo-workload: $weight by call path</text>" demo/flame.svg &&
	expect_grep "^demo-workload;clone3;start_thread;run_integrate;integrate;__sin_fma [0-9]" demo/stacks.folded &&
	expect_grep "<title>__sin_fma (" demo/flame.svg &&
	expect_grep "<title>hash_strings (" demo/flame.svg &&
	total=$(awk -v k=$scale "{ s += \$NF } END { printf \"%.4f\", s / k }" demo/stacks.folded) &&
	drawn=$(sed -n "s/.*<title>demo-workload (\(.*\) $unit, 100.00%)<.*/\1/p" demo/flame.svg) &&
	expect_near "$total" "$drawn" "$(awk -v t="$total" "BEGIN { print t / 50 }")" "the root frame ($unit)"
'

test_expect_success 'the README shows the energy flame graph of the demo' '
	svg=$ROOT/docs/demo-flame.svg &&
	expect_grep "(docs/demo-flame.svg)" "$ROOT/README.md" &&
	expect_grep ">demo-workload: energy by call path</text>" "$svg" &&
	expect_grep "<title>demo-workload (.* J, 100.00%)</title>" "$svg" &&
	for f in run_integrate integrate __sin_fma run_hash hash_strings sort_array; do
		expect_grep "<title>$f (.* J, " "$svg" || exit 1
	done
'

test_done
