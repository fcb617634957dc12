#!/bin/bash
# sampler-export --format csv: one row per thread-sample and thread exit
# (CSV v2 in docs/EXPORT.md), the energy attribution rule, and --symbols
# resolving PCs with elfutils.
. "$(dirname "$0")/lib.sh"

GEN=$BUILD/bench/genprofile

test_expect_success 'CSV has the comment lines, the header row and one row per thread-sample' '
	"$GEN" p.prof 4000 4 >gen.out &&
	"$EXPORT" --format csv -o p.csv p.prof &&
	expect_eq "# sampler csv v2" "$(sed -n 1p p.csv)" "first line" &&
	expect_grep "^# host hostname=genhost os_release=6.1.0-gen os_version=#1%20SMP arch=x86_64 cpu_desc=Synthetic%20CPU%20@%201.00GHz cpu_id=GenuineIntel%2C6%2C85%2C4 nr_cpus_online=2 nr_cpus_avail=2 total_mem_kb=4000000 sampler_version=0.1.0 cmdline=sampler%20-f%201000" p.csv &&
	expect_grep "^# channel index=0 name=package-0 source=rapl unit=uJ scale=1e-06 kind=energy scope=sample$" p.csv &&
	expect_grep "^# channel index=1 name=instructions source=perf unit= scale=1 kind=counter scope=thread$" p.csv &&
	expect_grep "^# process pid=[0-9]* ppid=0 comm=genprofile argv=./genprofile%204000$" p.csv &&
	expect_eq "time_ns,pid,tid,kind,pc,cpu_delta_ns,wall_delta_ns,package-0,instructions,package-0:var" \
		"$(grep -v "^#" p.csv | head -1)" "header row" &&
	expect_eq 4000 "$(grep -v "^#" p.csv | tail -n +2 | wc -l)" "rows (thread-samples)" &&
	expect_grep "^# stats wall=1000000000 .* samples=1000 thread_samples=4000 " p.csv &&
	expect_eq "# stats" "$(tail -1 p.csv | cut -c1-7)" "last line"
'

test_expect_success 'CSV columns: times, CPU deltas, energy shares and counter deltas add up' '
	grep -v "^#" p.csv | tail -n +2 >rows &&
	expect_eq "1000000,sample,1000000" "$(head -1 rows | cut -d, -f1,4,7)" "first time_ns, kind and wall delta" &&
	expect_eq 4000 "$(awk -F, "\$4 == \"sample\"" rows | wc -l)" "sample rows" &&
	expect_eq 2880000000 "$(awk -F, "{ s += \$6 } END { printf \"%.0f\", s }" rows)" "sum of cpu_delta_ns" &&
	expect_near 1007979 "$(awk -F, "{ s += \$8 } END { printf \"%.3f\", s }" rows)" 0.01 "energy column sum (uJ)" &&
	expect_eq 3200000 "$(awk -F, "{ s += \$9 } END { printf \"%.0f\", s }" rows)" "instructions deltas"
'

test_expect_success 'energy of an interval where no thread ran is split equally (end rule)' '
	# sample 5 (time 5 ms) is idle: 1004 uJ over 4 threads that used no CPU
	"$EXPORT" --format csv --energy-rule end -o end.csv p.prof &&
	grep -v "^#" end.csv >end.rows &&
	expect_eq "0:251 0:251 0:251 0:251" \
		"$(awk -F, "\$1 == 5000000 { printf \"%s:%s \", \$6, \$8 }" end.rows | sed "s/ $//")" \
		"cpu_delta:energy per thread" &&
	expect_eq "900000:250.75 900000:250.75 900000:250.75 900000:250.75" \
		"$(awk -F, "\$1 == 4000000 { printf \"%s:%s \", \$6, \$8 }" end.rows | sed "s/ $//")" \
		"cpu_delta:energy per thread of a busy sample"
'

test_expect_success '--symbols names the DSO and the function of each PC' '
	"$EXPORT" --format csv --symbols -o s.csv p.prof &&
	grep -v "^#" s.csv >srows &&
	expect_eq "time_ns,pid,tid,kind,pc,cpu_delta_ns,wall_delta_ns,package-0,instructions,package-0:var,dso,symbol" \
		"$(head -1 srows)" "header row" &&
	for f in hot_a hot_b hot_c; do
		want=$(awk -v f=$f "\$1 == \"expect\" && \$2 == f { sub(/wall=/, \"\", \$4); print \$4 * 40 }" gen.out)
		expect_eq "$want" "$(grep -c ",$GEN,$f\$" srows)" "rows in $f" || exit 1
	done &&
	expect_eq 4000 "$(grep -c ",$GEN,hot_[abc]\$" srows)" "rows symbolized"
'

test_expect_success 'a symbolized PC lies at the symbol'"'"'s address in the PIE (load bias applied)' '
	a=$(nm "$GEN" | awk "\$3 == \"hot_a\" { print \$1 }") &&
	pc=$(grep ",hot_a\$" srows | head -1 | cut -d, -f5) &&
	expect_eq "$(printf "%x" $(( (0x$a + 1) & 0xfff )))" "$(printf "%x" $(( pc & 0xfff )))" "page offset of hot_a+1"
'

test_expect_success 'CSV to stdout is the same as to a file' '
	"$EXPORT" --format csv p.prof >stdout.csv &&
	cmp p.csv stdout.csv
'

test_done
