#!/bin/bash
# Targets that use ptrace themselves (issue 11 #11, docs/RELIABILITY.md
# "Adversarial scenarios", sampler(1) LIMITATIONS): a process has one
# tracer, and the sampler is the tracer of its whole target tree, so a
# debugger, strace or a second sampler inside it cannot trace.  This is
# inherent and documented; a nested sampler says what happened.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/recorder-lib.sh"

test_expect_success 'a sampler under a sampler: its error says the target is already traced' '
	# A sanitizer build of the inner sampler is traced too: its leak check
	# (ptrace again) could not run, the limitation this script is about.
	run_status "$SAMPLER" -o outer -- env ASAN_OPTIONS=detect_leaks=0 \
		"$SAMPLER" -o inner -- "$EXAMPLES/busy" 0.1 >out 2>err &&
	expect_eq 125 "$rc" "status (the inner sampler failed)" &&
	# the outer one may add its rate warning (a loaded machine, a sanitizer build)
	but_rate_warning err >inner.err &&
	one_error_line inner.err &&
	expect_grep "cannot trace the target: it is already traced by process [0-9]* (sampler)" inner.err &&
	expect_no_grep "ptrace_scope" err &&
	[ ! -e inner ] &&
	dump outer &&
	expect_eq 125 "$(stat_of outer.txt exit)" "stats exit"
'

test_expect_success STRACE 'strace under the sampler cannot trace (documented limitation)' '
	run_status "$SAMPLER" -o st -- strace -o /dev/null "$EXAMPLES/busy" 0.1 >out 2>err &&
	expect_eq 1 "$rc" "status (strace failed)" &&
	expect_grep "Operation not permitted" err &&
	dump st
'

test_done
