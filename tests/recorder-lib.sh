# recorder-lib.sh - helpers for the recorder tests (t1*), sourced after lib.sh.

# dump PROFILE: write its text view to PROFILE.txt; returns dump's status.
dump() {
	"$BUILD/sampler-profile" dump "$1" >"$1.txt"
}

# stat_of TEXT FIELD: a field of the stats line.
stat_of() {
	field_values "$1" stats "$2"
}

# records TEXT TYPE: how many records of a type.
records() {
	grep -c "^$2 " "$1" || true
}

# check_snapshots TEXT: every sample holds exactly the threads alive at that
# point of the profile (announced by a thread record, not yet exited), each
# once, and nthreads matches its ts lines.  Prints each problem found.  A
# sample leaves out a thread that did not stop within a second
# (STOP_WAIT_SLICES in sampler/snapshot.c: on a loaded machine a runnable
# thread can wait that long for a CPU); such a sample comes at least a second
# after the one before it.
check_snapshots() {
	awk '
	function val(key,   i, kv) {
		for (i = 2; i <= NF; i++) {
			split($i, kv, "=")
			if (kv[1] == key)
				return substr($i, length(key) + 2)
		}
		return ""
	}
	function problem(msg) {
		if (problems++ < 10)
			print "line " NR ": " msg
	}
	function flush(   t) {
		if (!in_sample)
			return
		in_sample = 0
		if (got != want)
			problem("sample has nthreads=" want " but " got " ts lines")
		for (t in live)
			if (!(t in seen) && !waited)
				problem("sample at line " sline " misses live thread " t)
	}
	/^ts / {
		t = val("tid")
		if (t in seen)
			problem("thread " t " twice in one sample")
		if (!(t in live))
			problem("thread " t " sampled but not alive")
		seen[t] = 1
		got++
		next
	}
	{ flush() }
	/^thread / {
		t = val("tid")
		if (t in live)
			problem("thread " t " announced twice")
		live[t] = 1
	}
	/^exit / { delete live[val("tid")] }
	/^sample / {
		in_sample = 1; want = val("nthreads"); got = 0; sline = NR
		waited = prev != "" && val("time") - prev >= 1e9
		prev = val("time")
		split("", seen)
	}
	END { flush(); if (problems) print problems " problems"; exit problems > 0 }
	' "$1"
}

# field_values TEXT TYPE KEY: the values of KEY in every TYPE record.
field_values() {
	awk -v type="$2" -v key="$3" '$1 == type {
		for (i = 2; i <= NF; i++)
			if (index($i, key "=") == 1)
				print substr($i, length(key) + 2)
	}' "$1"
}

# but_rate_warning FILE: FILE without what a loaded machine adds (lib.sh).
but_rate_warning() {
	but_load_notes "$1"
}

# one_error_line FILE: the file holds exactly one line, a "sampler: error:".
one_error_line() {
	expect_eq 1 "$(but_load_notes "$1" | wc -l)" "stderr lines" &&
	expect_grep '^sampler: error: ' "$1"
}

# On a loaded machine the sampler takes fewer samples than asked: a sample
# waits until every thread has reached its stop, and a thread waiting for a
# CPU gets there late.  It counts the slots it missed, so what holds on any
# machine is that every slot of the schedule was sampled or missed.  What a
# floor on samples can still catch is a sampler that stalls (a stop that
# times out costs a second): MIN_HZ is far below any rate seen under load
# (150-500 Hz at -f 1000 with two busy loops per CPU), far above a stall.
MIN_HZ=10

# min_samples SECONDS: the fewest samples a run of SECONDS must have.
min_samples() {
	awk -v s="$1" -v f=$MIN_HZ 'BEGIN { print int(s * f) }'
}

