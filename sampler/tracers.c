/* tracers.c - worker threads that run ptrace requests for the tracees
 * they attached (tracers.h).  Each worker waits on its own condition
 * variable for one job at a time: a ptrace request, or its share of a
 * tracers_each. */
#include "tracers.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <unistd.h>

enum job_kind { JOB_NONE, JOB_PTRACE, JOB_EACH, JOB_SEIZE_RELEASED, JOB_QUIT };

struct worker {
	struct tracers *tr;
	int index;
	pthread_t thread;
	pid_t tid;
	pthread_mutex_t lock;
	pthread_cond_t posted, done;
	enum job_kind job;	/* JOB_NONE when done */
	/* JOB_PTRACE; JOB_SEIZE_RELEASED (target, data: the options) */
	int request;
	pid_t target;
	void *addr, *data;
	long result;
	int error;
	atomic_int *release;	/* JOB_PTRACE: set once the request is made */
	bool ready;		/* JOB_SEIZE_RELEASED: spinning for released */
	atomic_int released;
	/* JOB_EACH */
	void (*fn)(void *arg, int tracer);
	void *arg;
};

struct tracers {
	int n;			/* tracers, the caller's thread included */
	pid_t caller_tid;
	struct worker *workers;	/* n - 1 of them: tracers 1 .. n-1 */
};

/* Say it is ready, spin until the thread is let go by its tracer, seize
 * it and interrupt it at once: it runs untraced for as short as can be. */
static void seize_released(struct worker *w)
{
	pthread_mutex_lock(&w->lock);
	w->ready = true;
	pthread_cond_signal(&w->done);
	pthread_mutex_unlock(&w->lock);
	while (!atomic_load(&w->released))
		;
	errno = 0;
	w->result = w->target ? ptrace(PTRACE_SEIZE, w->target, 0, w->data) : -1;
	if (w->result == 0)
		w->result = ptrace(PTRACE_INTERRUPT, w->target, 0, 0);
	w->error = errno;
}

