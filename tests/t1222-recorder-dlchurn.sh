#!/bin/bash
# Libraries that come and go: examples/dlchurn loads libchurn-a.so and
# libchurn-b.so in turn (the same code under the names churn_burn_a and
# churn_burn_b), each where the other one was, burns 20 ms of CPU time in
# it and unloads it.  Every sample in a library must name that library's
# function, and each function get the share of samples the workload
# measured of its own CPU time: with the maps read only when a PC fell
# outside them all, every sample of libchurn-b.so was named churn_burn_a
# in libchurn-a.so (1689 to 0), and with -g its stacks unwound by a's CFI.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/recorder-lib.sh"

# check_churn CSV OUT: no row of CSV (csv --symbols) names one library's
# function in the other, and the two functions share the samples as the
# workload measured its CPU time (OUT) within 6 points (200 samples or
# more).  (A row in a library may name another of its symbols: its _init,
# run by dlopen.)
check_churn() {
	grep libchurn "$1" >in-libs || true
	awk -F, "\$8 ~ /libchurn-a/ && \$9 == \"churn_burn_b\" || \$8 ~ /libchurn-b/ && \$9 == \"churn_burn_a\"" \
		in-libs >misnamed &&
	head -3 misnamed &&
	expect_eq 0 "$(wc -l <misnamed)" "rows in a library named by the other's function" &&
	a=$(awk -F, "\$9 == \"churn_burn_a\"" in-libs | wc -l) &&
	b=$(awk -F, "\$9 == \"churn_burn_b\"" in-libs | wc -l) &&
	echo "samples: churn_burn_a $a, churn_burn_b $b" &&
	expect_ge 200 "$(($a + $b))" "samples in the libraries" &&
	expect_ge 20 "$(sed -n "s/.* same_base=\([0-9]*\) .*/\1/p" "$2")" "loads where the other library had been" &&
	cpu_a=$(sed -n "s/^cpu_a_ns=\([0-9]*\) .*/\1/p" "$2") &&
	cpu_b=$(sed -n "s/.* cpu_b_ns=\([0-9]*\) .*/\1/p" "$2") &&
	expect_near "$(awk "BEGIN { print $cpu_a / ($cpu_a + $cpu_b) }")" \
		"$(awk "BEGIN { print $a / ($a + $b) }")" 0.06 "churn_burn_a's share of the samples"
}

# The recorder's maps take a mapping as mmap(MAP_FIXED) does: what it
# overlaps is cut away, what is left keeps its file offset.
test_expect_success 'a mapping over others cuts them, keeping their file offsets' '
	"$BUILD/tests/maplist-check" 1000-5000:0:/a 2000-3000:10:/b >split &&
	printf "%s\n" "1000-2000 0 /a" "2000-3000 10 /b" "3000-5000 2000 /a" >want &&
	expect_eq "$(cat want)" "$(cat split)" "one map split by another" &&
	"$BUILD/tests/maplist-check" 1000-2000:0:/a 3000-4000:0:/c 2000-3000:0:/b \
		1800-3200:5:/d 0-800:0:/e >over &&
	printf "%s\n" "0-800 0 /e" "1000-1800 0 /a" "1800-3200 5 /d" "3200-4000 200 /c" >want &&
	expect_eq "$(cat want)" "$(cat over)" "maps replaced, cut at both ends"
'

test_expect_success 'dlopen/dlclose churn: each sample names the library loaded then' '
	"$SAMPLER" -f 200 -o p.prof -- "$EXAMPLES/dlchurn" 60 20 >out &&
	"$EXPORT" --format csv --symbols -o p.csv p.prof &&
	check_churn p.csv out
'

# with -g: every stack through a library function reaches main under it
check_stacks() {
	awk -F, "\$9 ~ /^churn_burn_/" "$1" >burning &&
	awk -F, "{ n = split(\$10, f, \";\"); for (i = 1; i <= n; i++) if (f[i] == \$9) break
		if (i == 1 || f[i - 1] != \"main\") print }" burning >broken &&
	head -3 broken &&
	expect_eq 0 "$(wc -l <broken)" "stacks through churn_burn_* not called from main"
}

test_expect_success 'dlopen/dlclose churn with -g: names and stacks through the library' '
	"$SAMPLER" -g -f 200 -o g.prof -- "$EXAMPLES/dlchurn" 60 20 >out &&
	"$EXPORT" --format csv --symbols -o g.csv g.prof &&
	check_churn g.csv out &&
	check_stacks g.csv
'

test_expect_success NOBODY_CAN_READ 'dlopen/dlclose churn unprivileged (uid 65534), with -g' '
	mkdir nobody && chown $NOBODY:$NOBODY nobody &&
	as_nobody "$SAMPLER" -g -f 200 -o nobody/n.prof -- "$EXAMPLES/dlchurn" 60 20 >out &&
	"$EXPORT" --format csv --symbols -o n.csv nobody/n.prof &&
	check_churn n.csv out &&
	check_stacks n.csv
'

test_done
