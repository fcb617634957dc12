#!/bin/sh
# bench/realprogs.sh - issue 41 on real programs, with perf's own recording
# of the same program as the oracle.  Each program runs three times:
#   perf      perf record -e cpu-clock:u -F 1000 --call-graph dwarf
#   after     sampler -g -f 1000 (per-thread cpu-clock samples, the default)
#   before    sampler -g -f 1000 --no-cpu-clock (CPU charged where the
#             synchronous samples saw each thread)
# and prints, as markdown:
#   top-5     the 5 functions of most self CPU (ours after / perf), and the
#             largest difference of their shares (points)
#   waits     self CPU share of futex/epoll/poll/cond-wait/nanosleep leaves
#             (item 1: a bursty thread's CPU where it ran; perf's is ~0)
#   unknown-map  CPU share under a [truncated: unknown-map] marker (item 3:
#             JIT code), and under any marker (copy-short: the stack needed
#             more than the copy holds, perf's own 8 KB limit too)
#   MPI       share of the stacks through PMPI_Allreduce, in
#             mca_coll_tuned.so a library dlopen()ed at MPI_Init (item 2)
#   inline    a C++ hot function forced inline: its share as a
#             "NAME (inlined)" frame, with --no-inline, and perf report
#             --inline's (item 4)
# A program that is absent is skipped, saying why; REALPROGS="xz node"
# runs only those (names as in the table; "inline" the C++ one).  Timings
# are noisy on a loaded machine: the shares are what the table quotes.
# Prints, never fails.
cd "$(dirname "$0")/.." || exit 1
ROOT=$PWD
SAMPLER=$ROOT/build/sampler
EXPORT=$ROOT/build/sampler-export
OUT=${TMPDIR:-/tmp}/sampler-bench-real.$$
mkdir -p "$OUT" || exit 1
trap 'rm -rf "$OUT"' EXIT

. bench/lib.sh

WAITS='(futex|epoll_p?wait|cond_[a-z]*wait|lll_lock_wait|sem_[a-z]*wait|nanosleep|^__?poll$|^ppoll|wait4|^__?select$|sched_yield)'
HZ=1000

have_perf() {
	command -v perf >/dev/null &&
		perf record -q -e cpu-clock:u --call-graph dwarf -o "$OUT/probe.data" true >/dev/null 2>&1
}

# inputs NAME: what the programs work on, made in $OUT
inputs() {
	awk 'BEGIN { srand(7); for (i = 0; i < 40000; i++) {
		printf "%d the quick %x brown fox %s\n", i, int(rand() * 1e6), (rand() < 0.5 ? "jumps" : "naps") } }' \
		>"$OUT/text"
	awk 'BEGIN { for (i = 0; i < 200; i++) {
		printf "static int t%d[64];\nint f%d(int x) {\n", i, i
		printf "\tfor (int j = 0; j < 64; j++) t%d[j] = x * j + %d;\n", i, i
		printf "\tint s = 0;\n\tfor (int j = 0; j < 64; j++) s += t%d[j] %% (j + 1);\n\treturn s;\n}\n", i } }' \
		>"$OUT/gen.c"
	cat >"$OUT/q.sql" <<'SQL'
CREATE TABLE t(a INTEGER, b TEXT, c REAL);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 300000)
INSERT INTO t SELECT i, hex(i * 7919 % 100003), i * 0.5 FROM n;
CREATE INDEX tb ON t(b);
SELECT count(*), sum(c) FROM t WHERE b LIKE '%A%';
SELECT a % 97, count(*), avg(c) FROM t GROUP BY a % 97 ORDER BY 3 DESC LIMIT 3;
SELECT count(*) FROM t x JOIN t y ON x.b = y.b WHERE x.a < 100000;
SQL
	cat >"$OUT/loop.py" <<'PY'
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)
d = {}
for i in range(1000000):
    d[i % 1000] = d.get(i % 1000, 0) + i * i
print(fib(27), len(d))
PY
	cat >"$OUT/work.js" <<'JS'
function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
let m = new Map(), s = 0;
for (let i = 0; i < 400000; i++) { m.set('k' + (i % 5000), i); s += i % 7; }
const t = setInterval(() => { s += fib(20); }, 2);
console.log(fib(34), m.size, s);
setTimeout(() => clearInterval(t), 300);
JS
	cat >"$OUT/Work.java" <<'JAVA'
public class Work {
	static int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
	public static void main(String[] a) {
		java.util.HashMap<Integer, Long> m = new java.util.HashMap<>();
		long s = 0;
		for (int i = 0; i < 2000000; i++) { m.merge(i % 4096, (long) i, Long::sum); }
		for (int i = 0; i < 3; i++) s += fib(35);
		System.out.println(s + " " + m.size());
	}
}
JAVA
	cat >"$OUT/allreduce.c" <<'C'
