/* fake-sysfs.c - see fake-sysfs.h. */
#include "fake-sysfs.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char root[PATH_MAX];

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)type;
	(void)ftw;
	remove(path);
	return 0;
}

void fake_sysfs_remove(const char *dir)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", root, dir);
	nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* At exit: leave nothing behind in $TMPDIR. */
static void remove_tree(void)
{
	nftw(root, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* mkdir -p <root>/<dir> */
static int make_dirs(const char *dir)
{
	char path[PATH_MAX];
	size_t len = (size_t)snprintf(path, sizeof(path), "%s/%s", root, dir);

	if (len >= sizeof(path))
		return -1;
	for (char *p = path + strlen(root) + 1; ; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		char c = *p;

		*p = '\0';
		if (mkdir(path, 0755) < 0 && errno != EEXIST)
			return -1;
		*p = c;
		if (!c)
			return 0;
	}
}

int fake_sysfs_write(const char *dir, const char *file, const void *data, size_t len)
{
	char path[PATH_MAX];
	int fd;
	ssize_t n;

	if (make_dirs(dir) < 0)
		return -1;
	snprintf(path, sizeof(path), "%s/%s/%s", root, dir, file);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	n = write(fd, data, len);
	close(fd);
	return n == (ssize_t)len ? 0 : -1;
}

static int write_text(const char *dir, const char *file, const char *text)
{
	return fake_sysfs_write(dir, file, text, strlen(text));
}

static int make_zone(const char *zone, const char *name)
{
	char dir[64];

	snprintf(dir, sizeof(dir), "class/powercap/%s", zone);
	return write_text(dir, "name", name) | write_text(dir, "max_energy_range_uj", "262143328850\n") |
	       write_text(dir, "energy_uj", "1000\n");
}

static int make_power_pmu(void)
{
	const char *dir = "bus/event_source/devices/power";
	const char *events = "bus/event_source/devices/power/events";

	return write_text(dir, "type", "1\n") | write_text(dir, "cpumask", "0\n") |
	       write_text(events, "energy-pkg", "event=0x00\n") |
	       write_text(events, "energy-pkg.scale", "1e-9\n") |
	       write_text(events, "energy-ram", "event=0x00\n") |
	       write_text(events, "energy-ram.scale", "1e-9\n");
}

int fake_sysfs_setup(void)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(root, sizeof(root), "%s/fuzz-sysfs.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(root)) {
		perror("fake-sysfs: mkdtemp");
		return -1;
	}
	atexit(remove_tree);
	if (make_zone("intel-rapl:0", "package-0\n") | make_zone("intel-rapl:0:0", "core\n") |
	    make_zone("intel-rapl:0:1", "dram\n") | make_power_pmu()) {
		perror("fake-sysfs: cannot write the tree");
		return -1;
	}
	setenv("SAMPLER_SYSFS_ROOT", root, 1);
	return 0;
}
