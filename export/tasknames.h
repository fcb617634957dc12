/* tasknames.h - the name of a thread as the stack outputs give it (its
 * own name while it lives, else its process's comm; a fork child is its
 * parent until it execs; a merged job's ranks carry their suffix), kept
 * from the records as they come.
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

/* Take a record's names, before its rows are made.  -1: err set. */
int task_names_record(struct task_names *t, const struct profile_record *rec, struct error *err);

/* After the record's rows: an exited thread's name is forgotten (a later
 * thread may reuse its tid). */
void task_names_done(struct task_names *t, const struct profile_record *rec);

/* The name of thread tid of pid ("" when none is known). */
const char *task_names_of(const struct task_names *t, uint32_t pid, uint32_t tid);

/* The name of process pid ("" when none is known). */
const char *task_names_process(const struct task_names *t, uint32_t pid);

#endif
