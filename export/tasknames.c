/* tasknames.c - the name a thread has at each point (tasknames.h). */
#include <inttypes.h>
#include <stdio.h>

#include "tasknames.h"

struct task_name {
	char name[PROFILE_COMM_MAX];
};

void task_names_init(struct task_names *t)
{
	idmap_init(&t->comms, sizeof(struct task_name));
	idmap_init(&t->names, sizeof(struct task_name));
}

void task_names_free(struct task_names *t)
{
	idmap_free(&t->comms);
	idmap_free(&t->names);
}

static struct task_name *name_slot(struct idmap *m, uint32_t id, struct error *err)
{
	bool created;
	struct task_name *c = idmap_get(m, id, &created);

	if (!c)
		error_set(err, "out of memory for the name of %" PRIu32, id);
	return c;
}

int task_names_record(struct task_names *t, const struct profile_record *rec,
		      struct error *err)
{
	const struct task_name *parent;
	struct task_name inherited = { "" }, *c;

	switch (rec->type) {
	case PROFILE_REC_PROCESS:
		parent = idmap_find(&t->comms, rec->process.ppid);
		if (parent && rec->process.ppid)
			inherited = *parent;
		if (!(c = name_slot(&t->comms, rec->process.pid, err)))
			return -1;
		*c = inherited;
		break;
	case PROFILE_REC_EXEC:
		if (!(c = name_slot(&t->comms, rec->exec.pid, err)))
			return -1;
		snprintf(c->name, sizeof(c->name), "%s", rec->exec.comm);
		break;
	case PROFILE_REC_NAME:
		if (!(c = name_slot(&t->names, rec->name.tid, err)))
			return -1;
		snprintf(c->name, sizeof(c->name), "%s", rec->name.name);
		break;
	default:
		break;
	}
	return 0;
}

void task_names_exit(struct task_names *t, const struct profile_record *rec)
{
	if (rec->type == PROFILE_REC_EXIT)
		idmap_remove(&t->names, rec->exit.tid);
}

const char *task_names_comm(const struct task_names *t, uint32_t pid, uint32_t tid)
{
	const struct task_name *c = idmap_find(&t->names, tid);

	if (!c || !c->name[0])
		c = idmap_find(&t->comms, pid);
	return c ? c->name : "";
}
