/* rapl - energy per RAPL domain from the Linux powercap tree.
 *
 *   <root>/class/powercap/intel-rapl:N[:M]/{name,energy_uj,max_energy_range_uj}
 *
 * energy_uj is a free-running counter that wraps at max_energy_range_uj, so
 * each read reports the energy since the previous read, across one wrap.
 * The files stay open and are re-read with pread(): one syscall per domain
 * per sample.  The first reading is taken in init(), so the first sample
 * holds the energy since the plug-in was set up.
 */
#include "pmu.h"
#include "args.h"
#include "sysfs.h"
#include "../common/grow.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ZONE_PREFIX "intel-rapl:"

/* One powercap zone as found in the tree. */
struct rapl_zone {
	char dir[NAME_MAX + 1];		/* "intel-rapl:0:1" */
	char name[CHANNEL_NAME_MAX];	/* "core" */
	int parent;			/* index of the top-level zone, -1 if top */
	unsigned major, minor;		/* N and M, for sorting */
	int selected;
};

struct rapl_domain {
	int fd;				/* energy_uj, kept open */
	uint64_t range;			/* max_energy_range_uj */
	uint64_t last;			/* previous energy_uj reading */
};

struct rapl {
	size_t n;
	struct rapl_domain *domains;
	struct channel_desc *channels;
};

static int read_error(const char *path, int errnum, struct error *err)
{
	if (errnum == EACCES || errnum == EPERM)
		return error_set(err, "rapl: cannot read %s: %s (since Linux 5.10 only root may read RAPL energy; run as root or: sudo chmod o+r %s/class/powercap/intel-rapl:*/energy_uj)",
				 path, strerror(errnum), pmu_sysfs_root());
	return error_set(err, "rapl: cannot read %s: %s (is the powercap tree complete? check ls %s)",
			 path, strerror(errnum), path);
}

static int read_zone_file(const char *zone, const char *file, char *buf, size_t size,
			  struct error *err)
{
	char path[PATH_MAX];

	if (sysfs_path(path, sizeof(path), "class/powercap/%s/%s", zone, file) < 0)
		return error_set(err, "rapl: path too long under %s (use a shorter SAMPLER_SYSFS_ROOT)",
				 pmu_sysfs_root());
	if (sysfs_read_text(path, buf, size) < 0)
		return read_error(path, errno, err);
	return 0;
}

/* "0:1" for intel-rapl:0:1 */
static const char *zone_index(const struct rapl_zone *zone)
{
	return zone->dir + strlen(ZONE_PREFIX);
}

static int zone_order(const void *a, const void *b)
{
	const struct rapl_zone *x = a, *y = b;

	if (x->major != y->major)
		return x->major < y->major ? -1 : 1;
	return (x->minor > y->minor) - (x->minor < y->minor);
}

/* Parse "intel-rapl:N" or "intel-rapl:N:M"; minor is 0 for top-level zones
 * and M + 1 for sub-zones, so that sorting puts each package first. */
static int parse_zone_dir(const char *dir, struct rapl_zone *zone)
{
	unsigned major, minor;
	char extra;

	if (strncmp(dir, ZONE_PREFIX, strlen(ZONE_PREFIX)) != 0 ||
	    strlen(dir) >= sizeof(zone->dir))
		return -1;
	if (sscanf(dir, ZONE_PREFIX "%u:%u%c", &major, &minor, &extra) == 2) {
		zone->minor = minor + 1;
	} else if (sscanf(dir, ZONE_PREFIX "%u%c", &major, &extra) == 1) {
		zone->minor = 0;
	} else {
		return -1;
	}
	zone->major = major;
	strcpy(zone->dir, dir);
	zone->parent = -1;
	zone->selected = 0;
	return 0;
}

