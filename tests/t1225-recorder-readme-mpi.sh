#!/bin/sh
# The documented MPI commands, run as written (issue 46 #10): each
# `$ mpirun` line of docs/USAGE.md's "One profile per MPI rank" section,
# with the paths of this build and a shorter run; as root with the
# environment the page names for root.  Before, `mpirun -np 4 ...` failed
# on a 2-CPU machine (more ranks than slots) and, as root, at all.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/recorder-lib.sh"

test_have_prereq MPI || { skip_all="missing $test_missing_"; test_done; }

# the page's lines, `$ mpirun ...`, from its MPI section
sed -n '/^## One profile per MPI rank/,/^## /s/^\$ \(mpirun .*\)/\1/p' "$ROOT/docs/USAGE.md" >commands

# as the page says for root
if [ "$(id -u)" = 0 ]; then
	export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi

test_expect_success 'docs/USAGE.md shows two mpirun commands' '
	cat commands &&
	expect_eq 2 "$(wc -l <commands)" "mpirun commands in docs/USAGE.md"
'

# run LINE: the page's command with this build's paths, 20 units of work
run_line() {
	sed -n "${1}p" commands | sed "s| sampler | $SAMPLER |; s|build/examples/mpi_app [0-9]*|$EXAMPLES/mpi_app 20|" >cmd &&
	cat cmd &&
	sh ./cmd >out 2>err || { cat err; return 1; }
}

test_expect_success 'the first runs as written: one profile per rank, four ranks' '
	run_line 1 &&
	expect_eq 4 "$(ls app.*.*.prof | wc -l)" "profiles (app.%h.%r.prof)" &&
	for r in 0 1 2 3; do
		ls app.*.$r.prof >/dev/null || exit 1
	done
'

test_expect_success 'the second runs as written: two ranks with call stacks' '
	run_line 2 &&
	expect_eq 2 "$(ls app.[01].prof | wc -l)" "profiles (app.%r.prof)" &&
	flags=$(od -An -tu4 -j12 -N4 app.0.prof | tr -d " ") &&
	expect_eq 1 $((flags % 2)) "the header flag of stacks (-g)"
'

test_done
