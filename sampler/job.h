/* job.h - where this run sits in a parallel job (MPI or Slurm rank, job id,
 * host), and the output file name patterns that give one profile per rank. */
#ifndef SAMPLER_JOB_H
#define SAMPLER_JOB_H

#include <stdint.h>
#include <sys/types.h>

#include "../common/error.h"

#define JOB_RANK_MAX 16
#define JOB_ID_MAX 64
#define JOB_HOST_MAX 65

struct job {
	char rank[JOB_RANK_MAX];	/* "" when no launcher set one */
	const char *rank_var;		/* the variable it came from, or NULL */
	unsigned long size;		/* ranks in the job as the launcher says, or 0 */
	const char *empty_var;		/* the first rank variable set but empty */
	char job_id[JOB_ID_MAX];	/* "" when none */
	char host[JOB_HOST_MAX];	/* short host name (up to the first dot) */
};

/* Read the rank from OMPI_COMM_WORLD_RANK, PMI_RANK, PMIX_RANK,
 * SLURM_PROCID (the first one set, in that order) and the number of ranks
 * from OMPI_COMM_WORLD_SIZE, PMI_SIZE or SLURM_STEP_NUM_TASKS (the same
 * launcher's; Slurm without a step, a batch script, is one),
 * the job id from SLURM_JOB_ID or OMPI_MCA_ess_base_jobid, and the host
 * name.  A rank that is not a decimal number is an error naming the
 * variable (and quoting its first bytes). */
int job_detect(struct job *job, struct error *err);

/* Expand an -o pattern: %p pid, %h short host name, %r rank, %t start time
 * (UTC, 20260123T184502Z), %% a percent sign.  Returns a malloc'ed name, or
 * NULL with err set (%r without a rank, an unknown %X, a trailing %; and,
 * under a launcher of more than one rank, or of an unknown number, a name
 * that has neither %r nor %h with %p: every rank would write that file,
 * each replacing the one before). */
char *job_expand_output(const char *pattern, const struct job *job, pid_t pid,
			uint64_t realtime_ns, struct error *err);

#endif
