/* rapl-perf - RAPL energy through the perf "power" PMU
 * (<root>/bus/event_source/devices/power), for machines where the powercap
 * files are root-only but the sampler may open system-wide perf events
 * (root, or CAP_PERFMON: sudo setcap cap_perfmon=ep sampler).
 *
 * Each event (energy-pkg, energy-cores, energy-ram, energy-gpu,
 * energy-psys) is opened once per package, on the CPU the PMU's cpumask
 * names for it.  The kernel keeps 64-bit counts, so there is no wraparound;
 * each read reports the energy since the previous read, in uJ, under the
 * same channel names as the rapl plug-in (package-0, core, dram, ...).
 */
#include "pmu.h"
#include "args.h"
#include "sysfs.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define POWER_PMU "bus/event_source/devices/power"
#define MAX_PACKAGES 64

/* perf event name -> rapl domain name */
static const struct {
	const char *event, *domain;
} domains[] = {
	{ "energy-pkg", "package" }, { "energy-cores", "core" }, { "energy-ram", "dram" },
	{ "energy-gpu", "uncore" }, { "energy-psys", "psys" },
};

struct rapl_perf_counter {
	int fd;
	double joules;		/* per count */
	uint64_t last;
};

struct rapl_perf {
	size_t n;
	struct rapl_perf_counter *counters;
	struct channel_desc *channels;
};

struct power_pmu {
	unsigned type;
	int cpus[MAX_PACKAGES];	/* one CPU per package */
	size_t ncpus;
};

static const char *domain_of(const char *event)
{
	for (size_t i = 0; i < sizeof(domains) / sizeof(domains[0]); i++)
		if (strcmp(domains[i].event, event) == 0)
			return domains[i].domain;
	return NULL;
}

static int read_pmu_file(const char *file, char *buf, size_t size, struct error *err)
{
	char path[PATH_MAX];

	if (sysfs_path(path, sizeof(path), POWER_PMU "/%s", file) < 0 ||
	    sysfs_read_text(path, buf, size) < 0)
		return error_set(err, "rapl-perf: cannot read %s: %s (is the perf power PMU complete? check ls %s/" POWER_PMU ")",
				 path, strerror(errno), pmu_sysfs_root());
	return 0;
}

/* cpumask: "0", "0,18" or "0-1": one CPU per package. */
static int parse_cpumask(const char *text, struct power_pmu *pmu)
{
	const char *p = text;

	pmu->ncpus = 0;
	while (*p) {
		char *end;
		long lo, hi;

		/* CPU numbers fit an int (perf_event_open takes one); a
		 * saturated strtol would overflow the loop below */
		errno = 0;
		lo = hi = strtol(p, &end, 10);
		if (end == p || errno || lo < 0 || lo > INT_MAX)
			return -1;
		if (*end == '-') {
			p = end + 1;
			hi = strtol(p, &end, 10);
			if (end == p || errno || hi < lo || hi > INT_MAX)
				return -1;
		}
		for (long cpu = lo; cpu <= hi; cpu++) {
			if (pmu->ncpus >= MAX_PACKAGES)
				return -1;
			pmu->cpus[pmu->ncpus++] = (int)cpu;
		}
		p = *end == ',' ? end + 1 : end;
		if (*end && *end != ',')
			return -1;
	}
	return pmu->ncpus ? 0 : -1;
}

static int read_pmu(struct power_pmu *pmu, struct error *err)
{
	char path[PATH_MAX], text[256];
	uint64_t type;

	if (sysfs_path(path, sizeof(path), POWER_PMU) < 0 || access(path, F_OK) < 0)
		return error_set(err, "rapl-perf: no %s on this machine (the perf power PMU needs a CPU with RAPL and Linux >= 3.14; virtual machines usually have none)",
				 path);
	if (read_pmu_file("type", text, sizeof(text), err) < 0)
		return -1;
	if (sysfs_parse_u64(text, &type) < 0 || type > UINT32_MAX)
		return error_set(err, "rapl-perf: bad PMU type '%s' in %s/" POWER_PMU "/type", text, pmu_sysfs_root());
	pmu->type = (unsigned)type;
	if (read_pmu_file("cpumask", text, sizeof(text), err) < 0)
		return -1;
	if (parse_cpumask(text, pmu) < 0)
		return error_set(err, "rapl-perf: bad cpumask '%s' in %s/" POWER_PMU "/cpumask", text, pmu_sysfs_root());
	return 0;
}

