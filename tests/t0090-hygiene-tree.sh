#!/bin/bash
# t0090-hygiene-tree.sh - the tree holds what is tracked on purpose.  No
# profile, perf.data, fuzzer artifact, core dump or build output is tracked,
# or lies untracked where .gitignore does not cover it (one `git add -A`
# from a commit), outside the places that keep such files on purpose: the
# fuzzers' seeds (fuzz/corpus*/) and the tests' fixtures (tests/fixtures/).
# The committed seeds carry no local path or host name, and .gitignore
# covers what the tools write by default.  (A profile, `att`, and a fuzzer
# artifact were committed by mistake once each.)
. "$(dirname "$0")/lib.sh"

# The suite may run as another user than the checkout's owner (CI as root).
git_() {
	git -c safe.directory='*' "$@"
}

if ! command -v git >/dev/null; then
	skip_all="git is not installed: which files are tracked is not known"
elif ! prefix=$(git_ -C "$ROOT" rev-parse --show-prefix 2>/dev/null) || [ -n "$prefix" ]; then
	skip_all="$ROOT is not a git checkout (a release tarball?): which files are tracked on purpose is not known"
fi
[ -z "$skip_all" ] || test_done

# what_is FILE: what FILE is when it is no source (by its name, then by its
# first bytes, decompressed when bzip2); nothing for anything else.
what_is() {
	local head
	case ${1##*/} in
	perf.data*) echo "a perf.data file (by its name)"; return ;;
	crash-*|leak-*|timeout-*|oom-*|slow-unit-*) echo "a fuzzer artifact (by its name)"; return ;;
	core|core.[0-9]*|vgcore.[0-9]*) echo "a core dump (by its name)"; return ;;
	*.o|*.d|*.a|*.so|*.pyc) echo "a build output (by its name)"; return ;;
	esac
	head=$(od -An -tx1 -N36 -v "$1" | tr -d ' \n')
	case $head in
	425a68*) head=$(bzip2 -dc <"$1" 2>/dev/null | od -An -tx1 -N36 -v | tr -d ' \n') ;;
	esac
	case $head in
	534d504c50524f46*) echo "a native profile (magic SMPLPROF)" ;;
	50455246494c4532*) echo "a perf.data file (magic PERFILE2)" ;;
	7f454c46*) echo "an ELF file (a program, an object or a core dump)" ;;
	0[0-3]000000*)	# pperf: PMU kind 0-3, at byte 28 a value size of 1-64
		case ${head:56:8} in
		0[1-9a-f]000000|[1-3][0-9a-f]000000|40000000) echo "a pperf profile (by its header)" ;;
		esac ;;
	esac
}

