# rebuild-lib.sh - a program that tests build, record and build again
# differently (sourced by t3170-t3172): write_app FILE writes its source,
# in which main spins in work() for 0.3 s (and, given an argument, first
# creates that file: a sign that it started); built with -DPAD="$pad", a
# large pad_fn comes first in .text, so every later function moves.

test_lazy_prereq CC '
	command -v cc >/dev/null || { echo "no C compiler (apt-get install gcc)"; exit 1; }
'

write_app() {
	cat >"$1" <<-\EOF
	#include <stdio.h>
	#include <time.h>
	#ifdef PAD
	volatile long pad_sink;
	void pad_fn(void) { for (long i = 0; i < 1000; i++) pad_sink += i * 3 + pad_sink / 7; PAD }
	#endif
	static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }
	__attribute__((noinline)) long work(double s) { long x = 1; double end = now() + s; while (now() < end) for (int i = 0; i < 1000; i++) x = x * 7 + i; return x; }
	int main(int argc, char **argv) { if (argc > 1) fclose(fopen(argv[1], "w")); return work(0.3) == 42; }
	EOF
}

# functions FOLDED: the function names of a folded export, one a line.
functions() {
	tr ";" "\n" <"$1" | sed "s/ [0-9]*$//" | sort -u
}

pad=$(printf "pad_sink += pad_sink %% 3; %.0s" $(seq 200))
