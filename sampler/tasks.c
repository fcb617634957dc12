/* tasks.c - the table of traced threads and processes.
 *
 * A plain array searched linearly: a sample touches every thread anyway, and
 * targets have tens to hundreds of threads, not millions.
 */
#include "tasks.h"

#include <stdlib.h>
#include <unistd.h>

void tasks_init(struct task_table *tt, size_t ncounters)
{
	*tt = (struct task_table){ .ncounters = ncounters };
}

static void task_free(struct task *t)
{
	if (t->schedstat_fd >= 0)
		close(t->schedstat_fd);
	if (t->stat_fd >= 0)
		close(t->stat_fd);
	free(t->counters);
	free(t);
}

void tasks_free(struct task_table *tt)
{
	for (size_t i = 0; i < tt->ntasks; i++)
		task_free(tt->tasks[i]);
	for (size_t i = 0; i < tt->nprocs; i++) {
		map_list_free(&tt->procs[i]->maps);
		free(tt->procs[i]);
	}
	free(tt->tasks);
	free(tt->procs);
	*tt = (struct task_table){ 0 };
}

struct task *tasks_find(const struct task_table *tt, pid_t tid)
{
	for (size_t i = 0; i < tt->ntasks; i++)
		if (tt->tasks[i]->tid == tid)
			return tt->tasks[i];
	return NULL;
}

struct process *tasks_find_process(const struct task_table *tt, pid_t pid)
{
	/* Newest first: a recycled pid belongs to the latest process. */
	for (size_t i = tt->nprocs; i-- > 0;)
		if (tt->procs[i]->pid == pid && !tt->procs[i]->exited)
			return tt->procs[i];
	return NULL;
}

/* Make room for one more pointer in *array. */
static int grow(void ***array, size_t n, size_t *alloc)
{
	void **grown;
	size_t want;

	if (n < *alloc)
		return 0;
	want = *alloc ? *alloc * 2 : 16;
	grown = realloc(*array, want * sizeof(*grown));
	if (!grown)
		return -1;
	*array = grown;
	*alloc = want;
	return 0;
}

struct process *tasks_add_process(struct task_table *tt, pid_t pid, pid_t ppid)
{
	struct process *p;

	if (grow((void ***)&tt->procs, tt->nprocs, &tt->procs_alloc) < 0)
		return NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->pid = pid;
	p->ppid = ppid;
	tt->procs[tt->nprocs++] = p;
	return p;
}

struct task *tasks_add(struct task_table *tt, pid_t tid, struct process *proc,
		       enum task_state state)
{
	struct task *t;

	if (grow((void ***)&tt->tasks, tt->ntasks, &tt->tasks_alloc) < 0)
		return NULL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->counters = calloc(tt->ncounters ? tt->ncounters : 1, sizeof(*t->counters));
	if (!t->counters) {
		free(t);
		return NULL;
	}
	t->tid = tid;
	t->proc = proc;
	t->state = state;
	t->schedstat_fd = procfs_open_schedstat(proc->pid, tid);
	t->stat_fd = -1;
	proc->live_threads++;
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