/* events/NAME holds "event=0x02"; events/NAME.scale the joules per count. */
static int read_event(const char *event, uint64_t *config, double *joules, struct error *err)
{
	char file[NAME_MAX + 16], text[128], *end;

	snprintf(file, sizeof(file), "events/%s", event);
	if (read_pmu_file(file, text, sizeof(text), err) < 0)
		return -1;
	errno = 0;
	*config = strncmp(text, "event=", 6) == 0 ? strtoull(text + 6, &end, 0) : 0;
	if (strncmp(text, "event=", 6) != 0 || errno || end == text + 6 || (*end && *end != ','))
		return error_set(err, "rapl-perf: cannot parse %s/" POWER_PMU "/%s: '%s' (expected event=0xNN)",
				 pmu_sysfs_root(), file, text);
	snprintf(file, sizeof(file), "events/%s.scale", event);
	if (read_pmu_file(file, text, sizeof(text), err) < 0)
		return -1;
	*joules = strtod(text, &end);
	if (end == text || !(*joules > 0))
		return error_set(err, "rapl-perf: cannot parse %s/" POWER_PMU "/%s: '%s' (expected joules per count)",
				 pmu_sysfs_root(), file, text);
	return 0;
}

/* The events the PMU offers that we know, in the table's order. */
static size_t list_events(const char **out, size_t max)
{
	char path[PATH_MAX], file[NAME_MAX + 8], text[64];
	size_t n = 0;

	for (size_t i = 0; i < sizeof(domains) / sizeof(domains[0]) && n < max; i++) {
		snprintf(file, sizeof(file), "events/%s", domains[i].event);
		if (sysfs_path(path, sizeof(path), POWER_PMU "/%s", file) == 0 &&
		    sysfs_read_text(path, text, sizeof(text)) == 0)
			out[n++] = domains[i].event;
	}
	return n;
}

