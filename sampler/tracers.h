/* tracers.h - several tracing threads that share the tracees (--tracers N).
 *
 * Linux takes a ptrace request on a tracee only from the thread that
 * attached it, and attaches a new thread or process to its parent's
 * tracer; any thread of the sampler may wait for a tracee's stops.  So the
 * engine's own thread (tracer 0) reaps every stop and keeps every record,
 * and a request on a tracee runs on the tracee's tracer: at once on tracer
 * 0, or handed to the worker thread that is tracer 1, 2, ...  A sample
 * hands every tracer its share at once (tracers_each): N tracers on N CPUs
 * interrupt, read and continue their threads in parallel, and only the
 * reaping stays serial (docs/SCALING.md).
 *
 * A closed box.  NULL stands for one tracer: every call is then the plain
 * system call on the caller's thread. */
#ifndef SAMPLER_TRACERS_H
#define SAMPLER_TRACERS_H

#include <sys/types.h>

#include "../common/error.h"

/* Most tracers a run may ask for. */
#define TRACERS_MAX 256

struct tracers;

/* Parse --tracers: N (1 to TRACERS_MAX) or auto (one per online CPU). */
int tracers_parse(const char *arg, int *n, struct error *err);

/* Start n - 1 worker threads (1 <= n <= TRACERS_MAX; n == 1 gives NULL,
 * which is no error).  The workers block every signal: the caller's thread
 * keeps them all.  NULL with err set when a thread cannot start. */
struct tracers *tracers_new(int n, struct error *err);

/* How many tracers there are (1 for NULL). */
int tracers_count(const struct tracers *tr);

/* The tracer whose thread has this thread id (/proc's TracerPid), or -1. */
int tracers_find(const struct tracers *tr, pid_t thread_id);

/* ptrace(request, tid, addr, data) on tracer's thread: its result, with
 * errno set as that thread saw it. */
long tracers_ptrace(struct tracers *tr, int tracer, int request, pid_t tid, void *addr,
		    void *data);

/* Move the stopped tracee tid from tracer from to tracer to (a worker):
 * detached by the one, seized and interrupted by the other, which spins
 * meanwhile so that the thread runs untraced as briefly as can be (its
 * stop there follows).  0 moved; -1 seized by neither (it ended meanwhile:
 * errno says); -2 not moved (still with from). */
int tracers_move(struct tracers *tr, pid_t tid, int from, int to, long options);

/* Run fn(arg, i) for every tracer i with which[i] set (which NULL: all of
 * them) at once, each on its own thread (0 on the caller's); returns when
 * all have returned.  A tracer with nothing to do is not woken. */
void tracers_each(struct tracers *tr, void (*fn)(void *arg, int tracer), void *arg,
		  const unsigned char *which);

/* Stop the workers.  Their tracees must be gone or detached by now: a
 * tracer thread that ends takes its tracees' tracing with it. */
void tracers_free(struct tracers *tr);

#endif
