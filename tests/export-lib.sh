# export-lib.sh - helpers the export tests (t3*) share; source after lib.sh.

# perf report --stdio --sort symbol: the share (%) of SYMBOL in EVENT.
share() {	# report-file event symbol
	awk -v ev="$2" -v sym="$3" '
		/^# Samples:/ { split($0, q, "\047"); cur = q[2] }
		cur == ev && $2 == "[.]" && $3 == sym { sub(/%/, "", $1); print $1; exit }
	' "$1"
}
