#!/bin/sh
# t4510-scripts-path.sh - after make, every command runs by name from the
# build directory (PATH=build:$PATH), whatever python3 comes first on PATH:
# the scripts built there name the interpreter make deps provisioned.
. "$(dirname "$0")/lib.sh"

# A python3 without numpy first on PATH, as pyenv's or conda's can be: a
# venv without the system's packages.
test_lazy_prereq NONUMPY_PYTHON '
	/usr/bin/python3 -m venv --without-pip "$TRASH/bare" >/dev/null 2>&1 ||
	{ echo "python3-venv is not installed (apt-get install python3-venv)"; exit 1; }
'

USER_PATH=$TRASH/bare/bin:$BUILD:/usr/bin:/bin

test_expect_success NUMPY,NONUMPY_PYTHON 'the first python3 on the test PATH lacks numpy' '
	PATH=$USER_PATH
	expect_eq "$TRASH/bare/bin/python3" "$(command -v python3)" "first python3"
	run_status python3 -c "import numpy"
	expect_eq 1 "$rc" "import numpy by the first python3"
	# so the launcher of the source tree (#!/usr/bin/env python3) starts
	# there but cannot read a profile: one line that says what to do
	"$ROOT/scripts/sampler-report" --version >v.out
	expect_grep "^sampler-report 0\." v.out
	printf "%s\n" "# sampler csv v2" "time_ns,pid,tid,kind,pc,cpu_delta_ns,wall_delta_ns" \
		"1000,100,100,sample,0x10,500,1000" >p.csv
	run_status "$ROOT/scripts/sampler-report" --no-cache p.csv 2>err
	cat err
	expect_eq 2 "$rc" "scripts/sampler-report p.csv on that PATH"
	expect_eq 1 "$(wc -l <err)" "error lines"
	expect_grep "^sampler-report: error: numpy is not available.*(make deps.*run the commands make writes into build/" err
'

test_expect_success NUMPY,NONUMPY_PYTHON 'every command runs by name from the build directory' '
	PATH=$USER_PATH
	for c in sampler sampler-export sampler-report sampler-compare sampler-plot sampler-import; do
		expect_eq "$BUILD/$c" "$(command -v $c)" "where $c is found"
		$c --version >v.out 2>&1 || { cat v.out; false; }
		expect_grep "^$c 0\." v.out
	done
	expect_eq "$BUILD/sampler-profile" "$(command -v sampler-profile)"
	expect_eq "#!/usr/bin/python3" "$(head -n 1 "$BUILD/sampler-report")" "interpreter line"
'

test_expect_success NUMPY,NONUMPY_PYTHON 'a profile recorded, reported and plotted with the commands on PATH' '
	PATH=$USER_PATH
	sampler -f 200 -o p -- "$EXAMPLES/busy" 0.3
	sampler-report --top 1 --csv p >r.csv
	cat r.csv
	expect_eq main "$(sed -n "2s/,.*//p" r.csv)" "hottest function"
	sampler-compare p p >c.out
	sampler-plot -o t.png p
	expect_eq "PNG" "$(head -c 4 t.png | tail -c 3)" "sampler-plot output"
'

test_done
