#!/bin/bash
# The sanitizer build that make check runs the C tests on (build-asan/,
# make asan-build) really checks: LeakSanitizer, which stops the process's
# threads with ptrace at exit, works inside the sampler - itself a tracer,
# and not traced - as root and as an unprivileged user.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/recorder-lib.sh"
. "$ROOT/tests/hardening/hardening-lib.sh"

ASAN=${SAMPLER_ASAN_BUILD:-$ROOT/build-asan}
test_lazy_prereq ASAN_BUILD '
	nm "$ASAN/sampler" 2>/dev/null | grep -q __asan_init ||
	{ echo "no sanitizer build in $ASAN (make asan-build)"; exit 1; }
'
LEAK=$HW/lib-leak.so

# leak_run: the ASan sampler with a preloaded leak of 4242 bytes; its
# stderr in leak.err, its status in $rc.
leak_run() {
	run_status env ASAN_OPTIONS=detect_leaks=1:exitcode=23 LD_PRELOAD="$LEAK" "$@" \
		"$ASAN/sampler" -f 1000 -- "$EXAMPLES/threads" 4 0.2 >/dev/null 2>leak.err
}

test_expect_success ASAN_BUILD,ROOT 'a leak in the sampler is reported at its exit (root)' '
	leak_run &&
	expect_eq 23 "$rc" "status (LeakSanitizer exitcode)" &&
	expect_grep "Direct leak of 4242 byte" leak.err &&
	expect_grep "leak_one_block" leak.err &&
	expect_no_grep "LeakSanitizer has encountered a fatal error" leak.err
'

test_expect_success ASAN_BUILD,NOBODY_CAN_READ 'a leak in the sampler is reported at its exit (uid 65534)' '
	leak_run setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups -- &&
	expect_eq 23 "$rc" "status (LeakSanitizer exitcode)" &&
	expect_grep "Direct leak of 4242 byte" leak.err &&
	expect_no_grep "LeakSanitizer has encountered a fatal error" leak.err
'

test_expect_success ASAN_BUILD 'without the leak the sanitizer sampler exits clean with the target status' '
	run_status env ASAN_OPTIONS=detect_leaks=1:exitcode=23 \
		"$ASAN/sampler" -f 1000 -- "$EXAMPLES/exit3" >/dev/null 2>clean.err &&
	expect_eq 3 "$rc" "status" &&
	expect_empty "$(but_rate_warning clean.err)" "stderr (but the rate warning a loaded machine causes)"
'

test_done
