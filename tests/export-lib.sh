# export-lib.sh - helpers the export tests (t3*) share; source after lib.sh.

# perf report --stdio --sort symbol: the share (%) of SYMBOL in EVENT.
share() {	# report-file event symbol
	awk -v ev="$2" -v sym="$3" '
		/^# Samples:/ { split($0, q, "\047"); cur = q[2] }
		cur == ev && $2 == "[.]" && $3 == sym { sub(/%/, "", $1); print $1; exit }
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
