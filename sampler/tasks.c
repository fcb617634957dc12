/* tasks.c - the table of traced threads and processes (see tasks.h).
 *
 * Lookups go through the common id table; the array of threads keeps their
 * order, and removing one from it is linear in the live threads, which a
 * sample walks anyway.
 */
#include "tasks.h"

#include <stdlib.h>
#include <unistd.h>

#include "../common/grow.h"

void tasks_init(struct task_table *tt, size_t ncounters)
{
	*tt = (struct task_table){ .ncounters = ncounters };
	idmap_init(&tt->by_tid, sizeof(struct task *));
	idmap_init(&tt->by_pid, sizeof(struct process *));
}

static void process_free(struct process *p)
{
	map_list_free(&p->maps);
	mapwatch_free(p->watch);
	free(p);
}

/* Drop one thread's reference; a reaped process goes with its last one. */
static void process_put(struct process *p)
{
	if (p->tasks)
		p->tasks--;
	if (p->exited && p->tasks == 0)
		process_free(p);
}

static void task_free(struct task *t)
{
	if (t->schedstat_fd >= 0)
		close(t->schedstat_fd);
	if (t->stat_fd >= 0)
		close(t->stat_fd);
	quiet_close(&t->quiet);
	cpuclock_close(&t->clock);
	callstack_memo_free(&t->stack);
	process_put(t->proc);
	free(t->counters);
	free(t);
}

void tasks_free(struct task_table *tt)
{
	struct process **pp;
	size_t pos = 0;

	for (size_t i = 0; i < tt->ntasks; i++)
		task_free(tt->tasks[i]);
	/* left: the processes not reaped, now without threads */
	while ((pp = idmap_next(&tt->by_pid, &pos, NULL)))
		process_free(*pp);
	idmap_free(&tt->by_tid);
	idmap_free(&tt->by_pid);
	free(tt->tasks);
	*tt = (struct task_table){ 0 };
}

struct task *tasks_find(const struct task_table *tt, pid_t tid)
{
	struct task **tp = idmap_find(&tt->by_tid, (uint32_t)tid);

	return tp ? *tp : NULL;
}

struct process *tasks_find_process(const struct task_table *tt, pid_t pid)
{
	struct process **pp = idmap_find(&tt->by_pid, (uint32_t)pid);

	return pp ? *pp : NULL;
}

void tasks_reap_process(struct task_table *tt, struct process *p)
{
	struct process **pp = idmap_find(&tt->by_pid, (uint32_t)p->pid);

	if (pp && *pp == p)
		idmap_remove(&tt->by_pid, (uint32_t)p->pid);
	p->exited = true;
	if (p->tasks == 0)
		process_free(p);
}

struct process *tasks_add_process(struct task_table *tt, pid_t pid, pid_t ppid)
{
	struct process *p = calloc(1, sizeof(*p)), **pp;

	if (!p)
		return NULL;
	pp = idmap_get(&tt->by_pid, (uint32_t)pid, NULL);
	if (!pp) {
		free(p);
		return NULL;
	}
	/* a recycled pid: the process we knew is gone, its exit unseen */
	if (*pp)
		tasks_reap_process(tt, *pp);
	pp = idmap_get(&tt->by_pid, (uint32_t)pid, NULL);
	if (!pp) {
		free(p);
		return NULL;
	}
	p->pid = pid;
	p->ppid = ppid;
	*pp = p;
	return p;
}

/* Make room for one more thread. */
static int grow_tasks(struct task_table *tt)
{
	return GROW_ARRAY(tt->tasks, tt->tasks_alloc, tt->ntasks + 1);
}

struct task *tasks_add(struct task_table *tt, pid_t tid, struct process *proc,
		       enum task_state state)
{
	struct task *t, **tp;

	if (grow_tasks(tt) < 0)
		return NULL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->counters = calloc(tt->ncounters ? tt->ncounters : 1, sizeof(*t->counters));
	tp = idmap_get(&tt->by_tid, (uint32_t)tid, NULL);
	if (!t->counters || !tp) {
		free(t->counters);
		free(t);
		return NULL;
	}
	*tp = t;
	t->tid = tid;
	t->proc = proc;
	t->state = state;
	t->schedstat_fd = procfs_open_schedstat(proc->pid, tid);
	t->stat_fd = -1;
	quiet_init(&t->quiet);
	cpuclock_init(&t->clock);
	proc->live_threads++;
	proc->tasks++;
	tt->tasks[tt->ntasks++] = t;
	return t;
}

void tasks_set_exiting(struct task *t)
{
	if (t->state != TASK_EXITING && t->proc->live_threads)
		t->proc->live_threads--;
	t->state = TASK_EXITING;
}

void tasks_remove(struct task_table *tt, struct task *t)
{
	struct task **tp = idmap_find(&tt->by_tid, (uint32_t)t->tid);

	if (tp && *tp == t)
		idmap_remove(&tt->by_tid, (uint32_t)t->tid);
	for (size_t i = 0; i < tt->ntasks; i++) {
		if (tt->tasks[i] != t)
			continue;
		/* Keep creation order: samples list threads oldest first. */
		for (size_t j = i + 1; j < tt->ntasks; j++)
			tt->tasks[j - 1] = tt->tasks[j];
		tt->ntasks--;
		break;
	}
	if (t->state != TASK_EXITING && t->proc->live_threads)
		t->proc->live_threads--;
	task_free(t);
}
