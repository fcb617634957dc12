#!/bin/bash
# One profile per rank: -o patterns, and the rank, job id and host recorded
# in the profile, as MPI and Slurm launchers set them (by environment).
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/recorder-lib.sh"

# Every launcher variable off, whatever started the test suite.
unset OMPI_COMM_WORLD_RANK PMI_RANK PMIX_RANK SLURM_PROCID SLURM_JOB_ID OMPI_MCA_ess_base_jobid \
	OMPI_COMM_WORLD_SIZE PMI_SIZE SLURM_NTASKS SLURM_STEP_NUM_TASKS
host=$(uname -n | cut -d. -f1)

host_field() {	# TEXT KEY
	grep "^host " "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"
}

test_expect_success 'srun: %r from SLURM_PROCID, job id from SLURM_JOB_ID' '
	SLURM_PROCID=3 SLURM_JOB_ID=4711 "$SAMPLER" -o "app.%r.prof" -- true &&
	dump app.3.prof &&
	expect_eq 3 "$(host_field app.3.prof.txt rank)" "rank" &&
	expect_eq 4711 "$(host_field app.3.prof.txt job_id)" "job id"
'

test_expect_success 'mpirun: OMPI_COMM_WORLD_RANK wins over PMI_RANK, PMIX_RANK and SLURM_PROCID' '
	OMPI_COMM_WORLD_RANK=2 PMI_RANK=5 PMIX_RANK=6 SLURM_PROCID=7 OMPI_MCA_ess_base_jobid=99 \
		"$SAMPLER" -o "o.%r.prof" -- true &&
	dump o.2.prof &&
	expect_eq 2 "$(host_field o.2.prof.txt rank)" "rank" &&
	expect_eq 99 "$(host_field o.2.prof.txt job_id)" "job id (Open MPI)" &&
	PMI_RANK=5 PMIX_RANK=6 SLURM_PROCID=7 "$SAMPLER" -o "p.%r.prof" -- true &&
	PMIX_RANK=6 SLURM_PROCID=7 "$SAMPLER" -o "q.%r.prof" -- true &&
	test -f p.5.prof && test -f q.6.prof &&
	SLURM_JOB_ID=1 OMPI_MCA_ess_base_jobid=2 "$SAMPLER" -o j.prof -- true &&
	dump j.prof && expect_eq 1 "$(host_field j.prof.txt job_id)" "SLURM_JOB_ID first"
'

test_expect_success '%h host, %p pid, %t UTC start time, %% percent, in one name' '
	before=$(date -u +%Y%m%dT%H%M%SZ) &&
	"$SAMPLER" -o "x.%h.%p.%t.%%.prof" -- true &&
	after=$(date -u +%Y%m%dT%H%M%SZ) &&
	name=$(ls x.*.prof) &&
	expect_eq 1 "$(echo "$name" | wc -l)" "profiles" &&
	case "$name" in "x.$host."[0-9]*".%.prof") ;; *) echo "bad name $name"; false ;; esac &&
	t=$(echo "$name" | cut -d. -f4) &&
	expect_eq 16 "${#t}" "length of %t ($t)" &&
	{ [[ ! "$t" < "$before" ]] && [[ ! "$t" > "$after" ]] || { echo "%t $t not in [$before, $after]"; false; }; } &&
	dump "$name" && expect_empty "$(host_field "$name.txt" rank)" "rank without a launcher"
'

test_expect_success 'four ranks, one profile each' '
	for r in 0 1 2 3; do
		OMPI_COMM_WORLD_RANK=$r "$SAMPLER" -o "app.$host.%r.prof" -- true || exit 1
	done &&
	expect_eq 4 "$(ls app.$host.*.prof | wc -l)" "profiles"
'

