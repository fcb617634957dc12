/* pmu.h - PMU plug-ins: sources of readings taken while all threads are stopped.
 *
 * A plug-in is one file in pmu/ defining one `const struct pmu_ops` and one
 * line in the registry (pmu/registry.c).  A plug-in keeps all its state in
 * the struct it allocates in init(); nothing is shared between plug-ins, and
 * several may be active in one run (`-p rapl -p perf:instructions`).
 *
 * The engine only uses struct pmu_set, which drives every active plug-in.
 */
#ifndef SAMPLER_PMU_H
#define SAMPLER_PMU_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <sys/types.h>

#include "../common/channel.h"
#include "../common/error.h"

struct pmu_ops {
	const char *name;	/* "rapl" */
	const char *syntax;	/* "rapl[:DOMAIN,...]" */
	const char *summary;	/* one line for `sampler -p help` */

	/* Is the plug-in usable on this machine?  0, or -1 with the reason
	 * (e.g. "no /sys/class/powercap on this machine").  Optional: without
	 * it, the plug-in is usable when init() with no argument succeeds
	 * (pmu_probe() then releases what it opened). */
	int (*probe)(struct error *why);

	/* Optional: print, on one line without newline, what this machine
	 * offers (domains, inputs, events) for `sampler -p help`. */
	void (*list)(FILE *out);

	/* Non-zero when at most one instance may be active in a run (the
	 * plug-in wraps a library with process-wide state, e.g. libsensors). */
	int single_instance;

	/* Parse args (NULL or "" when none was given) and open the source.
	 * On failure nothing stays open. */
	int (*init)(void **state, const char *args, struct error *err);

	/* The channels this instance provides; valid until release(). */
	size_t (*channels)(void *state, const struct channel_desc **channels);

	/* Per-thread sources only (NULL otherwise): start/stop following a
	 * thread.  attach is called while the thread is stopped, right after
	 * it appears, before it runs user code. */
	int (*attach)(void *state, pid_t tid, struct error *err);
	void (*detach)(void *state, pid_t tid);

	/* Called while all threads are stopped.  read() fills one double per
	 * CHANNEL_PER_SAMPLE channel of this plug-in (energy: since the previous
	 * read, wraparound handled; NaN: reading missing).  read_thread() fills
	 * one cumulative uint64 per CHANNEL_PER_THREAD channel.  Either may be
	 * NULL when the plug-in has no channel of that scope.  A -1 return is a
	 * fatal source failure (device gone); a missing reading is not.  With
	 * a 0 return, a plug-in may leave a warning in err (err->msg is "" on
	 * entry): a source that misbehaves without stopping the run (sends
	 * garbage, talks out of turn); the set prints it at once.  Each
	 * plug-in says each thing once per run.  Neither may block longer
	 * than the plug-in's own timeout: the target is stopped meanwhile. */
	int (*read)(void *state, double *values, struct error *err);
	int (*read_thread)(void *state, pid_t tid, uint64_t *values, struct error *err);

	void (*release)(void *state);

	/* Optional: the readings refused so far as ones the meter cannot
	 * stand for (pmu/plausible.h), by kind, one per CHANNEL_PER_SAMPLE
	 * channel; they were read as missing (NaN). */
	void (*refused)(void *state, struct channel_refused *out);

	/* Optional, for `sampler -p help=NAME:ARGS`: watch the source, opened
	 * by init(), for about a second and print to out what it gives (how
	 * often it updates, its range, what kind of reading it looks like).
	 * -1 with the reason when it gives nothing a run could use (no
	 * reading, always 0). */
	int (*check)(void *state, FILE *out, struct error *err);
};

/* The registry: every plug-in, NULL-terminated. */
extern const struct pmu_ops *const pmu_registry[];

const struct pmu_ops *pmu_find(const char *name);

/* Is the plug-in usable here: its probe(), or init() with no argument
 * then release().  0, or -1 with the reason in why. */
int pmu_probe(const struct pmu_ops *ops, struct error *why);

/* Print `sampler -p help`: every plug-in, its syntax, and whether it is
 * usable here (and if not, why). */
void pmu_print_help(FILE *out);

/* `sampler -p help=NAME[:ARGS]`: open the source as a run would, let it
 * check itself (pmu_ops.check) and print what it found.  0, or -1 with
 * the reason (it cannot be opened, gives nothing usable, or the plug-in
 * has no check). */
int pmu_check(const char *spec, FILE *out, struct error *err);

/* ---- the active plug-ins of one run ------------------------------------ */

#define PMU_SET_MAX 16

struct pmu_instance {
	const struct pmu_ops *ops;
	void *state;
	const struct channel_desc *channels;
	size_t nchannels;
	size_t nsample;		/* how many of them are CHANNEL_PER_SAMPLE */
	size_t nthread;		/* how many CHANNEL_PER_THREAD */
};

struct pmu_set {
	const char *prog;	/* program named in warnings (NULL: "sampler") */
	size_t n;
	struct pmu_instance inst[PMU_SET_MAX];
	size_t nsample;		/* totals over all instances */
	size_t nthread;
};

/* Add "NAME[:ARGS]" to the set (initialises the plug-in).  Fails, with
 * nothing left open, on an unknown name, bad arguments, an init failure, a
 * second instance of a single-instance plug-in, a channel name given twice
 * (each channel name is unique in a run), or more than CHANNEL_MAX_PER_RUN
 * channels in the set. */
int pmu_set_add(struct pmu_set *set, const char *spec, struct error *err);

/* All channels of the set in order: instance by instance, each instance's
 * channels in its own order.  Per-sample values and per-thread values are
 * passed around in that same order, restricted to their scope.  Copies at
 * most max and returns how many the set has (at most CHANNEL_MAX_PER_RUN,
 * as pmu_set_add refuses more). */
size_t pmu_set_channels(const struct pmu_set *set, struct channel_desc *out, size_t max);

int pmu_set_attach(struct pmu_set *set, pid_t tid, struct error *err);
void pmu_set_detach(struct pmu_set *set, pid_t tid);
int pmu_set_read(struct pmu_set *set, double *values /* nsample */, struct error *err);
int pmu_set_read_thread(struct pmu_set *set, pid_t tid, uint64_t *values /* nthread */,
			struct error *err);
void pmu_set_release(struct pmu_set *set);
/* The readings refused so far, one per per-sample channel (nsample). */
void pmu_set_refused(const struct pmu_set *set, struct channel_refused *out);

/* Root of every sysfs path plug-ins read: $SAMPLER_SYSFS_ROOT or "/sys". */
const char *pmu_sysfs_root(void);

#endif
