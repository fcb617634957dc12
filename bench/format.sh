#!/bin/sh
# bench/format.sh - the profile format: size per thread-sample and reading
# speed, native (plain, bzip2) side by side with the original pperf layout.
# Synthetic steady runs (tests/format/profile-synth.c): 1 kHz, 5-65 us stop
# latency, a few hot PCs, CPU deltas of 0.94-1 ms.
BUILD=${BUILD:-build}
SYNTH=$BUILD/tests/profile-synth
PROFILE=$BUILD/sampler-profile
dir=$(mktemp -d "${TMPDIR:-/tmp}/sampler-bench-format.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT

value_of() {	# key line
	printf '%s\n' "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"
}

printf '%-8s %12s %12s %12s %14s %14s %14s\n' threads "native B/ts" "bz2 B/ts" "pperf B/ts" \
	"native ts/s" "bz2 ts/s" "pperf ts/s"
for threads in 1 4 16 64; do
	samples=$((400000 / threads))
	"$SYNTH" write "$dir/p" $threads $samples >/dev/null || exit 1
	"$PROFILE" dump "$dir/p" >"$dir/t" &&
	"$PROFILE" build "$dir/p.bz2" <"$dir/t" &&
	"$PROFILE" build --format pperf "$dir/p.pperf" <"$dir/t" || exit 1
	ts=$((samples * threads))
	row="$threads"
	for f in p p.bz2 p.pperf; do
		row="$row $(awk -v b="$(stat -c %s "$dir/$f")" -v n=$ts 'BEGIN { printf "%.2f", b / n }')"
	done
	for f in p p.bz2 p.pperf; do
		row="$row $(value_of thread_samples_per_second "$("$SYNTH" read "$dir/$f")")"
	done
	printf '%-8s %12s %12s %12s %14s %14s %14s\n' $row
done
