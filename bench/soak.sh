#!/bin/bash
# bench/soak.sh - `make soak`: the sampler under load, for minutes; prints
# figures (docs/RELIABILITY.md keeps them), asserts nothing.
#   1. thread churn: 1000 threads created and destroyed per second for 10 s;
#      every thread that lived longer than 2 sample periods must appear in a
#      sample taken while it lived (matched by tid and time)
#   2. 512 concurrent busy threads at 1 kHz for 30 s: achieved frequency,
#      stop latency
#   3. one thread at 10 kHz for 60 s: the sampler's resident size, sampled
#      every second, and whether the profile is complete
#   4. process churn: the sampler's peak resident size while a shell runs
#      /bin/true 1,000 and 20,000 times (flat: within 2 MB)
# SOAK_SCALE=0.1 shortens every run tenfold (a quick try of the script).
# Runs only with SAMPLER_SOAK=1 (make soak sets it).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
# bench/run runs every bench/*.sh; the soak takes minutes, so only on demand.
if [ "${SAMPLER_SOAK:-}" != 1 ]; then
	echo "soak: skipped (it runs for minutes; make soak runs it)"
	exit 0
fi
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
SAMPLER=$BUILD/sampler
DUMP="$BUILD/sampler-profile dump"
HW=$BUILD/tests/hardening
SCALE=${SOAK_SCALE:-1}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/sampler-soak.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
cd "$WORK" || exit 1

secs() { awk -v s="$1" -v k="$SCALE" 'BEGIN { printf "%g", s * k }'; }

# debug_field ERRFILE PATTERN: the line of sampler -d output matching PATTERN.
debug_line() { grep -m1 -- "$2" "$1" | sed 's/^sampler: //'; }

# stat_field TEXT KEY: a field of the dump's stats line.
stat_field() {
	awk -v k="$2=" '$1 == "stats" { for (i = 2; i <= NF; i++) if (index($i, k) == 1) print substr($i, length(k) + 1) }' "$1"
}

# run_limited SECONDS CMD...: the command, killed after SECONDS (a hang).
run_limited() {
	local limit=$1
	shift
	timeout --signal=KILL "$limit" "$@"
}

churn() {
	local s rc
	s=$(secs 10)
	echo "--- 1. thread churn: 1000 threads/s for $s s, sampled at 1 kHz"
	run_limited 300 "$SAMPLER" -d -f 1000 -o churn.prof -- "$HW/hw-churn" 1000 "$s" lives.log \
		>churn.out 2>churn.err
	rc=$?
	echo "status $rc ($( [ $rc = 137 ] && echo "HANG: killed after 300 s" || echo "no hang"))"
	cat churn.out
	$DUMP churn.prof >churn.txt
	echo "dump status $? (0: complete)"
	# tid time: every thread-sample
	awk '$1 == "sample" { split($2, kv, "="); t = kv[2] }
	     $1 == "ts" { split($2, kv, "="); print kv[2], t }' churn.txt >seen
	# a thread is found when sampled within its own life [start, end]
	awk -v min=2000000 'NR == FNR { at[$1] = at[$1] " " $2; next }
		{ life = $3 - $2; if (life <= min) { short++; next }
		  long++; n = split(at[$1], ts, " "); ok = 0
		  for (i = 1; i <= n; i++) if (ts[i] >= $2 && ts[i] <= $3) { ok = 1; break }
		  if (ok) found++; else { lost++; if (lost <= 5) print "lost: tid " $1 " lived " life / 1e6 " ms" } }
		END { printf "threads: %d lived > 2 periods, %d of them sampled, %d lost; %d shorter\n",
		      long, found, lost, short }' seen lives.log
	debug_line churn.err "frequency:"
	debug_line churn.err "stop latency:"
	debug_line churn.err "threads:"
}

many() {
	local s rc
	s=$(secs 30)
	echo "--- 2. 512 busy threads at 1 kHz for $s s"
	run_limited 600 "$SAMPLER" -d -f 1000 -o many.prof -- "$ROOT/build/examples/threads" 512 "$s" \
		>many.out 2>many.err
	rc=$?
	echo "status $rc; the workload says: $(tr "\n" " " <many.out)"
	debug_line many.err "wall time:"
	debug_line many.err "frequency:"
	debug_line many.err "stop latency:"
	debug_line many.err "threads:"
	debug_line many.err "profile:"
	$DUMP many.prof >many.txt
	echo "dump status $? (0: complete); samples $(stat_field many.txt samples)," \
		"thread-samples $(stat_field many.txt thread_samples)"
}

# RSS of a process every second until it ends; "SECOND KB" lines.
watch_rss() {
	local pid=$1 t=0
	while kill -0 "$pid" 2>/dev/null; do
		kb=$(awk '$1 == "VmRSS:" { print $2 }' "/proc/$pid/status" 2>/dev/null)
		[ -n "$kb" ] && echo "$t $kb"
		sleep 1
		t=$((t + 1))
	done
}

fast() {
	local s rc pid
	s=$(secs 60)
	echo "--- 3. one thread at 10 kHz for $s s: sampler memory"
	"$SAMPLER" -d -f 10000 -o fast.prof -- "$ROOT/build/examples/busy" "$s" >fast.out 2>fast.err &
	pid=$!
	watch_rss $pid >rss.log
	wait $pid
	rc=$?
	echo "status $rc"
	awk 'NR == 1 { first = $2 } $1 == 1 { base = $2 } $1 >= 1 { if ($2 > max) max = $2; last = $2 }
	     END { printf "sampler VmRSS: %d KiB at start, %d KiB after 1 s, %d KiB max after, %d KiB at the end; growth after the first second %d KiB (limit 1024)\n",
	           first, base, max, last, max - base }' rss.log
	debug_line fast.err "frequency:"
	debug_line fast.err "stop latency:"
	debug_line fast.err "profile:"
	$DUMP fast.prof >fast.txt
	echo "dump status $? (0: complete); sample records $(grep -c '^sample ' fast.txt)," \
		"stats samples $(stat_field fast.txt samples)"
}

# peak_kib N: the sampler's peak resident size (KiB) over a shell that
# runs /bin/true N times; also checks every process was recorded.
peak_kib() {
	local kib
	kib=$("$HW/hw-maxrss" "$SAMPLER" -f 1000 -o procs.prof -- \
		sh -c "i=0; while [ \$i -lt $1 ]; do /bin/true; i=\$((i + 1)); done" |
		sed -n 's/^maxrss_kib=//p')
	$DUMP procs.prof >procs.txt
	echo "$kib $(stat_field procs.txt processes)"
}

processes() {
	local small large n
	n=$(awk -v k="$SCALE" 'BEGIN { printf "%d", 20000 * k }')
	echo "--- 4. process churn: sampler peak memory at 1000 and $n processes"
	small=$(peak_kib 1000)
	large=$(peak_kib "$n")
	echo "sampler peak RSS: ${small% *} KiB at 1000 processes (${small#* } recorded)," \
		"${large% *} KiB at $n (${large#* } recorded); difference" \
		"$((${large% *} - ${small% *})) KiB (limit 2048)"
}

echo "sampler soak: $(nproc) CPUs, $(uname -r), $(date -u +%FT%TZ)"
churn
many
fast
processes