/* Find every zone under class/powercap, sorted, with their names. */
static int scan_zones(struct rapl_zone **out, size_t *count, struct error *err)
{
	char path[PATH_MAX];
	struct rapl_zone *zones = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	DIR *dir;

	if (sysfs_path(path, sizeof(path), "class/powercap") < 0 || !(dir = opendir(path)))
		return error_set(err, "rapl: no %s on this machine (RAPL needs an Intel or AMD CPU and the intel_rapl_msr driver: sudo modprobe intel_rapl_msr; virtual machines usually have none)",
				 path);
	while ((de = readdir(dir))) {
		struct rapl_zone zone;

		if (parse_zone_dir(de->d_name, &zone) < 0)
			continue;
		if (GROW_ARRAY(zones, cap, n + 1) < 0) {
			closedir(dir);
			free(zones);
			return error_set(err, "rapl: out of memory");
		}
		zones[n++] = zone;
	}
	closedir(dir);
	if (n == 0)
		return error_set(err, "rapl: no intel-rapl zones in %s (load the driver: sudo modprobe intel_rapl_msr)",
				 path);
	qsort(zones, n, sizeof(*zones), zone_order);
	for (size_t i = 0; i < n; i++) {
		if (read_zone_file(zones[i].dir, "name", zones[i].name, sizeof(zones[i].name), err) < 0) {
			free(zones);
			return -1;
		}
		for (size_t p = 0; zones[i].minor && p < i; p++)
			if (zones[p].major == zones[i].major && zones[p].minor == 0)
				zones[i].parent = p;
	}
	*out = zones;
	*count = n;
	return 0;
}

/* Channel name: the zone's name, qualified by its package when another
 * zone has the same name (two sockets each have a "core"). */
static void zone_channel_name(const struct rapl_zone *zones, size_t n, size_t i,
			      char *out, size_t size)
{
	int dup = 0;

	for (size_t j = 0; j < n; j++)
		dup |= j != i && strcmp(zones[j].name, zones[i].name) == 0;
	if (dup && zones[i].parent >= 0)
		snprintf(out, size, "%.31s/%.31s", zones[zones[i].parent].name, zones[i].name);
	else
		snprintf(out, size, "%s", zones[i].name);
}

static void describe_zones(const struct rapl_zone *zones, size_t n, char *out, size_t size)
{
	size_t len = 0;

	out[0] = '\0';
	for (size_t i = 0; i < n && len < size; i++) {
		char name[CHANNEL_NAME_MAX];

		zone_channel_name(zones, n, i, name, sizeof(name));
		len += snprintf(out + len, size - len, "%s%s (%s)", i ? ", " : "", name, zone_index(&zones[i]));
	}
}

static int select_zones(struct rapl_zone *zones, size_t n, const struct pmu_args *list,
			struct error *err)
{
	for (size_t i = 0; i < n && list->n == 0; i++)
		zones[i].selected = zones[i].parent < 0;
	for (unsigned a = 0; a < list->n; a++) {
		const char *want = list->items[a];
		int found = 0;

		for (size_t i = 0; i < n; i++) {
			char qualified[CHANNEL_NAME_MAX];

			zone_channel_name(zones, n, i, qualified, sizeof(qualified));
			if (strcmp(want, "all") == 0 || strcmp(want, zones[i].name) == 0 ||
			    strcmp(want, zone_index(&zones[i])) == 0 || strcmp(want, qualified) == 0) {
				zones[i].selected = 1;
				found = 1;
			}
		}
		if (!found) {
			char known[400];

			describe_zones(zones, n, known, sizeof(known));
			return error_set(err, "rapl: no RAPL domain '%s' in %s/class/powercap (domains here: %s; give names or indexes, e.g. -p rapl:%s)",
					 want, pmu_sysfs_root(), known, zones[0].name);
		}
	}
	return 0;
}

static int open_domain(const struct rapl_zone *zone, struct rapl_domain *dom, struct error *err)
{
	char path[PATH_MAX], text[32];

	if (read_zone_file(zone->dir, "max_energy_range_uj", text, sizeof(text), err) < 0)
		return -1;
	if (sysfs_parse_u64(text, &dom->range) < 0 || dom->range == 0)
		return error_set(err, "rapl: bad max_energy_range_uj '%s' in %s/class/powercap/%s (expected a positive number of microjoules)",
				 text, pmu_sysfs_root(), zone->dir);
	if (sysfs_path(path, sizeof(path), "class/powercap/%s/energy_uj", zone->dir) < 0)
		return read_error(path, errno, err);
	dom->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (dom->fd < 0 || sysfs_pread_text(dom->fd, text, sizeof(text)) < 0) {
		int errnum = errno;

		if (dom->fd >= 0)
			close(dom->fd);
		dom->fd = -1;
		return read_error(path, errnum, err);
	}
	if (sysfs_parse_u64(text, &dom->last) < 0) {
		close(dom->fd);
		dom->fd = -1;
		return error_set(err, "rapl: cannot parse %s: '%s' (expected a number of microjoules)", path, text);
	}
	return 0;
}