# expect_schedule TEXT: the stats agree with the records, every slot of the
# schedule (target frequency) up to the target's end was sampled or counted
# as missed, and no more slots than the wall time holds (within 2 each: the
# slot in progress), and sampling went on through the run (MIN_HZ).  The
# wall time also holds the sampler's own finish after the target's end,
# which a slow sampler (valgrind) makes several slots long.
expect_schedule() {
	local hz wall samples missed ideal until_end
	hz=$(field_values "$1" host target_hz)
	wall=$(stat_of "$1" wall)
	samples=$(records "$1" sample)
	missed=$(stat_of "$1" missed)
	ideal=$(awk -v w="$wall" -v f="$hz" 'BEGIN { print int(w / 1e9 * f) }')
	until_end=$(awk -v f="$hz" '
		$1 == "host" { for (i = 2; i <= NF; i++) if (index($i, "start_ns=") == 1) start = substr($i, 10) }
		$1 == "sample" || $1 == "exit" { for (i = 2; i <= NF; i++)
			if (index($i, "time=") == 1 && substr($i, 6) + 0 > end) end = substr($i, 6) + 0 }
		END { print int((end - start) / 1e9 * f) }' "$1")
	expect_eq "$(stat_of "$1" samples)" "$samples" "stats samples vs sample records" &&
	expect_ge "$((until_end - 2))" "$((samples + missed))" "samples + missed slots (every slot at $hz Hz until the target ended)" &&
	expect_le "$((ideal + 2))" "$((samples + missed))" "samples + missed slots ($hz Hz x wall)" &&
	expect_ge "$(min_samples "$(awk -v w="$wall" 'BEGIN { print w / 1e9 }')")" "$samples" \
		"samples (at least $MIN_HZ Hz over $wall ns)"
}

# window_cpu TEXT: the CPU ns a profile of one window holds by the
# recorder's absolute readings: per thread, its last reading that added
# CPU time (cpu=; a reading after the window closed, such as a detach,
# adds none) less the one before its first delta (cpu - dcpu), added up.
# A check against it cannot pass with zero CPU: an exporter that drops the
# deltas differs from it, and a profile with no reading fails its numeric
# assertion.
window_cpu() {
	awk '/^(ts|exit) / { for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		t = v["tid"]; if (!(t in first)) last[t] = first[t] = v["cpu"] - v["dcpu"]
		if (v["dcpu"] > 0) last[t] = v["cpu"] }
	     END { for (t in last) { s += last[t] - first[t]; n++ } if (n) printf "%.0f\n", s }' "$1"
}

# csv_cpu CSV: "pid cpu_ns" of each process of a sampler-export csv (its
# sample and exit rows), by pid.  (printf: mawk prints a number above 2^31
# with 6 digits, 2.36635e+09, and two sums 5 ms apart would compare equal.)
csv_cpu() {
	awk -F, '/^-?[0-9]/ { s[$2] += $6 } END { for (p in s) printf "%d %.0f\n", p, s[p] }' "$1" | sort -n
}

# untraced PID: no thread of the live process PID has a tracer (TracerPid
# 0 in each /proc/PID/task/TID/status); names the threads that have one.
# A process that is gone fails: there was nothing to check.
untraced() {
	local s tracer n=0 traced=
	for s in /proc/$1/task/*/status; do
		tracer=$(sed -n "s/^TracerPid:\t*//p" "$s" 2>/dev/null) || continue
		[ -n "$tracer" ] || continue	# the thread ended meanwhile
		n=$((n + 1))
		[ "$tracer" = 0 ] || traced="$traced $(basename "$(dirname "$s")")(by $tracer, $(sed -n "s/^State:\t*//p" "$s"))"
	done
	[ $n -gt 0 ] || { echo "process $1 is gone: no thread to check"; return 1; }
	[ -z "$traced" ] && return 0
	echo "threads of $1 still traced:$traced"
	return 1
}

# wait_ended PID [SECONDS]: wait for PID, a child of this shell, at most
# SECONDS (30), its status in $rc.  One still running then is killed
# (SIGKILL) and fails the test, saying so: a sampler that does not end
# fails at once instead of holding the runner until its timeout.
wait_ended() {
	local end=$(($(date +%s) + ${2:-30})) stat
	while [ "$(date +%s)" -lt $end ]; do
		stat=gone
		read -r stat </proc/$1/stat 2>/dev/null || true
		stat=${stat##*) }
		case ${stat%% *} in
		Z|gone) run_status wait $1; return 0 ;;
		esac
		sleep 0.05
	done
	echo "process $1 did not end in ${2:-30} s: killed"
	kill -KILL $1
	wait $1 || true
	return 1
}
