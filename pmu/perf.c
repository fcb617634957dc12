/* perf - hardware and software counters per thread, named as libpfm4 names
 * them ("cycles", "instructions", "perf::PAGE-FAULTS") and encoded with
 * pfm_get_os_event_encoding().
 *
 * Hardware counters count user space only (exclude_kernel, exclude_hv),
 * which perf_event_paranoid 2 allows without privileges; software events
 * include the kernel when allowed (see try_event).  One counter per event is
 * opened on each thread when it is attached (pid = tid, any CPU), so every
 * thread's cumulative count is read separately.  Every event is tried once
 * on the sampler itself in init(), so a bad event stops the run before the
 * target starts.
 */
#include "pmu.h"
#include "args.h"
#include "../common/idmap.h"

#include <errno.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <perfmon/pfmlib_perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

struct perf {
	size_t nevents;
	struct perf_event_attr *attrs;
	struct channel_desc *channels;
	struct idmap threads;	/* followed tid -> nevents counter fds */
};

static int perf_open(struct perf_event_attr *attr, pid_t tid)
{
	return syscall(SYS_perf_event_open, attr, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

static const char *perf_open_hint(int errnum)
{
	switch (errnum) {
	case ENOENT:
	case EOPNOTSUPP:
	case ENODEV:
		return "no hardware PMU for it, e.g. in a VM; software events work everywhere: try perf::TASK-CLOCK or perf::PAGE-FAULTS";
	case EACCES:
	case EPERM:
		return "not allowed at this perf_event_paranoid; run as root, or lower it: sudo sysctl kernel.perf_event_paranoid=1";
	case EMFILE:
	case ENFILE:
		return "too many open files; raise the limit with ulimit -n";
	case EINVAL:
		return "the kernel rejects this encoding; check the event's modifiers";
	default:
		return "check the event name with perf list";
	}
}

static const char *perf_open_problem(int errnum)
{
	switch (errnum) {
	case EACCES:
	case EPERM:
		return "is not allowed here";
	case EMFILE:
	case ENFILE:
		return "cannot be opened now";
	default:
		return "is not supported on this machine";
	}
}

static int encode_event(const char *name, struct perf_event_attr *attr, struct error *err)
{
	pfm_perf_encode_arg_t arg;
	int ret;

	memset(attr, 0, sizeof(*attr));
	memset(&arg, 0, sizeof(arg));
	arg.attr = attr;
	arg.size = sizeof(arg);
	ret = pfm_get_os_event_encoding(name, PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg);
	if (ret == PFM_ERR_NOTFOUND)
		return error_set(err, "perf: unknown event '%s': libpfm4 knows no such event on this machine (use a libpfm4 name such as perf::PAGE-FAULTS, perf::CONTEXT-SWITCHES, perf::TASK-CLOCK, or instructions on real hardware)",
				 name);
	if (ret != PFM_SUCCESS)
		return error_set(err, "perf: cannot encode event '%s': %s (check its modifiers, e.g. EVENT:u)",
				 name, pfm_strerror(ret));
	/* PFM_PLM3: user space only (exclude_kernel, exclude_hv) unless the
	 * event's own modifiers (:u, :k) say otherwise */
	attr->size = sizeof(*attr);
	attr->disabled = 0;
	attr->inherit = 0;
	attr->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	return 0;
}

/* Events the kernel counts only in kernel mode: with exclude_kernel they
 * would always read 0. */
static int kernel_only(const struct perf_event_attr *attr)
{
	return attr->type == PERF_TYPE_SOFTWARE &&
	       (attr->config == PERF_COUNT_SW_CONTEXT_SWITCHES ||
		attr->config == PERF_COUNT_SW_CPU_MIGRATIONS);
}

/* Does the name carry modifiers ("perf::PAGE-FAULTS:u", "cycles:k")? */
static int has_modifiers(const char *name)
{
	const char *pmu_end = strstr(name, "::");

	return strchr(pmu_end ? pmu_end + 2 : name, ':') != NULL;
}

/* Open the event on the sampler itself and close it again.  Software events
 * without modifiers also count what happens in the kernel on the thread's
 * behalf (context switches, page faults in system calls) when
 * perf_event_paranoid allows it; otherwise they count user space only, like
 * hardware events. */
static int try_event(const char *name, struct perf_event_attr *attr, struct error *err)
{
	int fd, errnum;

	if (attr->type == PERF_TYPE_SOFTWARE && !has_modifiers(name)) {
		attr->exclude_kernel = 0;
		fd = perf_open(attr, 0);
		if (fd >= 0) {
			close(fd);
			return 0;
		}
		if (kernel_only(attr) && (errno == EACCES || errno == EPERM))
			return error_set(err, "perf: event '%s' happens only in the kernel, which perf_event_paranoid=2 does not let unprivileged users count (run as root, or: sudo sysctl kernel.perf_event_paranoid=1)",
					 name);
		attr->exclude_kernel = 1;
	}
	fd = perf_open(attr, 0);
	if (fd < 0) {
		errnum = errno;
		return error_set(err, "perf: event '%s' %s: perf_event_open: %s (%s)",
				 name, perf_open_problem(errnum), strerror(errnum),
				 perf_open_hint(errnum));
	}
	close(fd);
	return 0;
}

static int library_init(struct error *err)
{
	int ret = pfm_initialize();

	if (ret != PFM_SUCCESS)
		return error_set(err, "perf: cannot initialise libpfm4: %s (reinstall libpfm4)", pfm_strerror(ret));
	return 0;
}

static void perf_release(void *state)
{
	struct perf *perf = state;

	size_t pos = 0;
	int *fds;

	if (!perf)
		return;
	while ((fds = idmap_next(&perf->threads, &pos, NULL)))
		for (size_t e = 0; e < perf->nevents; e++)
			close(fds[e]);
	idmap_free(&perf->threads);
	free(perf->attrs);
	free(perf->channels);
	free(perf);
}

static int setup_events(struct perf *perf, const struct pmu_args *list, struct error *err)
{
	perf->attrs = calloc(list->n, sizeof(*perf->attrs));
	perf->channels = calloc(list->n, sizeof(*perf->channels));
	if (!perf->attrs || !perf->channels)
		return error_set(err, "perf: out of memory");
	for (unsigned i = 0; i < list->n; i++) {
		struct channel_desc *ch = &perf->channels[i];
		const char *name = list->items[i];

		if (strlen(name) >= sizeof(ch->name))
			return error_set(err, "perf: event name '%s' is too long (at most %zu characters)",
					 name, sizeof(ch->name) - 1);
		if (encode_event(name, &perf->attrs[i], err) < 0 ||
		    try_event(name, &perf->attrs[i], err) < 0)
			return -1;
		strcpy(ch->name, name);
		strcpy(ch->source, "perf");
		ch->scale = 1;
		ch->kind = CHANNEL_COUNTER;
		ch->scope = CHANNEL_PER_THREAD;
		perf->nevents++;
	}
	return 0;
}

static int perf_init(void **state, const char *args, struct error *err)
{
	struct pmu_args list;
	struct perf *perf;

	if (pmu_args_split(&list, "perf", args, err) < 0)
		return -1;
	if (list.n == 0)
		return error_set(err, "perf: no event given (use -p perf:EVENT[,EVENT...], e.g. -p perf:perf::PAGE-FAULTS)");
	perf = calloc(1, sizeof(*perf));
	if (!perf || library_init(err) < 0 || setup_events(perf, &list, err) < 0) {
		if (!perf)
			error_set(err, "perf: out of memory");
		pmu_args_free(&list);
		perf_release(perf);
		return -1;
	}
	pmu_args_free(&list);
	idmap_init(&perf->threads, perf->nevents * sizeof(int));
	*state = perf;
	return 0;
}

static size_t perf_channels(void *state, const struct channel_desc **channels)
{
	struct perf *perf = state;

	*channels = perf->channels;
	return perf->nevents;
}

/* ---- the followed threads ---------------------------------------------- */

static int perf_attach(void *state, pid_t tid, struct error *err)
{
	struct perf *perf = state;
	bool created;
	int *fds = idmap_get(&perf->threads, (uint32_t)tid, &created);

	if (!fds)
		return error_set(err, "perf: out of memory following thread %d", (int)tid);
	if (!created)
		return 0;
	for (size_t e = 0; e < perf->nevents; e++) {
		fds[e] = perf_open(&perf->attrs[e], tid);
		if (fds[e] < 0) {
			int errnum = errno;

			error_set(err, "perf: cannot count '%s' on thread %d: perf_event_open: %s (%s)",
				  perf->channels[e].name, (int)tid, strerror(errnum),
				  perf_open_hint(errnum));
			while (e-- > 0)
				close(fds[e]);
			idmap_remove(&perf->threads, (uint32_t)tid);
			return -1;
		}
	}
	return 0;
}

static void perf_detach(void *state, pid_t tid)
{
	struct perf *perf = state;
	int *fds = idmap_find(&perf->threads, (uint32_t)tid);

	if (!fds)
		return;
	for (size_t e = 0; e < perf->nevents; e++)
		close(fds[e]);
	idmap_remove(&perf->threads, (uint32_t)tid);
}

/* Cumulative count, scaled up when the kernel multiplexed the counter
 * (more hardware events than counters). */
static int read_counter(int fd, uint64_t *value)
{
	uint64_t buf[3];	/* value, time enabled, time running */

	if (read(fd, buf, sizeof(buf)) != sizeof(buf))
		return -1;
	if (buf[2] && buf[2] < buf[1])
		buf[0] = (uint64_t)((double)buf[0] * buf[1] / buf[2]);
	*value = buf[0];
	return 0;
}

static int perf_read_thread(void *state, pid_t tid, uint64_t *values, struct error *err)
{
	struct perf *perf = state;
	const int *fds = idmap_find(&perf->threads, (uint32_t)tid);

	if (!fds)
		return error_set(err, "perf: thread %d was never attached (the recorder must attach every thread first)",
				 (int)tid);
	for (size_t e = 0; e < perf->nevents; e++)
		if (read_counter(fds[e], &values[e]) < 0)
			return error_set(err, "perf: cannot read '%s' of thread %d: %s",
					 perf->channels[e].name, (int)tid, strerror(errno));
	return 0;
}

static int perf_probe(struct error *why)
{
	struct perf_event_attr attr;

	if (library_init(why) < 0 || encode_event("perf::TASK-CLOCK", &attr, why) < 0)
		return -1;
	return try_event("perf::TASK-CLOCK", &attr, why);
}

/* Which of the common events work here. */
static void perf_list(FILE *out)
{
	static const char *const common[] = {
		"cycles", "instructions", "cache-misses", "branch-misses",
		"perf::TASK-CLOCK", "perf::PAGE-FAULTS", "perf::CONTEXT-SWITCHES",
		"perf::CPU-MIGRATIONS", "perf::MINOR-FAULTS", "perf::MAJOR-FAULTS",
	};
	const char *sep = "";

	fputs("events that work here include:", out);
	for (size_t i = 0; i < sizeof(common) / sizeof(common[0]); i++) {
		struct perf_event_attr attr;

		if (encode_event(common[i], &attr, NULL) == 0 && try_event(common[i], &attr, NULL) == 0) {
			fprintf(out, "%s %s", sep, common[i]);
			sep = ",";
		}
	}
}

const struct pmu_ops pmu_perf = {
	.name = "perf",
	.syntax = "perf:EVENT[,EVENT...]",
	.summary = "per-thread counters named as libpfm4 names them (instructions, perf::PAGE-FAULTS, ...); hardware events count user space only",
	.probe = perf_probe,
	.list = perf_list,
	.init = perf_init,
	.channels = perf_channels,
	.attach = perf_attach,
	.detach = perf_detach,
	.read_thread = perf_read_thread,
	.release = perf_release,
};
