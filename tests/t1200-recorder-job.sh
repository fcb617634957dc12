#!/bin/bash
# One profile per rank: -o patterns, and the rank, job id and host recorded
# in the profile, as MPI and Slurm launchers set them (by environment).
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/recorder-lib.sh"

# Every launcher variable off, whatever started the test suite.
unset OMPI_COMM_WORLD_RANK PMI_RANK PMIX_RANK SLURM_PROCID SLURM_JOB_ID OMPI_MCA_ess_base_jobid
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
	dump "$name" && expect_eq "" "$(host_field "$name.txt" rank)" "rank without a launcher"
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
	expect_eq "" "$(ls a a.* a% 2>/dev/null)" "files left"
'

test_expect_success '-p 1234 hints at --pid' '
	run_status "$SAMPLER" -p 1234 -- true 2>err &&
	expect_eq 125 "$rc" "status" &&
	expect_eq "sampler: error: -p 1234: -p names a PMU plug-in, not a process (to attach, use --pid 1234)" "$(cat err)"
'

# A profile written before the job fields existed: its info record ends
# after the channels.  Cut the two empty strings off and fix the chunk.
test_expect_success 'profiles without rank and job id still read' '
	"$SAMPLER" -o new.prof -- true &&
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
	SLURM_PROCID=12 SLURM_JOB_ID=77 "$SAMPLER" -o r.prof -- true &&
	dump r.prof &&
	"$BUILD/sampler-profile" build r2.prof <r.prof.txt &&
	dump r2.prof && expect_eq "$(cat r.prof.txt)" "$(cat r2.prof.txt)" "dump of the rebuilt profile"
'

test_done
