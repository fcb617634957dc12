# bench/lib.sh - what the bench scripts share (sourced).

median() {	# numbers on stdin
	sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print "-" }'
}

runtime() {	# file with the workload's output
	sed -n 's/^runtime_s=//p' "$1"
}
