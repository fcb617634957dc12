#!/bin/bash
# Started with stdin, stdout or stderr closed (issue 11 #7, docs/RELIABILITY.md
# "Adversarial scenarios"): sampler and sampler-export open /dev/null on the
# closed ones first thing, so that no file they open later (the profile, a
# meter's socket, an output) gets number 2 and receives their diagnostics.
# The target still starts with the descriptors it was given.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/recorder-lib.sh"
. "$ROOT/tests/pmu/pmu-lib.sh"

# wait_for_link PID FD: until /proc/PID/fd/FD exists (at most 20 s); prints
# where it points.
wait_for_link() {
	for i in $(seq 400); do
		readlink /proc/$1/fd/$2 && return 0
		sleep 0.05
	done
	echo "no descriptor $2 in process $1 after 20 s"
	return 1
}

test_expect_success 'stdin and stderr closed: a warning does not land in the profile' '
	# The powercap tree is emptied mid-run: the sampler warns at the end
	# that readings were missing, while the profile is still open.
	$PY "$FAKES/fake-powercap.py" make tree &&
	run_status env SAMPLER_SYSFS_ROOT="$TRASH/tree" "$SAMPLER" --no-latency-qos -f 200 -p rapl -o warned -- \
		sh -c "\"$EXAMPLES/busy\" 0.2; : >tree/class/powercap/intel-rapl:0/energy_uj; \"$EXAMPLES/busy\" 0.2" \
		<&- 2>&- &&
	expect_eq 0 "$rc" "sampler status" &&
	expect_eq 0 "$(grep -ac "sampler: warning" warned)" "warnings inside the profile" &&
	dump warned &&
	expect_ge 1 "$(stat_of warned.txt missing)" "readings missing (the warning had a cause)" &&
	expect_eq 0 "$(stat_of warned.txt exit)" "stats exit"
'

test_expect_success 'the sampler runs with /dev/null on the descriptors it was started without' '
	"$SAMPLER" -o null -- sh -c "for fd in 0 1 2; do readlink /proc/\$PPID/fd/\$fd; done >&3" \
		3>links <&- >&- 2>&- &&
	expect_eq "/dev/null /dev/null /dev/null" "$(echo $(cat links))" "the sampler'"'"'s descriptors 0, 1, 2" &&
	dump null
'

test_expect_success 'the target starts with the descriptors it was given, closed ones too' '
	probe="for fd in 0 1 2; do [ -e /proc/\$\$/fd/\$fd ] && echo \$fd:open || echo \$fd:closed; done >&3"
	sh -c "$probe" 3>alone 2>&- &&
	"$SAMPLER" -- sh -c "$probe" 3>traced 2>&- &&
	expect_eq "0:open 1:open 2:closed" "$(echo $(cat alone))" "alone" &&
	expect_eq "$(echo $(cat alone))" "$(echo $(cat traced))" "under the sampler" &&
	sh -c "$probe" 3>alone <&- >&- &&
	"$SAMPLER" -- sh -c "$probe" 3>traced <&- >&- &&
	expect_eq "$(echo $(cat alone))" "$(echo $(cat traced))" "under the sampler, 0 and 1 closed"
'

test_expect_success 'sampler-export runs with /dev/null on the descriptors it was started without' '
	mkfifo in.fifo &&
	{ "$EXPORT" -o out.data in.fifo <&- 2>&- & } &&
	export=$! &&
	{ link0=$(wait_for_link $export 0) || true; } &&
	{ link2=$(wait_for_link $export 2) || true; } &&
	timeout 20 sh -c ": >in.fifo" &&
	run_status wait $export &&
	expect_eq "/dev/null /dev/null" "$link0 $link2" "the exporter'"'"'s descriptors 0 and 2"
'

test_done