#include <mpi.h>
#include <stdio.h>
#define N 4096
static double v[N], r[N];
int main(int argc, char **argv)
{
	int rank;
	double s = 0;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	for (int it = 0; it < 3000; it++) {
		for (int i = 0; i < N; i++)
			v[i] = (double)(i * it % 101) / (rank + 1) + s * 1e-9;
		MPI_Allreduce(v, r, N, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
		s += r[it % N];
	}
	printf("rank=%d s=%g\n", rank, s);
	MPI_Finalize();
	return 0;
}
C
	cat >"$OUT/hot.cc" <<'CC'
#include <cstdio>
#include <vector>
struct Json { std::vector<double> v; };
static inline __attribute__((always_inline)) double json_round(const double *v, int n, int k)
{
	double s = k;
	for (int i = 0; i < n; i++)
		s += (double)(long)(v[i] * 1000.5 + 0.5) / 1000.0;
	return s;
}
double parse(const Json &j, int k);
__attribute__((noinline)) double parse(const Json &j, int k)
{
	int n = (int)j.v.size();
	double t = json_round(j.v.data(), n, k);
	for (int i = 0; i < n / 4; i++)
		t += j.v[i] * j.v[(i * 7 + k) % n];
	return t;
}
int main()
{
	Json j;
	double t = 0;
	for (int i = 0; i < 4096; i++)
		j.v.push_back(i * 0.37);
	for (int k = 0; k < 100000; k++)
		t += parse(j, k);
	std::printf("%g\n", t);
	return 0;
}
CC
}

# record NAME COMMAND...: perf.data, after.prof, before.prof of COMMAND
# (the commands run in $OUT); their folded stacks without inlined frames.
record() {
	name=$1
	shift
	if [ -n "$PERF" ]; then
		(cd "$OUT" && perf record -q -e cpu-clock:u -F $HZ --call-graph dwarf \
			-o "$name.data" -- "$@" >/dev/null 2>"$name.perf.err")
		perf_fold "$OUT/$name.data" >"$OUT/$name.perf"
	fi
	(cd "$OUT" && "$SAMPLER" -g -f $HZ -o "$name.after.prof" -- "$@" >/dev/null 2>"$name.err")
	(cd "$OUT" && "$SAMPLER" -g -f $HZ --no-cpu-clock -o "$name.before.prof" -- "$@" \
		>/dev/null 2>>"$name.err")
	for v in after before; do
		"$EXPORT" --format folded --no-inline -o - "$OUT/$name.$v.prof" 2>/dev/null >"$OUT/$name.$v"
	done
}

# diff_top NAME: "top-5 (ours / perf)" and the largest difference (points)
diff_top() {
	fold_top "$OUT/$1.after" 5 >"$OUT/top"
	top="" max=0
	while read -r share fn; do
		p=-
		[ -s "$OUT/$1.perf" ] && p=$(fold_self "$OUT/$1.perf" "$fn")
		top="$top$(echo "$fn" | sed "s|$OUT/||; s/^\(.\{38\}\).\{4,\}/\1.../") $share/$p, "
		[ "$p" = - ] || max=$(awk -v a="$share" -v b="$p" -v m="$max" \
			'BEGIN { d = a - b; if (d < 0) d = -d; print (d > m ? d : m) }')
	done <"$OUT/top"
	[ -s "$OUT/$1.perf" ] || max=-
	printf "%s | %s" "${top%, }" "$max"
}

# row NAME: one line of the table
row() {
	n=$1
	[ -s "$OUT/$n.after" ] || { echo "| $n | (no profile: $(head -1 "$OUT/$n.err")) ||||||||"; return; }
	pw=-
	[ -s "$OUT/$n.perf" ] && pw=$(fold_leaf "$OUT/$n.perf" "$WAITS")
	printf "| %s | %s | %s | %s | %s | %s | %s | %s |\n" "$n" "$(diff_top "$n")" \
		"$(fold_leaf "$OUT/$n.before" "$WAITS")" "$(fold_leaf "$OUT/$n.after" "$WAITS")" "$pw" \
		"$(fold_under "$OUT/$n.before" '^\\[truncated: unknown-map')" \
		"$(fold_under "$OUT/$n.after" '^\\[truncated: unknown-map')" "$(fold_under "$OUT/$n.after" '^\\[truncated')"
}

