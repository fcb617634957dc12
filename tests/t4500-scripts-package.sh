#!/bin/sh
# t4500-scripts-package.sh - the scripts as a Python project: flake8 clean,
# installable offline with pip into a venv and by make install, one version
. "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
VERSION=$(sed -n 's/^VERSION = "\([^"]*\)".*/\1/p' "$ROOT/scripts/samplerlib/__init__.py")

# A small CSV the installed commands can report without the C programs.
cat >p.csv <<'CSV'
# sampler csv v2
# process pid=100 ppid=1 comm=app argv=app
time_ns,pid,tid,kind,pc,cpu_delta_ns,wall_delta_ns,dso,symbol
1000,100,100,sample,0x10,500,1000,/bin/app,f1
2000,100,100,sample,0x10,700,1000,/bin/app,f2
3000,100,100,sample,0x10,700,1000,/bin/app,f2
3500,100,100,exit,0x10,300,0,/bin/app,f2
CSV

test_lazy_prereq FLAKE8 '
	$PY -m flake8 --version >/dev/null 2>&1 || { echo "flake8 is not installed (apt-get install flake8)"; exit 1; }
'
test_lazy_prereq PYVENV '
	$PY -c "import venv, ensurepip" 2>/dev/null ||
	{ echo "python3-venv is not installed (apt-get install python3-venv)"; exit 1; }
'

# (and the tests' own Python: fakes, simulators, generators of hostile input)
test_expect_success FLAKE8 'flake8 (pyflakes + pycodestyle) finds nothing in scripts and tests' '
	(cd "$ROOT" && $PY -m flake8 --config scripts/.flake8 scripts tests/scripts tests/fakes \
		tests/pmu tests/fixtures tests/format tests/hardening) >flake8.out 2>&1 || true
	cat flake8.out
	expect_eq 0 "$(wc -l <flake8.out)" "flake8 findings"
'

test_expect_success 'spaces not tabs; in-tree commands start with #!/usr/bin/env python3' '
	expect_empty "$(grep -rlP "\t" "$ROOT/scripts" "$ROOT/tests/scripts" --include=*.py)" "files with tabs"
	for s in report compare plot import; do
		expect_eq "#!/usr/bin/env python3" "$(head -1 "$ROOT/scripts/sampler-$s")" "sampler-$s"
	done
'

test_expect_success 'one version: the commands and the C tools say the same' '
	expect_eq "sampler-report $VERSION" "$($PY "$ROOT/scripts/sampler-report" --version)"
	expect_eq "sampler $VERSION" "$("$BUILD/sampler" -V)"
	expect_eq "$VERSION" "$(make -s -C "$ROOT" -f Makefile --eval="print-version: ; @echo \$(VERSION)" print-version)"
'

test_expect_success PYVENV 'pip install ./scripts works offline in a venv with --system-site-packages' '
	cp -R "$ROOT/scripts" src
	$PY -m venv --system-site-packages venv
	venv/bin/pip install --quiet --disable-pip-version-check --no-build-isolation \
		--no-index ./src >pip.out 2>&1 || { cat pip.out; false; }
	for s in report compare plot import; do
		venv/bin/sampler-$s --help >help.out
		expect_grep "^usage: sampler-$s" help.out
	done
	expect_eq "sampler-report $VERSION" "$(venv/bin/sampler-report -V)"
	venv/bin/sampler-report --csv --no-cache p.csv >r.csv
	expect_grep "^f2,/bin/app,2,66.6667," r.csv
	expect_no_grep "sys.path" venv/bin/sampler-report
'

test_expect_success 'make install DESTDIR=: the package under PREFIX, commands that name it' '
	(cd "$ROOT" && git status --porcelain --ignored scripts) >before.txt 2>/dev/null || true
	make -s -C "$ROOT" install-scripts DESTDIR="$TRASH/dest" BUILD="$TRASH/build" \
		PREFIX=/usr/local >make.out 2>&1 || { cat make.out; false; }
	site=$(cd dest && find . -type d -name samplerlib | sed "s|^\.||; s|/samplerlib\$||")
	expect_eq /usr/local "$(echo "$site" | cut -d/ -f1-3)" "the package directory under PREFIX" &&
	for s in report compare plot import; do
		test -x dest/usr/local/bin/sampler-$s
		expect_eq "sys.path.insert(0, \"$site\")" "$(grep "^sys.path" dest/usr/local/bin/sampler-$s)" \
			"sampler-$s: the installed package first on its path, without DESTDIR"
	done
	PYTHONPATH=$TRASH/dest$site dest/usr/local/bin/sampler-report --csv --no-cache p.csv >r.csv
	expect_grep "^f1,/bin/app,1,33.3333," r.csv
	(cd "$ROOT" && git status --porcelain --ignored scripts) >after.txt 2>/dev/null || true
	expect_empty "$(diff before.txt after.txt)" "files make install left in scripts/"
'

# A PREFIX whose packages directory is not on the interpreter's path (a
# home directory, /opt): the commands work as installed, with no
# PYTHONPATH (it failed with ModuleNotFoundError: samplerlib before).
test_expect_success 'make install PREFIX=/opt-like: the commands run as installed, no PYTHONPATH' '
	make -s -C "$ROOT" install-scripts BUILD="$TRASH/build2" \
		PREFIX="$TRASH/opt" >make2.out 2>&1 || { cat make2.out; false; }
	test -d opt/lib/sampler/python/samplerlib &&
	for s in report compare plot import; do
		env -u PYTHONPATH opt/bin/sampler-$s --help >help-$s.out 2>&1 ||
			{ cat help-$s.out; false; }
		expect_grep "^usage: sampler-$s" help-$s.out
	done &&
	(cd / && env -u PYTHONPATH "$TRASH/opt/bin/sampler-report" --csv --no-cache "$TRASH/p.csv") >r2.csv &&
	expect_grep "^f1,/bin/app,1,33.3333," r2.csv
'

test_done