static int open_counter(const struct power_pmu *pmu, uint64_t config, int cpu,
			const char *event, int *fd, struct error *err)
{
	struct perf_event_attr attr = { .size = sizeof(attr), .type = pmu->type, .config = config };

	*fd = syscall(SYS_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (*fd >= 0)
		return 0;
	if (errno == EACCES || errno == EPERM)
		return error_set(err, "rapl-perf: cannot open %s on CPU %d: %s (system-wide events need root or CAP_PERFMON: sudo setcap cap_perfmon=ep SAMPLER, or use -p rapl as root)",
				 event, cpu, strerror(errno));
	return error_set(err, "rapl-perf: cannot open %s on CPU %d: perf_event_open: %s (the kernel refuses this PMU; use -p rapl)",
			 event, cpu, strerror(errno));
}

static void channel_name(const char *event, size_t package, size_t npackages, char *out, size_t size)
{
	const char *domain = domain_of(event);

	if (strcmp(domain, "package") == 0)
		snprintf(out, size, "package-%zu", package);
	else if (npackages > 1 && strcmp(domain, "psys") != 0)
		snprintf(out, size, "package-%zu/%s", package, domain);
	else
		snprintf(out, size, "%s", domain);
}

static int add_event(struct rapl_perf *rp, const struct power_pmu *pmu, const char *event,
		     struct error *err)
{
	/* psys covers the whole platform: counted once */
	size_t packages = strcmp(event, "energy-psys") == 0 ? 1 : pmu->ncpus;
	uint64_t config = 0;
	double joules = 0;

	if (read_event(event, &config, &joules, err) < 0)
		return -1;
	for (size_t p = 0; p < packages; p++) {
		struct rapl_perf_counter *c = &rp->counters[rp->n];
		struct channel_desc *ch = &rp->channels[rp->n];

		if (open_counter(pmu, config, pmu->cpus[p], event, &c->fd, err) < 0)
			return -1;
		rp->n++;
		c->joules = joules;
		if (read(c->fd, &c->last, sizeof(c->last)) != sizeof(c->last))
			return error_set(err, "rapl-perf: cannot read %s on CPU %d: %s",
					 event, pmu->cpus[p], strerror(errno));
		channel_name(event, p, pmu->ncpus, ch->name, sizeof(ch->name));
		strcpy(ch->source, "rapl-perf");
		strcpy(ch->unit, "uJ");
		ch->scale = 1e-6;
		ch->kind = CHANNEL_ENERGY;
		ch->scope = CHANNEL_PER_SAMPLE;
	}
	return 0;
}

static void describe_events(const char **have, size_t n, char *out, size_t size)
{
	size_t len = 0;

	out[0] = '\0';
	for (size_t i = 0; i < n && len < size; i++)
		len += snprintf(out + len, size - len, "%s%s (%s)", i ? ", " : "", have[i], domain_of(have[i]));
	if (n == 0)
		snprintf(out, size, "none");
}

/* Which events: named by perf name (energy-ram) or domain (dram, package);
 * "all"; by default the package energy. */
static int select_events(const struct pmu_args *list, const char **have, size_t nhave,
			 int *selected, struct error *err)
{
	for (size_t i = 0; i < nhave; i++)
		selected[i] = list->n == 0 && strcmp(have[i], "energy-pkg") == 0;
	for (unsigned a = 0; a < list->n; a++) {
		int found = 0;

		for (size_t i = 0; i < nhave; i++) {
			if (strcmp(list->items[a], "all") == 0 || strcmp(list->items[a], have[i]) == 0 ||
			    strcmp(list->items[a], domain_of(have[i])) == 0)
				selected[i] = found = 1;
		}
		if (!found) {
			char known[200];

			describe_events(have, nhave, known, sizeof(known));
			return error_set(err, "rapl-perf: no event '%s' in the power PMU (events here: %s; give event or domain names)",
					 list->items[a], known);
		}
	}
	return 0;
}

static void rapl_perf_release(void *state)
{
	struct rapl_perf *rp = state;

	if (!rp)
		return;
	for (size_t i = 0; i < rp->n; i++)
		close(rp->counters[i].fd);
	free(rp->counters);
	free(rp->channels);
	free(rp);
}

static int rapl_perf_init(void **state, const char *args, struct error *err)
{
	const char *have[sizeof(domains) / sizeof(domains[0])];
	int selected[sizeof(domains) / sizeof(domains[0])];
	struct rapl_perf *rp = NULL;
	struct power_pmu pmu;
	struct pmu_args list;
	size_t nhave, max;
	int ret = -1;

	if (pmu_args_split(&list, "rapl-perf", args, err) < 0)
		return -1;
	if (read_pmu(&pmu, err) < 0)
		goto out;
	nhave = list_events(have, sizeof(have) / sizeof(have[0]));
	if (select_events(&list, have, nhave, selected, err) < 0)
		goto out;
	max = nhave * pmu.ncpus;
	rp = calloc(1, sizeof(*rp));
	if (!rp || !(rp->counters = calloc(max + 1, sizeof(*rp->counters))) ||
	    !(rp->channels = calloc(max + 1, sizeof(*rp->channels)))) {
		error_set(err, "rapl-perf: out of memory");
		goto out;
	}
	for (size_t i = 0; i < nhave; i++)
		if (selected[i] && add_event(rp, &pmu, have[i], err) < 0)
			goto out;
	if (rp->n == 0) {
		error_set(err, "rapl-perf: the power PMU offers no package energy (name the events to record, e.g. -p rapl-perf:all)");
		goto out;
	}
	*state = rp;
	rp = NULL;
	ret = 0;
out:
	rapl_perf_release(rp);
	pmu_args_free(&list);
	return ret;
}

static size_t rapl_perf_channels(void *state, const struct channel_desc **channels)
{
	struct rapl_perf *rp = state;

	*channels = rp->channels;
	return rp->n;
}

static int rapl_perf_read(void *state, double *values, struct error *err)
{
	struct rapl_perf *rp = state;

	(void)err;
	for (size_t i = 0; i < rp->n; i++) {
		struct rapl_perf_counter *c = &rp->counters[i];
		uint64_t now;

		if (read(c->fd, &now, sizeof(now)) != sizeof(now)) {
			values[i] = NAN;
			continue;
		}
		values[i] = (double)(now - c->last) * c->joules * 1e6;
		c->last = now;
	}
	return 0;
}

static void rapl_perf_list(FILE *out)
{
	const char *have[sizeof(domains) / sizeof(domains[0])];
	size_t n = list_events(have, sizeof(have) / sizeof(have[0]));
	char known[200];

	describe_events(have, n, known, sizeof(known));
	fprintf(out, "events: %s", known);
}

const struct pmu_ops pmu_rapl_perf = {
	.name = "rapl-perf",
	.syntax = "rapl-perf[:DOMAIN|EVENT,...]",
	.summary = "RAPL energy through the perf power PMU (root or CAP_PERFMON; default: package; all: every event)",
	.list = rapl_perf_list,
	.init = rapl_perf_init,
	.channels = rapl_perf_channels,
	.read = rapl_perf_read,
	.release = rapl_perf_release,
};
