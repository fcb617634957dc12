#!/bin/bash
# The build takes the builder's flags as a distribution gives them:
# make CFLAGS=... CPPFLAGS=... LDFLAGS=... adds the project's own flags
# (the version, the C dialect, warnings, dependency files) instead of
# losing them, and the programs built so work.
. "$(dirname "$0")/lib.sh"

VERSION=$(make -s -C "$ROOT" --eval 'print-version: ; @echo $(VERSION)' print-version)
# a make of our own, not a sub-make of make check's
unset MAKEFLAGS MFLAGS MAKELEVEL
MAIN="sampler sampler-profile sampler-export"

# build DIR MAKE-ARGS...: make the main programs into DIR; the commands in
# DIR.log, the compile lines in DIR.cc, the link lines in DIR.ld.
build() {
	local dir=$TRASH/$1 targets= p
	shift
	for p in $MAIN; do targets="$targets $dir/$p"; done
	make -C "$ROOT" -j2 BUILD="$dir" "$@" $targets >"$dir.log" 2>&1 ||
		{ echo "make failed:"; tail -20 "$dir.log"; return 1; }
	grep " -c -o " "$dir.log" >"$dir.cc" || true
	grep -v " -c -o " "$dir.log" | grep " -o $dir/" >"$dir.ld" || true
}

test_expect_success 'make CFLAGS=-O0: builds, with the project flags added to -O0' '
	build o0 CFLAGS=-O0 &&
	expect_ge 20 "$(wc -l <o0.cc)" "compile lines" &&
	expect_eq 0 "$(grep -cv -e " -O0 " o0.cc)" "compile lines without -O0" &&
	expect_eq 0 "$(grep -c -e " -O2" o0.cc)" "compile lines with the default -O2" &&
	expect_eq 0 "$(grep -cv -e "-DSAMPLER_VERSION=" o0.cc)" "compile lines without the version" &&
	expect_eq 0 "$(grep -cv -e " -std=gnu11 .*-MMD" o0.cc)" "compile lines without dialect and dependency files"
'

test_expect_success 'the -O0 programs run: --version, a recording, its dump and export' '
	expect_eq "sampler $VERSION" "$(o0/sampler --version)" "sampler --version" &&
	o0/sampler -f 200 -o p -- "$EXAMPLES/busy" 0.05 &&
	o0/sampler-profile dump p >p.txt &&
	expect_grep "^host .*sampler_version=$VERSION " p.txt &&
	expect_grep "^stats " p.txt &&
	o0/sampler-export --format csv -o p.csv p &&
	expect_grep "^# stats " p.csv
'

test_expect_success 'CPPFLAGS reach every compile line, LDFLAGS every link line, CFLAGS both' '
	build flags CFLAGS="-O0 -g" CPPFLAGS=-DSAMPLER_FLAGS_TEST=1 LDFLAGS=-Wl,-z,now &&
	expect_eq 0 "$(grep -cv -e "-DSAMPLER_FLAGS_TEST=1 .*-O0 -g" flags.cc)" "compile lines without CPPFLAGS then CFLAGS" &&
	expect_eq 3 "$(wc -l <flags.ld)" "link lines" &&
	expect_eq 0 "$(grep -cv -e "-O0 -g -Wl,-z,now" flags.ld)" "link lines without CFLAGS and LDFLAGS" &&
	for p in $MAIN; do
		readelf -d flags/$p | grep -q "BIND_NOW\|FLAGS.*NOW" ||
			{ echo "flags/$p is not linked with -z now"; exit 1; }
	done &&
	expect_eq "sampler $VERSION" "$(flags/sampler --version)" "sampler --version"
'

# Every module.mk: a dry run of everything make builds.  Only the profiled
# workloads keep fixed flags (examples/, tests/hardening/, pmu-workload), and
# the fuzzers their fixed instrumentation (clang).
test_expect_success 'every program of every module.mk takes the builder'"'"'s flags' '
	make -C "$ROOT" -n BUILD="$TRASH/all" CFLAGS=-O0 CPPFLAGS=-DSAMPLER_FLAGS_TEST=1 \
		LDFLAGS=-Wl,-z,now programs >all.log 2>&1 &&
	grep "^cc " all.log |
		grep -v -e " -o $TRASH/all/examples/" -e " -o $TRASH/all/tests/hardening/" \
			-e " -o $TRASH/all/tests/pmu-workload " >all.cc &&
	expect_ge 50 "$(wc -l <all.cc)" "compile and link lines" &&
	grep -e " -c -o " all.cc | grep -v -e "-DSAMPLER_FLAGS_TEST=1 -O0 " >bad-compile || true &&
	grep -v -e " -c -o " all.cc | grep -v -e "-O0 -Wl,-z,now " >bad-link || true &&
	expect_empty "$(cat bad-compile bad-link)" "lines without the builder'"'"'s flags"
'

test_expect_success 'asan-build keeps its sanitizer flags when the outer make was given CFLAGS' '
	make -C "$ROOT" -n ASAN_BUILD="$TRASH/asan" CFLAGS=-O0 asan-build >asan.log 2>&1 &&
	grep "^clang .* -c -o $TRASH/asan/" asan.log >asan.cc &&
	expect_ge 20 "$(wc -l <asan.cc)" "compile lines" &&
	expect_eq 0 "$(grep -cv -e "-DSAMPLER_VERSION=.* -fsanitize=address,undefined" asan.cc)" "compile lines without the project or sanitizer flags" &&
	expect_eq 0 "$(grep -c -e " -O0" asan.cc)" "compile lines with the outer CFLAGS"
'

test_done
