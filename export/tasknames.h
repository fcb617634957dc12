/* tasknames.h - the name a thread has at each point of the profile, as
 * perf names it: the thread's own (PR_SET_NAME), else its process's comm
 * (a fork child is its parent until it execs).  Fed every record in
 * order, before the rows it makes; for the stack outputs (speedscope,
 * pprof).  Memory grows with the live threads and the processes.
 */
#ifndef SAMPLER_EXPORT_TASKNAMES_H
#define SAMPLER_EXPORT_TASKNAMES_H

#include <stdint.h>

#include "../common/error.h"
#include "../common/idmap.h"
#include "../profile/profile.h"

struct task_names {
	struct idmap comms;		/* pid -> the process's name */
	struct idmap names;		/* tid -> the thread's, while it lives */
};

void task_names_init(struct task_names *t);
void task_names_free(struct task_names *t);

/* Follow a process, exec or name record.  -1: err set. */
int task_names_record(struct task_names *t, const struct profile_record *rec,
		      struct error *err);

/* Forget an exited thread's name (after its last rows): a later thread
 * may reuse the tid. */
void task_names_exit(struct task_names *t, const struct profile_record *rec);

/* The thread's name now, "" when none is known. */
const char *task_names_comm(const struct task_names *t, uint32_t pid, uint32_t tid);

#endif