static void rapl_release(void *state)
{
	struct rapl *rapl = state;

	if (!rapl)
		return;
	for (size_t i = 0; i < rapl->n; i++)
		if (rapl->domains[i].fd >= 0)
			close(rapl->domains[i].fd);
	free(rapl->domains);
	free(rapl->channels);
	free(rapl);
}

static int rapl_open(struct rapl *rapl, const struct rapl_zone *zones, size_t n, struct error *err)
{
	size_t count = 0;

	for (size_t i = 0; i < n; i++)
		count += zones[i].selected;
	rapl->domains = calloc(count, sizeof(*rapl->domains));
	rapl->channels = calloc(count, sizeof(*rapl->channels));
	if (!rapl->domains || !rapl->channels)
		return error_set(err, "rapl: out of memory");
	for (size_t i = 0; i < n; i++) {
		struct channel_desc *ch = &rapl->channels[rapl->n];

		if (!zones[i].selected)
			continue;
		if (open_domain(&zones[i], &rapl->domains[rapl->n], err) < 0)
			return -1;
		rapl->n++;
		zone_channel_name(zones, n, i, ch->name, sizeof(ch->name));
		strcpy(ch->source, "rapl");
		strcpy(ch->unit, "uJ");
		ch->scale = 1e-6;
		ch->kind = CHANNEL_ENERGY;
		ch->scope = CHANNEL_PER_SAMPLE;
	}
	return 0;
}

static int rapl_init(void **state, const char *args, struct error *err)
{
	struct rapl_zone *zones = NULL;
	struct rapl *rapl = NULL;
	struct pmu_args list;
	size_t n;
	int ret = -1;

	if (pmu_args_split(&list, "rapl", args, err) < 0)
		return -1;
	if (scan_zones(&zones, &n, err) < 0)
		goto out;
	rapl = calloc(1, sizeof(*rapl));
	if (!rapl) {
		error_set(err, "rapl: out of memory");
		goto out;
	}
	if (select_zones(zones, n, &list, err) < 0 || rapl_open(rapl, zones, n, err) < 0)
		goto out;
	*state = rapl;
	rapl = NULL;
	ret = 0;
out:
	rapl_release(rapl);
	free(zones);
	pmu_args_free(&list);
	return ret;
}

static size_t rapl_channels(void *state, const struct channel_desc **channels)
{
	struct rapl *rapl = state;

	*channels = rapl->channels;
	return rapl->n;
}

/* Energy since the previous reading.  A counter below the previous value
 * wrapped once (the counter runs from 0 to range inclusive).  An unreadable
 * value is a missing reading; the next one then covers both intervals, so
 * the run's total stays right. */
static int rapl_read(void *state, double *values, struct error *err)
{
	struct rapl *rapl = state;
	char text[32];

	(void)err;
	for (size_t i = 0; i < rapl->n; i++) {
		struct rapl_domain *dom = &rapl->domains[i];
		uint64_t now;

		if (sysfs_pread_text(dom->fd, text, sizeof(text)) < 0 || sysfs_parse_u64(text, &now) < 0) {
			values[i] = NAN;
			continue;
		}
		if (now >= dom->last)
			values[i] = (double)(now - dom->last);
		else
			values[i] = (double)(dom->range - dom->last + now + 1);
		dom->last = now;
	}
	return 0;
}

static void rapl_list(FILE *out)
{
	struct rapl_zone *zones;
	char text[400];
	size_t n;

	if (scan_zones(&zones, &n, NULL) < 0)
		return;
	describe_zones(zones, n, text, sizeof(text));
	fprintf(out, "domains (index): %s", text);
	free(zones);
}

const struct pmu_ops pmu_rapl = {
	.name = "rapl",
	.syntax = "rapl[:DOMAIN,...]",
	.summary = "RAPL energy per domain (package-0, core, dram, ... or index 0, 0:1; default: all packages; all: every domain)",
	.list = rapl_list,
	.init = rapl_init,
	.channels = rapl_channels,
	.read = rapl_read,
	.release = rapl_release,
};
