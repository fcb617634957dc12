/* fuzz_pmu_text - libFuzzer target over the text the plug-ins read from
 * devices and sysfs.  The first byte picks the reader:
 *   0  a sysfs number (sysfs_parse_u64)
 *   1  a meter's byte stream, cut in pieces of data[1] bytes, through the
 *      scpi plug-in's line assembly and reading parser (scpi_scan_replies)
 *   2  a powercap zone with fuzzed directory suffix and name,
 *      max_energy_range_uj and two energy_uj values (NUL-separated), read
 *      by the whole rapl plug-in: init, two reads, release
 *   3  the perf "power" PMU's cpumask, an event's text and its scale
 *      (NUL-separated) read by the whole rapl-perf plug-in; the PMU type
 *      stays 1 (software events), so nothing but a software counter opens
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../pmu/pmu.h"
#include "../pmu/scpi.h"
#include "../pmu/sysfs.h"
#include "fake-sysfs.h"

#define FIELDS 5	/* zone suffix, name, range, energy, energy again */

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return fake_sysfs_setup();
}

static void parse_number(const uint8_t *data, size_t size)
{
	char *text = strndup((const char *)data, size);
	uint64_t value;

	if (text)
		sysfs_parse_u64(text, &value);
	free(text);
}

/* Split at NULs into at most FIELDS fields (missing ones are empty). */
static void split_fields(const uint8_t *data, size_t size, const char *field[FIELDS],
			 size_t len[FIELDS])
{
	for (int i = 0; i < FIELDS; i++) {
		const uint8_t *nul = size ? memchr(data, 0, size) : NULL;
		size_t n = nul ? (size_t)(nul - data) : size;

		field[i] = (const char *)data;
		len[i] = n;
		data += n + (nul != NULL);
		size -= n + (nul != NULL);
	}
}

/* "intel-rapl:" + the suffix, with nothing that leaves the directory. */
static void zone_name(const char *suffix, size_t len, char *out, size_t size)
{
	size_t n = snprintf(out, size, "intel-rapl:");

	for (size_t i = 0; i < len && n + 1 < size && n < 40; i++)
		out[n++] = suffix[i] == '/' ? '_' : suffix[i];
	out[n] = '\0';
}

static void read_zone(const uint8_t *data, size_t size)
{
	const char *field[FIELDS];
	size_t len[FIELDS];
	char zone[64], dir[96];
	struct pmu_set set = { 0 };
	struct error err;
	double values[8];

	split_fields(data, size, field, len);
	zone_name(field[0], len[0], zone, sizeof(zone));
	if (strcmp(zone, "intel-rapl:0") == 0 || strcmp(zone, "intel-rapl:0:0") == 0 ||
	    strcmp(zone, "intel-rapl:0:1") == 0)
		return;		/* the fixed zones stay as they are */
	snprintf(dir, sizeof(dir), "class/powercap/%s", zone);
	if (fake_sysfs_write(dir, "name", field[1], len[1]) < 0 ||
	    fake_sysfs_write(dir, "max_energy_range_uj", field[2], len[2]) < 0 ||
	    fake_sysfs_write(dir, "energy_uj", field[3], len[3]) < 0)
		goto out;
	if (pmu_set_add(&set, "rapl:all", &err) == 0 && set.nsample <= 8) {
		pmu_set_read(&set, values, &err);
		if (fake_sysfs_write(dir, "energy_uj", field[4], len[4]) == 0)
			pmu_set_read(&set, values, &err);
	}
	pmu_set_release(&set);
out:
	fake_sysfs_remove(dir);
}

#define POWER_PMU "bus/event_source/devices/power"

static void read_power_pmu(const uint8_t *data, size_t size)
{
	const char *field[FIELDS];
	size_t len[FIELDS];
	struct pmu_set set = { 0 };
	struct error err;
	double values[8];

	split_fields(data, size, field, len);
	if (fake_sysfs_write(POWER_PMU, "cpumask", field[0], len[0]) < 0 ||
	    fake_sysfs_write(POWER_PMU "/events", "energy-psys", field[1], len[1]) < 0 ||
	    fake_sysfs_write(POWER_PMU "/events", "energy-psys.scale", field[2], len[2]) < 0)
		goto out;
	if (pmu_set_add(&set, "rapl-perf:psys", &err) == 0 && set.nsample <= 8)
		pmu_set_read(&set, values, &err);
	pmu_set_release(&set);
out:
	fake_sysfs_write(POWER_PMU, "cpumask", "0\n", 2);
	fake_sysfs_remove(POWER_PMU "/events/energy-psys");
	fake_sysfs_remove(POWER_PMU "/events/energy-psys.scale");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	switch (data[0] % 4) {
	case 0:
		parse_number(data + 1, size - 1);
		break;
	case 1:
		if (size >= 2)
			scpi_scan_replies((const char *)data + 2, size - 2, data[1]);
		break;
	case 2:
		read_zone(data + 1, size - 1);
		break;
	case 3:
		read_power_pmu(data + 1, size - 1);
		break;
	}
	return 0;
}
