/* fuzz_pmu_args - libFuzzer target over the plug-ins' argument parsers.
 *
 * Each input is the text after "-p NAME:".  It goes through the shared
 * splitter and option helpers (pmu/args.c), the scpi parser (no meter is
 * contacted: scpi_check_args) and the whole none, rapl and rapl-perf
 * plug-ins, on the small fake sysfs made at start-up (rapl-perf's "power"
 * PMU there is the software cpu-clock event).  Plug-ins that open devices
 * or counters named by their argument (scpi, perf, sensors) are not
 * initialised: fuzzed text could name any device.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../pmu/args.h"
#include "../pmu/pmu.h"
#include "../pmu/scpi.h"
#include "fake-sysfs.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return fake_sysfs_setup();
}

static void split_and_read_options(const char *text)
{
	static const char *const keys[] = { "timeout_ms", "unit", "query", "name", "" };
	struct pmu_args args;
	struct error err;

	if (pmu_args_split(&args, "fuzz", text, &err) < 0)
		return;
	for (unsigned i = 0; i < args.n; i++) {
		for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
			const char *v = pmu_arg_option(args.items[i], keys[k]);
			unsigned long out;

			if (v)
				pmu_arg_ulong("fuzz", keys[k], v, 1, 60000, &out, &err);
		}
	}
	pmu_args_free(&args);
}

static void run_plugin(const char *name, const char *text)
{
	struct pmu_set set = { 0 };
	struct error err;
	size_t len = strlen(name) + strlen(text) + 2;
	char *spec = malloc(len);
	double values[64];

	if (!spec)
		return;
	snprintf(spec, len, "%s:%s", name, text);
	if (pmu_set_add(&set, spec, &err) == 0 && set.nsample <= 64)
		pmu_set_read(&set, values, &err);
	pmu_set_release(&set);
	free(spec);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	struct error err;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	split_and_read_options(text);
	scpi_check_args(text, &err);
	run_plugin("rapl", text);
	run_plugin("rapl-perf", text);
	run_plugin("none", text);
	free(text);
	return 0;
}