test_expect_success 'errors: %r without a rank, unknown %X, lone %, a rank that is no number' '
	run_status "$SAMPLER" -o "a.%r" -- true 2>err &&
	expect_eq 125 "$rc" "status" &&
	expect_grep "error: -o a.%r: %r needs a rank, but none of OMPI_COMM_WORLD_RANK, PMI_RANK, PMIX_RANK, SLURM_PROCID is set" err &&
	run_status "$SAMPLER" -o "a.%q" -- true 2>err &&
	expect_eq 125 "$rc" "status" && expect_grep "unknown pattern %q" err &&
	run_status "$SAMPLER" -o "a%" -- true 2>err &&
	expect_eq 125 "$rc" "status" && expect_grep "lone %" err &&
	run_status env SLURM_PROCID=x1 "$SAMPLER" -o a -- true 2>err &&
	expect_eq 125 "$rc" "status" && expect_grep "bad rank in SLURM_PROCID=.x1." err &&
	expect_empty "$(ls a a.* a% 2>/dev/null)" "files left"
'

# Issue 19 #4: mpirun -np 4 sampler -o same.prof left same.prof (rank 3)
# and same.prof.old (rank 2); ranks 0 and 1 were lost, exit 0, no word.
test_expect_success 'under a launcher, -o without %r is refused: one line naming %r, no file' '
	run_status env OMPI_COMM_WORLD_RANK=2 OMPI_COMM_WORLD_SIZE=4 "$SAMPLER" -o same.prof -- touch ran 2>err &&
	expect_eq 125 "$rc" "status" &&
	expect_eq "sampler: error: -o same.prof: every rank of the job would write this one file (OMPI_COMM_WORLD_RANK=2 of 4): put %r, the rank, in the name (e.g. -o same.%r.prof)" \
		"$(cat err)" "stderr" &&
	run_status env PMIX_RANK=1 "$SAMPLER" -o dir.d/out.prof.bz2 -- touch ran 2>err &&
	expect_eq 125 "$rc" "status (PMIx: the number of ranks unknown)" &&
	expect_grep "(PMIX_RANK=1): put %r, the rank, in the name (e.g. -o dir.d/out.%r.prof.bz2)\$" err &&
	run_status env SLURM_PROCID=0 SLURM_NTASKS=2 SLURM_STEP_NUM_TASKS=2 "$SAMPLER" -o "p%%r" -- touch ran 2>err &&
	expect_eq 125 "$rc" "status (%%r is no rank)" &&
	expect_grep "(SLURM_PROCID=0 of 2): put %r" err &&
	expect_empty "$(ls same.prof* dir.d p%r ran 2>/dev/null)" "files left"
'

# A Slurm batch script has SLURM_PROCID=0 and the job's SLURM_NTASKS, but
# runs once: only srun's steps have SLURM_STEP_NUM_TASKS.
test_expect_success 'a job of one rank, a Slurm batch script, %h with %p, or -o - need no %r' '
	OMPI_COMM_WORLD_RANK=0 OMPI_COMM_WORLD_SIZE=1 "$SAMPLER" -o one.prof -- true &&
	dump one.prof && expect_eq 0 "$(host_field one.prof.txt rank)" "rank" &&
	SLURM_PROCID=0 SLURM_NTASKS=4 SLURM_JOB_ID=9 "$SAMPLER" -o batch.prof -- true &&
	dump batch.prof && expect_eq 9 "$(host_field batch.prof.txt job_id)" "job id of the batch script" &&
	PMIX_RANK=3 "$SAMPLER" -o "hp.%h.%p.prof" -- true &&
	expect_eq 1 "$(ls hp.$host.*.prof | wc -l)" "profiles named by host and pid" &&
	PMI_RANK=1 "$SAMPLER" -o - -- true >out.prof &&
	dump out.prof && expect_eq 1 "$(host_field out.prof.txt rank)" "rank of the profile on stdout"
'

