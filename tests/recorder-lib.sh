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
