# export-lib.sh - helpers the export tests (t3*) share; source after lib.sh.

# record_fake_rapl WATTS SECONDS SAMPLER-OPTION... -- COMMAND...: record
# COMMAND with a fake RAPL package ($TRASH/sys) that gains WATTS for
# SECONDS while the recording runs: COMMAND runs behind a shell that waits
# for the test's word, the fake runs once the recording has begun, and the
# word comes when it is done.  So every uJ the fake adds (rapl.log) lies
# between the first and the last reading, whatever the load does to the
# fake's pace: the profile's energy total must be what the fake added.
record_fake_rapl() {
	local watts=$1 seconds=$2 opts= n=0 rec
	shift 2
	while [ "$1" != -- ]; do opts="$opts $1"; shift; done
	shift
	rm -f ready gate && mkfifo gate &&
	/usr/bin/python3 "$ROOT/tests/fakes/fake-powercap.py" make sys --packages 1 || return 1
	SAMPLER_SYSFS_ROOT=$TRASH/sys "$SAMPLER" $opts -- \
		sh -c '"$@" & echo >ready; read go <gate; wait $!' sh "$@" &
	rec=$!
	until [ -e ready ]; do
		n=$((n + 1)) && [ $n -lt 400 ] || { echo "the recording did not start in 20 s"; return 1; }
		sleep 0.05
	done
	/usr/bin/python3 "$ROOT/tests/fakes/fake-powercap.py" run sys --rate intel-rapl:0=$watts \
		--seconds $seconds --step-ms 1 --settle-ms 50 --log rapl.log &&
	timeout 20 sh -c 'echo go >gate' &&
	wait $rec
}

# fake_energy_holds PROFILE WATTS SECONDS: what the fake added is WATTS x
# SECONDS, and the profile's energy total (stats) is that, within 1%.
fake_energy_holds() {
	local added total
	added=$(sed -n "s/^zone=intel-rapl:0 added=\([0-9]*\) .*/\1/p" rapl.log) &&
	total=$("$BUILD/sampler-profile" dump "$1" | sed -n "s/^stats .* totals=\([0-9.]*\).*/\1/p") &&
	expect_eq "$(awk -v w="$2" -v s="$3" 'BEGIN { printf "%d", w * s * 1e6 }')" "$added" "uJ the fake added ($2 W for $3 s)" &&
	expect_near "$added" "$total" "$((added / 100))" "energy total of $1 (uJ)"
}

# fake_power_holds PROFILE WATTS: a recording with the fake power PMU
# (tests/fakes/fake-power-pmu.sh: the CPU clock, exactly WATTS) read, from
# its first sample to its last, WATTS times the time between them, within
# 1% (the sample times are the sampler's clock, the energy the kernel's).
# The first sample's reading is left out: it covers the time since the
# plug-in's baseline reading, which comes before the profile's first
# record (~47 ms) and is not recorded; the total must hold that reading
# and the rest, no more.
fake_power_holds() {
	local first rest span total
	"$BUILD/sampler-profile" dump "$1" >"$1.power.txt" &&
	awk '$1 == "sample" { t = substr($2, 6); v = substr($4, 8) + 0
		if (n++ == 0) { t0 = t; v0 = v } else { s += v } }
		END { if (n > 1) printf "%.3f %.3f %.3f\n", v0, s, (t - t0) / 1e3 }' "$1.power.txt" >"$1.power" &&
	read first rest span <"$1.power" &&
	total=$(sed -n "s/^stats .* totals=\([0-9.]*\).*/\1/p" "$1.power.txt") &&
	echo "$1: energy $total uJ: first reading $first uJ, then $rest uJ over $span us between the first and last sample" &&
	expect_near "$(awk -v w="$2" -v s="$span" 'BEGIN { printf "%.0f", w * s }')" "$rest" \
		"$(awk -v w="$2" -v s="$span" 'BEGIN { printf "%.0f", w * s / 100 }')" \
		"uJ read after the first sample at $2 W" &&
	expect_near "$(awk -v a="$first" -v b="$rest" 'BEGIN { printf "%.0f", a + b }')" "$total" 1 "energy total of $1 (uJ)"
}

# perf report --stdio --sort symbol: the share (%) of SYMBOL in EVENT.
# (perf report lists no row for a symbol without weight in an event: 0 then;
# an event the report does not have gives nothing, which every check fails)
share() {	# report-file event symbol
	awk -v ev="$2" -v sym="$3" '
		/^# Samples:/ { split($0, q, "\047"); cur = q[2]; seen = seen || cur == ev }
		cur == ev && $2 == "[.]" && $3 == sym { sub(/%/, "", $1); print $1; found = 1; exit }
		END { if (seen && !found) print 0 }
	' "$1"
}

# LOAD segments of an ELF as /proc/PID/maps lines would show them at BASE:
# "start len pgoff prot" (hex, prot like r-x).
load_maps() {	# elf base
	readelf -lW "$1" | grep "^ *LOAD" | while read -r type off va pa fsz msz rest; do
		local flags=${rest% *} s e
		s=$(( $2 + va - va % 4096 ))
		e=$(( $2 + va + msz ))
		e=$(( e + (4096 - e % 4096) % 4096 ))
		printf "0x%x 0x%x 0x%x %s%s%s\n" $s $(( e - s )) $(( off - off % 4096 )) \
			"$(case $flags in *R*) echo r;; *) echo -;; esac)" \
			"$(case $flags in *W*) echo w;; *) echo -;; esac)" \
			"$(case $flags in *E*) echo x;; *) echo -;; esac)"
	done
}

map_lines() {	# pid elf base
	local dev ino
	dev=$(stat -c "%Hd:%Ld" "$2" | awk -F: "{ printf \"%02x:%02x\", \$1, \$2 }")
	ino=$(stat -c %i "$2")
	load_maps "$2" "$3" | while read -r start len pgoff prot; do
		echo "map pid=$1 time=1000000000 start=$start len=$len pgoff=$pgoff dev=$dev inode=$ino prot=$prot path=$2"
	done
}

sym_addr() {	# elf symbol [nm option]: its address (hex, no 0x); fails if none
	local a
	a=$(nm ${3:-} "$1" | awk -v s="$2" '{ sub(/@.*/, "", $3) } $3 == s { print $1; exit }')
	[ -n "$a" ] && echo "$a"
}
