/* job.c - rank, job id and host of this run; -o patterns (see job.h). */
#include "job.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>

#include "../common/grow.h"

/* The order in which launchers are trusted: Open MPI's own variable first
 * (mpirun also sets PMIX_RANK), then the generic PMI ones, then Slurm's
 * task id (srun without MPI, or an MPI that srun started).  Each with the
 * variable that says how many ranks there are, where the launcher sets one.
 * Slurm sets SLURM_PROCID=0 in a batch script too, which runs once (its
 * SLURM_NTASKS is the job's, for the steps to come): only srun's steps
 * have SLURM_STEP_NUM_TASKS, so without it the script is alone. */
static const struct {
	const char *rank, *size;
	bool alone_without_size;
} rank_vars[] = {
	{ "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", false },
	{ "PMI_RANK", "PMI_SIZE", false },
	{ "PMIX_RANK", NULL, false },
	{ "SLURM_PROCID", "SLURM_STEP_NUM_TASKS", true },
};
/* Bytes of a bad rank an error quotes (a number has at most 15). */
#define JOB_QUOTE_MAX 20
static const char *const job_vars[] = { "SLURM_JOB_ID", "OMPI_MCA_ess_base_jobid" };

static int is_number(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return 0;
	return 1;
}

static void copy_str(char *dst, size_t size, const char *src)
{
	size_t len = strnlen(src, size - 1);

	memcpy(dst, src, len);
	dst[len] = '\0';
}

/* The number of ranks the launcher gave in var, or 0 when it says none
 * (alone: 1 when var is not set). */
static unsigned long job_size(const char *var, bool alone_without_size)
{
	const char *v = var ? getenv(var) : NULL;

	if (!v && alone_without_size)
		return 1;
	return v && is_number(v) && strlen(v) < 10 ? strtoul(v, NULL, 10) : 0;
}

int job_detect(struct job *job, struct error *err)
{
	struct utsname u;

	memset(job, 0, sizeof(*job));
	for (size_t i = 0; i < sizeof(rank_vars) / sizeof(rank_vars[0]); i++) {
		const char *v = getenv(rank_vars[i].rank);
		char quoted[ERROR_QUOTE_SIZE(JOB_QUOTE_MAX)];

		if (v && !*v && !job->empty_var)
			job->empty_var = rank_vars[i].rank;
		if (!v || !*v)
			continue;
		if (!is_number(v) || strlen(v) >= sizeof(job->rank))
			return error_set(err, "bad rank in %s='%s' (%zu bytes; the launcher sets it to a number; unset it when not running under a launcher)",
					 rank_vars[i].rank,
					 error_quote(quoted, sizeof(quoted), v, JOB_QUOTE_MAX), strlen(v));
		copy_str(job->rank, sizeof(job->rank), v);
		job->rank_var = rank_vars[i].rank;
		job->size = job_size(rank_vars[i].size, rank_vars[i].alone_without_size);
		break;
	}
	for (size_t i = 0; i < sizeof(job_vars) / sizeof(job_vars[0]); i++) {
		const char *v = getenv(job_vars[i]);

		if (v && *v) {
			copy_str(job->job_id, sizeof(job->job_id), v);
			break;
		}
	}
	if (uname(&u) == 0) {
		copy_str(job->host, sizeof(job->host), u.nodename);
		job->host[strcspn(job->host, ".")] = '\0';
	}
	return 0;
}

/* A growing string; every append is checked once, at the end. */
struct name_buf {
	char *s;
	size_t len, cap;
	int failed;
};

static void put(struct name_buf *b, const char *s, size_t n)
{
	if (b->failed)
		return;
	if (GROW_ARRAY(b->s, b->cap, b->len + n + 1) < 0) {
		b->failed = 1;
		return;
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

static void put_str(struct name_buf *b, const char *s)
{
	put(b, s, strlen(s));
}

static void put_time(struct name_buf *b, uint64_t realtime_ns)
{
	time_t t = (time_t)(realtime_ns / 1000000000ull);
	char stamp[32];
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
	put_str(b, stamp);
}

/* Does the pattern use %c (not %%c)? */
static bool uses(const char *pattern, char c)
{
	for (const char *p = pattern; *p; p++) {
		if (*p != '%')
			continue;
		if (*++p == c)
			return true;
		if (!*p)
			break;
	}
	return false;
}

/* Every rank of a job would open the same file, each keeping the one
 * before as FILE.old: all but two profiles lost (mpirun -np 4, -o
 * same.prof: ranks 0 and 1 were gone, nothing said).  A name with %r, or
 * with %h and %p, differs between ranks; a job of one rank is free. */
static int check_one_per_rank(const char *pattern, const struct job *job, struct error *err)
{
	const char *base = strrchr(pattern, '/');
	size_t stem;
	char size[32] = "";

	if (!job->rank[0] || job->size == 1 || strcmp(pattern, "-") == 0 ||
	    uses(pattern, 'r') || (uses(pattern, 'h') && uses(pattern, 'p')))
		return 0;
	base = base ? base + 1 : pattern;
	/* the suggestion: %r before the first dot of the file's name */
	stem = (size_t)(base - pattern) + strcspn(base, ".");
	if (job->size)
		snprintf(size, sizeof(size), " of %lu", job->size);
	return error_set(err, "-o %s: every rank of the job would write this one file (%s=%s%s): put %%r, the rank, in the name (e.g. -o %.*s.%%r%s)",
			 pattern, job->rank_var, job->rank, size, (int)stem, pattern, pattern + stem);
}

char *job_expand_output(const char *pattern, const struct job *job, pid_t pid,
			uint64_t realtime_ns, struct error *err)
{
	struct name_buf b = { 0 };
	char num[24];

	if (check_one_per_rank(pattern, job, err) < 0)
		return NULL;

	for (const char *p = pattern; *p; p++) {
		if (*p != '%') {
			put(&b, p, 1);
			continue;
		}
		switch (*++p) {
		case '%':
			put(&b, "%", 1);
			break;
		case 'p':
			snprintf(num, sizeof(num), "%d", (int)pid);
			put_str(&b, num);
			break;
		case 'h':
			put_str(&b, job->host);
			break;
		case 't':
			put_time(&b, realtime_ns);
			break;
		case 'r':
			if (!job->rank[0] && job->empty_var) {
				free(b.s);
				error_set(err, "-o %s: %%r needs a rank, but %s is empty (the launcher sets it to a number; or use %%p)",
					  pattern, job->empty_var);
				return NULL;
			}
			if (!job->rank[0]) {
				free(b.s);
				error_set(err, "-o %s: %%r needs a rank, but none of OMPI_COMM_WORLD_RANK, PMI_RANK, PMIX_RANK, SLURM_PROCID is set (start the sampler from mpirun or srun, or use %%p)",
					  pattern);
				return NULL;
			}
			put_str(&b, job->rank);
			break;
		case '\0':
			free(b.s);
			error_set(err, "-o %s: ends with a lone %% (write %%%% for a percent sign)", pattern);
			return NULL;
		default:
			free(b.s);
			error_set(err, "-o %s: unknown pattern %%%c (use %%p pid, %%h host, %%r rank, %%t start time, %%%% a percent sign)",
				  pattern, *p);
			return NULL;
		}
	}
	put(&b, "", 0);
	if (b.failed) {
		free(b.s);
		error_set(err, "-o %s: out of memory", pattern);
		return NULL;
	}
	return b.s;
}
