#!/bin/sh
# bench/fullmachine.sh - a full machine (issue 47, docs/SCALING.md): the
# recorder with nothing else started, then beside two busy loops (every
# CPU of the 2-CPU VM), as root and as uid 65534, on 1, 4 and 16 busy
# threads (examples/work, the same work in total) at 1 kHz, beside
# `perf record -e cpu-clock` on the same runs.  Each row is the median of
# REPS (default 3) interleaved repetitions: alone, under the sampler,
# under perf, one after the other.  Per row:
#   Hz        achieved rate (perf: its samples / the runtime: it samples
#             only while a thread runs, at 1 kHz of its CPU time)
#   us/samp   mean time the target was held stopped per sample
#   held      share of the time the target was held stopped
#   slowdown  runtime / the same repetition's runtime alone
#   waiting   how the threads waiting for a CPU were taken: carried or
#             stopped (sampler -d); root rows also with
#             --carry-preempted=never, the rule before issue 47
# The load average and the CPU pressure are printed first: on a shared
# machine, compare within a block.  Benchmarks print, never fail.
cd "$(dirname "$0")/.." || exit 1
SAMPLER=$PWD/build/sampler
WORK=$PWD/build/examples/work
REPS=${REPS:-3}
UNITS=${UNITS:-20}
OUT=$(mktemp -d "${TMPDIR:-/tmp}/sampler-fullmachine.XXXXXX") || exit 1
LOOPS=
trap 'rm -rf "$OUT"; [ -n "$LOOPS" ] && kill $LOOPS 2>/dev/null' EXIT
chmod 1777 "$OUT"
NOBODY="setpriv --reuid=65534 --regid=65534 --clear-groups --"

. bench/lib.sh

if [ ! -x "$SAMPLER" ] || [ ! -x "$WORK" ]; then
	echo "build first: make"
	exit 1
fi
have_perf=1
perf record -e cpu-clock -o "$OUT/probe" -- true >/dev/null 2>&1 || have_perf=0
as_nobody=0
[ "$(id -u)" = 0 ] && $NOBODY test -x "$SAMPLER" && as_nobody=1

# one KIND USER N [OPTION]: one run, "hz held_us held_pct runtime
# waiting" appended to $OUT/KIND
one() {
	kind=$1 user=$2 n=$3 opt=${4:-}
	prefix=
	[ "$user" = nobody ] && prefix=$NOBODY
	units=$(awk -v n="$n" -v u="$UNITS" 'BEGIN { printf "%.2f", u / n }')
	case $kind in
	alone)	$prefix "$WORK" "$n" "$units" >"$OUT/o" 2>"$OUT/e" ;;
	sampler*) $prefix "$SAMPLER" -d -f 1000 $opt -o "$OUT/p.$user" -- "$WORK" "$n" "$units" >"$OUT/o" 2>"$OUT/e" ;;
	perf)	$prefix perf record -e cpu-clock -F 1000 -o "$OUT/perf.$user.data" -- "$WORK" "$n" "$units" \
			>"$OUT/o" 2>"$OUT/e" ;;
	esac
	rt=$(runtime "$OUT/o")
	hz=$(sed -n 's/.*Hz target, \([0-9.]*\) Hz achieved.*/\1/p' "$OUT/e")
	held=$(sed -n 's/.*s total, \([0-9.]*\) us per sample.*/\1/p' "$OUT/e")
	pct=$(sed -n 's/.*target held stopped \([0-9.]*\)% of the time$/\1/p' "$OUT/e")
	carried=$(sed -n 's/^sampler: threads waiting for a CPU: \([a-z]*\).*/\1/p' "$OUT/e")
	perfs=$(sed -n 's/.*(\([0-9]*\) samples).*/\1/p' "$OUT/e")
	[ "$kind" = perf ] && [ -n "$perfs" ] &&
		hz=$(awk -v s="$perfs" -v t="$rt" 'BEGIN { if (t > 0) printf "%.0f", s / t }')
	echo "${hz:--} ${held:--} ${pct:--} ${rt:--} ${carried:--}" >>"$OUT/$kind"
}

col() {	# KIND COLUMN: the median of a column
	awk -v c="$2" '$c != "-" { print $c }' "$OUT/$1" | median
}

slowdown() {	# KIND: the median of runtime / alone's, repetition by repetition
	paste -d" " "$OUT/$1" "$OUT/alone" |
		awk '$4 != "-" && $9 > 0 { printf "%.2f\n", $4 / $9 }' | median
}

# row LOAD USER N KIND [PERF]: one line of the table
row() {
	printf "  %-12s %-11s %3d %8s %9s %6s%% %8sx %-8s" "$1" "$2" "$3" "$(col "$4" 1)" \
		"$(col "$4" 2)" "$(col "$4" 3)" "$(slowdown "$4")" "$(col "$4" 5)"
	if [ -n "${5:-}" ]; then
		printf " %8s %8sx\n" "$(col perf 1)" "$(slowdown perf)"
	else
		echo
	fi
}

# block LOAD USER: the rows of 1, 4 and 16 threads
block() {
	for n in 1 4 16; do
		rm -f "$OUT/alone" "$OUT/sampler" "$OUT/sampler.never" "$OUT/perf"
		for r in $(seq "$REPS"); do
			one alone "$2" $n
			one sampler "$2" $n
			[ "$2" = root ] && one sampler.never "$2" $n --carry-preempted=never
			[ $have_perf = 1 ] && one perf "$2" $n
		done
		if [ $have_perf = 1 ]; then row "$1" "$2" $n sampler perf; else row "$1" "$2" $n sampler; fi
		[ "$2" = root ] && row "$1" "$2 =never" $n sampler.never
	done
}

users="root"
[ $as_nobody = 1 ] && users="root nobody"
[ "$(id -u)" != 0 ] && users=$(id -un)
echo "full machine; $(nproc) CPUs; load average $(cut -d" " -f1-3 /proc/loadavg);" \
	"CPU pressure $(sed -n 's/^some avg10=\([0-9.]*\).*/\1/p' /proc/pressure/cpu 2>/dev/null)% (some, avg10)"
echo "  work: $UNITS million units in all at 1 kHz, $REPS interleaved repetitions, medians"
printf "  %-12s %-11s %3s %8s %9s %7s %9s %-8s %8s %9s\n" load user thr Hz us/samp held slowdown waiting \
	"perf Hz" "perf slow"
for load in none "2 busy loops"; do
	if [ "$load" != none ]; then
		for i in 1 2; do
			sh -c 'while :; do :; done' &
			LOOPS="$LOOPS $!"
		done
		sleep 1
	fi
	for u in $users; do
		block "$load" "$u"
	done
	[ -n "$LOOPS" ] && kill $LOOPS 2>/dev/null
	LOOPS=
done