# Where such files are kept on purpose: the fuzzers' seeds (a crash input
# kept as a regression seed is named crash-*, docs/RELIABILITY.md) and the
# tests' fixtures.
on_purpose() {
	case $1 in
	fuzz/corpus*/*|tests/fixtures/*) return 0 ;;
	esac
	return 1
}

# stray DIR: "PATH: WHAT" for each file of the checkout DIR, tracked (in the
# index) or untracked and not ignored, that is no source and lies where
# nothing of its kind is kept on purpose.
stray() {
	local f what
	git_ -C "$1" ls-files -z --cached --others --exclude-standard | tr "\0" "\n" | LC_ALL=C sort -u |
	while IFS= read -r f; do
		[ -f "$1/$f" ] && [ ! -L "$1/$f" ] || continue
		on_purpose "$f" && continue
		what=$(what_is "$1/$f")
		[ -z "$what" ] || printf '%s: %s\n' "$f" "$what"
	done
}

test_expect_success 'the checkout holds no profile, perf.data, fuzzer artifact, core or build output out of place' '
	stray "$ROOT" >stray &&
	expect_empty "$(cat stray)" "stray files (git rm --cached the tracked ones; delete or move them out of the tree)"
'

test_expect_success 'the check finds each kind planted in a scratch checkout, tracked or not' '
	git_ -c init.defaultBranch=main init -q tree &&
	cp "$ROOT/.gitignore" tree/ &&
	mkdir -p tree/src tree/fuzz/corpus tree/tests/fixtures &&
	printf "int main(void) { return 0; }\n" >tree/src/ok.c &&
	printf "PERFILE2%0128d" 0 >tree/src/rec &&
	cp "$ROOT/fuzz/corpus/native-small" tree/att &&
	cp "$ROOT/fuzz/corpus/native-small.bz2" tree/src/run &&
	cp "$ROOT/fuzz/corpus/pperf-small" tree/src/old &&
	cp "$ROOT/fuzz/corpus/native-small" tree/t.prof &&
	cp "$BUILD/sampler-profile" tree/src/tool &&
	printf "x" >tree/src/crash-0a1b &&
	printf "x" >tree/perf.data.old &&
	printf "x" >tree/core &&
	printf "x" >tree/src/main.o &&
	cp "$ROOT/fuzz/corpus/native-small" tree/fuzz/corpus/seed &&
	printf "x" >tree/fuzz/corpus/crash-kept-on-purpose &&
	cp "$ROOT/fuzz/corpus/pperf-small" tree/tests/fixtures/seed.pperf &&
	git_ -C tree add src/ok.c att fuzz tests &&
	git_ -C tree add -f src/crash-0a1b perf.data.old core &&
	stray tree >got &&
	cat >want <<-\EOF &&
	att: a native profile (magic SMPLPROF)
	core: a core dump (by its name)
	perf.data.old: a perf.data file (by its name)
	src/crash-0a1b: a fuzzer artifact (by its name)
	src/main.o: a build output (by its name)
	src/old: a pperf profile (by its header)
	src/rec: a perf.data file (magic PERFILE2)
	src/run: a native profile (magic SMPLPROF)
	src/tool: an ELF file (a program, an object or a core dump)
	EOF
	expect_eq "$(cat want)" "$(cat got)" "stray files of the scratch checkout"
'

# not_ignored DIR: the untracked files of checkout DIR that git add may take.
not_ignored() {
	git_ -C "$1" ls-files --others --exclude-standard | LC_ALL=C sort | tr "\n" " " | sed "s/ $//"
}

test_expect_success '.gitignore covers what the tools write, not a seed or a fixture' '
	git_ -c init.defaultBranch=main init -q ign &&
	mkdir -p ign/scripts &&
	cp "$ROOT/.gitignore" ign/ &&
	cp "$ROOT/scripts/.gitignore" ign/scripts/ &&
	for f in build/sampler build/tests/grow-check.o build/fuzz/crash-1 build-asan/sampler \
		out/sampler perf.data perf.data.old examples/perf.data t.prof sub/run.prof.bz2 \
		crash-da39 fuzz/leak-1 examples/timeout-2 oom-3 slow-unit-4 core tests/core.1234 \
		vgcore.77 scripts/samplerlib/__pycache__/agg.cpython-311.pyc .pytest_cache/v \
		scripts/.pytest_cache/v .mypy_cache/v scripts/build/lib/x.py scripts/x.egg-info/PKG-INFO; do
		mkdir -p "$(dirname "ign/$f")" && printf x >"ign/$f" || exit 1
	done &&
	expect_eq ".gitignore scripts/.gitignore" "$(not_ignored ign)" "files not ignored" &&
	mkdir -p ign/fuzz/corpus-pmu-text ign/tests/fixtures &&
	printf x >ign/fuzz/corpus-pmu-text/crash-new-regression &&
	printf x >ign/tests/fixtures/old.prof &&
	expect_eq ".gitignore fuzz/corpus-pmu-text/crash-new-regression scripts/.gitignore tests/fixtures/old.prof" \
		"$(not_ignored ign)" "files not ignored (a new seed, a fixture)"
'

# A recorded seed keeps the paths and the host of where it was recorded.
# Its bytes are searched (a seed may be corrupt on purpose: the reader
# stops before its maps); its host name is the reader's.  Record seeds by
# relative path, and rewrite the map paths (fuzz/scrub-seed.py does both).
test_expect_success 'the committed seeds carry no local path and no host name of this machine' '
	git_ -C "$ROOT" ls-files fuzz/corpus tests/fixtures >files &&
	: >profiles && : >hosts && : >local &&
	while read -r f; do
		[ -n "$(what_is "$ROOT/$f")" ] || continue
		echo "$f" >>profiles &&
		case $(od -An -c -N3 "$ROOT/$f" | tr -d " ") in
		BZh) bzip2 -dc <"$ROOT/$f" >raw ;;
		*) cp "$ROOT/$f" raw ;;
		esac &&
		{ LC_ALL=C grep -aoE "(^|[^[:alnum:]_.+@:/-])/[[:alnum:]_.+-]+(/[[:alnum:]_.+@:-]+)+" raw || :; } |
			sed "s|^[^/]||" | grep -vE "^/(usr|lib|lib32|lib64|bin|sbin|etc|opt|dev|proc|sys|run|var)/" |
			LC_ALL=C sort -u | sed "s|^|$f: path |" >>local &&
		{ "$BUILD/sampler-profile" dump "$ROOT/$f" 2>/dev/null || :; } |
			sed -n "s/^host.* hostname=\([^ ]\{1,\}\).*/\1/p" >host &&
		sed "s|^|$f |" host >>hosts &&
		{ grep -Fx "$(uname -n)" host || :; } | sed "s|^|$f: host |" >>local || exit 1
	done <files &&
	cat hosts &&
	expect_ge 10 "$(wc -l <profiles)" "profiles among the seeds and fixtures" &&
	expect_ge 8 "$(wc -l <hosts)" "host names read (the native seeds)" &&
	expect_empty "$(cat local)" "local paths and host names"
'

test_done