# Issue 19 #14: a 5,000-byte rank was echoed whole (528 bytes of stderr),
# and an empty one was reported as "none ... is set".
test_expect_success 'a bad rank is quoted cut and escaped; an empty rank variable is named' '
	run_status env OMPI_COMM_WORLD_RANK=$(printf "%05000d" 7) "$SAMPLER" -o a -- true 2>err &&
	expect_eq 125 "$rc" "status" &&
	expect_eq "sampler: error: bad rank in OMPI_COMM_WORLD_RANK='"'"'00000000000000000000...'"'"' (5000 bytes; the launcher sets it to a number; unset it when not running under a launcher)" \
		"$(cat err)" "stderr" &&
	run_status env PMI_RANK="$(printf "1\001")" "$SAMPLER" -o a -- true 2>err &&
	expect_grep "bad rank in PMI_RANK=.1\\\\x01. (2 bytes;" err &&
	run_status env OMPI_COMM_WORLD_RANK= "$SAMPLER" -o "e.%r" -- true 2>err &&
	expect_eq 125 "$rc" "status" &&
	expect_eq "sampler: error: -o e.%r: %r needs a rank, but OMPI_COMM_WORLD_RANK is empty (the launcher sets it to a number; or use %p)" \
		"$(cat err)" "stderr" &&
	expect_empty "$(ls a e.* 2>/dev/null)" "files left"
'

test_expect_success '-p 1234 hints at --pid' '
	run_status "$SAMPLER" -p 1234 -- true 2>err &&
	expect_eq 125 "$rc" "status" &&
	expect_eq "sampler: error: -p 1234: -p names a PMU plug-in, not a process (to attach, use --pid 1234)" "$(cat err)"
'

# Issue 20: perf record -F 1000 is sampler -f 1000 (-F said only "unknown
# option"); an unknown option inside a cluster was named by the argument
# before it ("unknown option 'sampler'").
test_expect_success '-F 1000 hints at -f; an unknown option in a cluster is named' '
	for a in "-F 1000" "-F1000" "-dF 1000"; do
		run_status "$SAMPLER" $a -- touch ran 2>err &&
		expect_eq 125 "$rc" "status ($a)" &&
		expect_eq "sampler: error: unknown option '"'"'-F'"'"': the sampling frequency is -f (use -f 1000)" "$(cat err)" "$a" || exit 1
	done &&
	run_status "$SAMPLER" -F -- touch ran 2>err &&
	expect_eq "sampler: error: unknown option '"'"'-F'"'"': the sampling frequency is -f (use -f HZ)" "$(cat err)" "-F alone" &&
	run_status "$SAMPLER" -x1 -- touch ran 2>err &&
	expect_eq "sampler: error: unknown option '"'"'-x1'"'"' (see sampler --help)" "$(cat err)" "-x1" &&
	[ ! -e ran ]
'

# A profile written before the job fields existed: its info record ends
# after the channels.  Cut the two empty strings off and fix the chunk.
# (without clock samples: the info record ends with job_id, as it did then)
test_expect_success 'profiles without rank and job id still read' '
	"$SAMPLER" --no-cpu-clock -o new.prof -- true &&
	python3 - new.prof old.prof <<-\PY &&
	import struct, sys, zlib
	data = open(sys.argv[1], "rb").read()
	n, = struct.unpack_from("<I", data, 16)
	payload = data[24:24 + n]
	assert payload[-2:] == b"\0\0", payload[-2:]
	payload = payload[:-2]
	head = struct.pack("<I", len(payload))
	chunk = head + struct.pack("<I", zlib.crc32(head + payload)) + payload
	open(sys.argv[2], "wb").write(data[:16] + chunk + data[24 + n:])
	PY
	dump old.prof && dump new.prof &&
	expect_eq "$(grep -v "^host" new.prof.txt)" "$(grep -v "^host" old.prof.txt)" "records" &&
	expect_grep "^host .* rank= job_id=$" old.prof.txt
'

test_expect_success 'rank and job id round-trip through sampler-profile build' '
	SLURM_PROCID=12 SLURM_JOB_ID=77 "$SAMPLER" -o r.%r.prof -- true &&
	dump r.12.prof &&
	"$BUILD/sampler-profile" build r2.prof <r.12.prof.txt &&
	dump r2.prof && expect_eq "$(cat r.12.prof.txt)" "$(cat r2.prof.txt)" "dump of the rebuilt profile"
'

test_done