static void *work(void *p)
{
	struct worker *w = p;

	cpu_set_t all;

	/* not where the caller may be pinned (--cpu): any CPU */
	CPU_ZERO(&all);
	for (long c = 0, n = sysconf(_SC_NPROCESSORS_CONF); c < n && c < CPU_SETSIZE; c++)
		CPU_SET((int)c, &all);
	sched_setaffinity(0, sizeof(all), &all);
	pthread_mutex_lock(&w->lock);
	w->tid = (pid_t)syscall(SYS_gettid);
	pthread_cond_signal(&w->done);
	for (;;) {
		while (w->job == JOB_NONE)
			pthread_cond_wait(&w->posted, &w->lock);
		if (w->job == JOB_QUIT)
			break;
		pthread_mutex_unlock(&w->lock);
		if (w->job == JOB_PTRACE) {
			errno = 0;
			w->result = ptrace(w->request, w->target, w->addr, w->data);
			w->error = errno;
			if (w->release && w->result == 0)
				atomic_store(w->release, 1);
		} else if (w->job == JOB_SEIZE_RELEASED) {
			seize_released(w);
		} else {
			w->fn(w->arg, w->index);
		}
		pthread_mutex_lock(&w->lock);
		w->job = JOB_NONE;
		pthread_cond_signal(&w->done);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

static void post(struct worker *w, enum job_kind job)
{
	pthread_mutex_lock(&w->lock);
	w->job = job;
	pthread_cond_signal(&w->posted);
	pthread_mutex_unlock(&w->lock);
}

static void await(struct worker *w)
{
	pthread_mutex_lock(&w->lock);
	while (w->job != JOB_NONE)
		pthread_cond_wait(&w->done, &w->lock);
	pthread_mutex_unlock(&w->lock);
}

static void stop_workers(struct tracers *tr, int started)
{
	for (int i = 0; i < started; i++) {
		post(&tr->workers[i], JOB_QUIT);
		pthread_join(tr->workers[i].thread, NULL);
		pthread_mutex_destroy(&tr->workers[i].lock);
		pthread_cond_destroy(&tr->workers[i].posted);
		pthread_cond_destroy(&tr->workers[i].done);
	}
}

int tracers_parse(const char *arg, int *n, struct error *err)
{
	char *end;
	long v;

	if (strcmp(arg, "auto") == 0) {
		v = sysconf(_SC_NPROCESSORS_ONLN);
		*n = v < 1 ? 1 : v > TRACERS_MAX ? TRACERS_MAX : (int)v;
		return 0;
	}
	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v < 1 || v > TRACERS_MAX)
		return error_set(err, "bad --tracers '%s' (use a whole number of tracing threads from 1 to %d, or auto: one per CPU)",
				 arg, TRACERS_MAX);
	*n = (int)v;
	return 0;
}

struct tracers *tracers_new(int n, struct error *err)
{
	struct tracers *tr;
	sigset_t all, old;
	int started = 0, rc = 0;

	if (n <= 1)
		return NULL;
	tr = calloc(1, sizeof(*tr));
	if (!tr || !(tr->workers = calloc((size_t)n - 1, sizeof(*tr->workers)))) {
		free(tr);
		error_set(err, "out of memory");
		return NULL;
	}
	tr->n = n;
	tr->caller_tid = (pid_t)syscall(SYS_gettid);
	/* workers inherit this mask: signals stay the caller's to wait for */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	for (; started < n - 1; started++) {
		struct worker *w = &tr->workers[started];

		w->tr = tr;
		w->index = started + 1;
		pthread_mutex_init(&w->lock, NULL);
		pthread_cond_init(&w->posted, NULL);
		pthread_cond_init(&w->done, NULL);
		if ((rc = pthread_create(&w->thread, NULL, work, w)) != 0)
			break;
		pthread_mutex_lock(&w->lock);
		while (!w->tid)
			pthread_cond_wait(&w->done, &w->lock);
		pthread_mutex_unlock(&w->lock);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (started < n - 1) {
		stop_workers(tr, started);
		free(tr->workers);
		free(tr);
		error_set(err, "cannot start %d tracer threads: %s (ask for fewer with --tracers)",
			  n - 1, strerror(rc));
		return NULL;
	}
	return tr;
}

int tracers_count(const struct tracers *tr)
{
	return tr ? tr->n : 1;
}

int tracers_find(const struct tracers *tr, pid_t thread_id)
{
	if (!tr)
		return thread_id == getpid() ? 0 : -1;
	if (thread_id == tr->caller_tid)
		return 0;
	for (int i = 0; i < tr->n - 1; i++)
		if (tr->workers[i].tid == thread_id)
			return i + 1;
	return -1;
}

/* ptrace on worker w's thread; release (if any) is set there once the
 * request succeeded. */
static long call(struct worker *w, int request, pid_t tid, void *addr, void *data,
		 atomic_int *release)
{
	w->request = request;
	w->target = tid;
	w->addr = addr;
	w->data = data;
	w->release = release;
	post(w, JOB_PTRACE);
	await(w);
	errno = w->error;
	return w->result;
}

long tracers_ptrace(struct tracers *tr, int tracer, int request, pid_t tid, void *addr,
		    void *data)
{
	if (!tr || tracer <= 0 || tracer >= tr->n)
		return ptrace(request, tid, addr, data);
	return call(&tr->workers[tracer - 1], request, tid, addr, data, NULL);
}

int tracers_move(struct tracers *tr, pid_t tid, int from, int to, long options)
{
	struct worker *in;
	long rc;

	if (!tr || to <= 0 || to >= tr->n || from < 0 || from >= tr->n || from == to) {
		errno = EINVAL;
		return -2;
	}
	in = &tr->workers[to - 1];
	in->target = tid;
	in->data = (void *)options;
	in->ready = false;
	atomic_store(&in->released, 0);
	post(in, JOB_SEIZE_RELEASED);
	pthread_mutex_lock(&in->lock);
	while (!in->ready)
		pthread_cond_wait(&in->done, &in->lock);
	pthread_mutex_unlock(&in->lock);
	if (from == 0) {
		rc = ptrace(PTRACE_DETACH, tid, 0, 0);
		if (rc == 0)
			atomic_store(&in->released, 1);
	} else {		/* the detaching worker lets the seizer go itself */
		rc = call(&tr->workers[from - 1], PTRACE_DETACH, tid, NULL, NULL, &in->released);
	}
	if (rc < 0) {
		in->target = 0;		/* not let go: nothing to seize */
		atomic_store(&in->released, 1);
		await(in);
		return -2;
	}
	await(in);
	errno = in->error;
	return in->result < 0 ? -1 : 0;
}

void tracers_each(struct tracers *tr, void (*fn)(void *arg, int tracer), void *arg,
		  const unsigned char *which)
{
	if (!tr) {
		if (!which || which[0])
			fn(arg, 0);
		return;
	}
	for (int i = 0; i < tr->n - 1; i++) {
		if (which && !which[i + 1])
			continue;
		tr->workers[i].fn = fn;
		tr->workers[i].arg = arg;
		post(&tr->workers[i], JOB_EACH);
	}
	if (!which || which[0])
		fn(arg, 0);
	for (int i = 0; i < tr->n - 1; i++)
		if (!which || which[i + 1])
			await(&tr->workers[i]);
}

void tracers_free(struct tracers *tr)
{
	if (!tr)
		return;
	stop_workers(tr, tr->n - 1);
	free(tr->workers);
	free(tr);
}