# absent PROGRAM...: say which is missing (and skip); true too for a
# program left out of $REALPROGS (when set: "xz node ...")
absent() {
	case " ${REALPROGS:-$name} " in *" $name "*) ;; *) return 0 ;; esac
	for p; do
		command -v "$p" >/dev/null || { echo "| $name | skipped: $p is not installed ||||||||"; return 0; }
	done
	return 1
}

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) CPUs), $(date -u '+%Y-%m-%d %H:%M UTC')"
PERF=
if have_perf; then PERF=1; else echo "perf record --call-graph dwarf fails here: no oracle column"; fi
inputs
echo
echo "| program | top-5 self CPU % (ours/perf) | max diff | waits before | waits after | waits perf | unknown-map before | unknown-map after | truncated after |"
echo "|---|---|---|---|---|---|---|---|---|"
name=xz; absent xz || { record xz xz -6 -c text; row xz; }
name=zstd; absent zstd || { record zstd zstd -16 -c text; row zstd; }
name=gcc; absent gcc || { record gcc gcc -O2 -c -o gen.o gen.c; row gcc; }
name=sqlite3; absent sqlite3 || { record sqlite3 sh -c 'sqlite3 :memory: <q.sql'; row sqlite3; }
name=python3; absent python3 || { record python3 python3 loop.py; row python3; }
name=node; absent node || { record node node --perf-basic-prof work.js; row node; }
name=java; absent java javac || {
	(cd "$OUT" && javac Work.java) &&
		record java java -XX:+PreserveFramePointer -XX:+UnlockDiagnosticVMOptions \
			-XX:+DumpPerfMapAtExit -cp . Work
	row java
}
name=mpi; absent mpicc mpirun || {
	(cd "$OUT" && mpicc -O2 -g -o allreduce allreduce.c) &&
	mpi="mpirun --allow-run-as-root --oversubscribe -np 2"
	if [ -n "$PERF" ]; then
		(cd "$OUT" && $mpi sh -c 'exec perf record -q -e cpu-clock:u -F 1000 --call-graph dwarf \
			-o mpi.$OMPI_COMM_WORLD_RANK.data ./allreduce' >/dev/null 2>mpi.perf.err)
		for r in 0 1; do perf_fold "$OUT/mpi.$r.data"; done >"$OUT/mpi.perf"
	fi
	for v in after before; do
		opt=; [ $v = before ] && opt=--no-cpu-clock
		(cd "$OUT" && $mpi "$SAMPLER" -g -f $HZ $opt -o "mpi.$v.%r.prof" -- ./allreduce \
			>/dev/null 2>>mpi.err)
		"$EXPORT" --format folded --no-inline -o - "$OUT"/mpi.$v.*.prof 2>/dev/null >"$OUT/mpi.$v"
	done
	row mpi
	MPIROW=1
}

# item 2: the Allreduce stacks, through the dlopen()ed mca_coll_tuned.so
if [ -n "$MPIROW" ]; then
	echo
	echo "| MPI 2 ranks (item 2) | before | after | perf |"
	echo "|---|---|---|---|"
	p=-; [ -s "$OUT/mpi.perf" ] && p=$(fold_under "$OUT/mpi.perf" '^P?MPI_Allreduce$')
	echo "| CPU % under MPI_Allreduce | $(fold_under "$OUT/mpi.before" '^P?MPI_Allreduce$') |" \
		"$(fold_under "$OUT/mpi.after" '^P?MPI_Allreduce$') | $p |"
	p=-; [ -s "$OUT/mpi.perf" ] && p=$(fold_under "$OUT/mpi.perf" '^\\[truncated')
	echo "| CPU % under [truncated | $(fold_under "$OUT/mpi.before" '^\\[truncated') |" \
		"$(fold_under "$OUT/mpi.after" '^\\[truncated') | $p |"
	t='^(ompi_coll_tuned_|\\[mca_coll_tuned)'
	p=-; [ -s "$OUT/mpi.perf" ] && p=$(fold_under "$OUT/mpi.perf" "$t")
	echo "| CPU % under mca_coll_tuned.so's frames | $(fold_under "$OUT/mpi.before" "$t") |" \
		"$(fold_under "$OUT/mpi.after" "$t") | $p |"
fi

# item 4: an always_inline hot function, as perf report --inline shows it
name=inline
echo
echo "| C++ inlined hot function (item 4) | --no-inline (before) | inline (after) | perf --inline |"
echo "|---|---|---|---|"
if ! absent g++; then
	(cd "$OUT" && g++ -O2 -g -o hot hot.cc) && record hot ./hot
	"$EXPORT" --format folded -o - "$OUT/hot.after.prof" 2>/dev/null >"$OUT/hot.inline"
	p=- pp=-
	if [ -n "$PERF" ]; then
		# perf names inline scopes with addr2line, which it gives up on
		# when slow (a loaded machine): the range of three reads
		for i in 1 2 3; do
			perf report -i "$OUT/hot.data" --stdio --no-children --inline --sort symbol \
				-g caller 2>/dev/null >"$OUT/hot.report"
			echo "$(perf_branch "$OUT/hot.report" 'json_round \\(inlined\\)')" \
				"$(perf_branch "$OUT/hot.report" parse)"
		done | sort -n >"$OUT/reads"
		p=$(awk 'NR == 1 { a = $1 } { b = $1 } END { print (a == b ? a : a "-" b) }' "$OUT/reads")
		pp=$(sort -k2,2n "$OUT/reads" | awk 'NR == 1 { a = $2 } { b = $2 } END { print (a == b ? a : a "-" b) }')
	fi
	echo "| CPU % under json_round (inlined) | $(fold_under "$OUT/hot.after" '^json_round') |" \
		"$(fold_under "$OUT/hot.inline" '^json_round \\(inlined\\)$') | $p |"
	echo "| self CPU % of parse (the caller) | $(fold_self "$OUT/hot.after" 'parse(Json const&, int)') |" \
		"$(fold_self "$OUT/hot.inline" 'parse(Json const&, int)') | $pp |"
fi
