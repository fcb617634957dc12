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
# once, and nthreads matches its ts lines.  Prints each problem found.
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
			if (!(t in seen))
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

# one_error_line FILE: the file holds exactly one line, a "sampler: error:".
one_error_line() {
	expect_eq 1 "$(wc -l <"$1")" "stderr lines" &&
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
# schedule (wall time x target frequency) was sampled or counted as missed,
# and sampling went on through the run (at least MIN_HZ).
expect_schedule() {
	local hz wall samples missed ideal
	hz=$(field_values "$1" host target_hz)
	wall=$(stat_of "$1" wall)
	samples=$(records "$1" sample)
	missed=$(stat_of "$1" missed)
	ideal=$(awk -v w="$wall" -v f="$hz" 'BEGIN { print int(w / 1e9 * f) }')
	expect_eq "$(stat_of "$1" samples)" "$samples" "stats samples vs sample records" &&
	expect_near "$ideal" "$((samples + missed))" 2 "samples + missed slots ($hz Hz x wall)" &&
	expect_ge "$(min_samples "$(awk -v w="$wall" 'BEGIN { print w / 1e9 }')")" "$samples" \
		"samples (at least $MIN_HZ Hz over $wall ns)"
}
