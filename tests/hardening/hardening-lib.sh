# hardening-lib.sh - helpers of the hardening tests (t5*), sourced after lib.sh.

# Hardening workloads come from the plain build, like $EXAMPLES (lib.sh).
HW=$(dirname "$EXAMPLES")/tests/hardening

# peak_kib CMD...: CMD's peak resident size in KiB (hw-maxrss).  A
# sanitizer build keeps freed memory in quarantine: let it go at once, so
# that the size shows what CMD keeps.
peak_kib() {
	ASAN_OPTIONS="${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}quarantine_size_mb=0" \
		"$HW/hw-maxrss" "$@" | sed -n "s/^maxrss_kib=//p"
}

# wait_for_line PATTERN FILE: until a line of FILE matches (at most 20 s).
wait_for_line() {
	for i in $(seq 400); do
		grep -q -- "$1" "$2" 2>/dev/null && return 0
		sleep 0.05
	done
	echo "no line matching '$1' in $2 after 20 s"
	return 1
}

# proc_state PID: the one-letter state of /proc/PID/stat (R, S, T, t, Z...).
proc_state() {
	sed 's/.*) \(.\).*/\1/' "/proc/$1/stat" 2>/dev/null || echo gone
}

# wait_for_state PID STATE: until the process's state matches the
# pattern STATE, e.g. "[Tt]" (at most 20 s).
wait_for_state() {
	for i in $(seq 400); do
		case $(proc_state "$1") in $2) return 0 ;; esac
		sleep 0.05
	done
	echo "process $1 not in state $2 after 20 s: $(proc_state "$1")"
	return 1
}

# valgrind_clean LOG: no error and nothing definitely lost in a memcheck log.
valgrind_clean() {
	expect_grep "ERROR SUMMARY: 0 errors" "$1" &&
	if grep -q "definitely lost:" "$1"; then
		expect_grep "definitely lost: 0 bytes" "$1"
	else
		expect_grep "All heap blocks were freed\|no leaks are possible" "$1"
	fi
}

# wait_for_file FILE: until FILE exists and is not empty (at most 20 s).
wait_for_file() {
	for i in $(seq 400); do
		[ -s "$1" ] && return 0
		sleep 0.05
	done
	echo "$1 not written after 20 s"
	return 1
}
