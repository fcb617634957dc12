/* fuzz_export - libFuzzer target over the profile reader and every exporter.
 *
 * Each input is a would-be profile (any format, plain or bzip2).  It is
 * exported to perf.data (file and pipe mode), CSV and columns with symbols,
 * folded stacks and the --info summary, all written to /dev/null: the
 * reader must reject or cut short bad input cleanly and the exporters must
 * cope with whatever records come out (maps naming any file included).
 */
#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../export/export.h"

static void export_to_null(const struct exporter *ex, const char *input, const char *output,
			   bool symbols)
{
	struct export_options opt = { .input = input, .output = output, .symbols = symbols };
	struct export_result res;
	struct error err;

	export_profile(ex, &opt, &res, &err);
}

/* Pipe mode writes to stdout: send it to /dev/null (libFuzzer talks on stderr). */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	int fd = open("/dev/null", O_WRONLY);

	(void)argc;
	(void)argv;
	if (fd >= 0) {
		dup2(fd, STDOUT_FILENO);
		close(fd);
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	int fd = memfd_create("fuzz-profile", MFD_CLOEXEC);

	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	export_to_null(&perf_exporter, path, "/dev/null", false);
	export_to_null(&perf_exporter, path, "-", false);
	export_to_null(&csv_exporter, path, "/dev/null", true);
	export_to_null(&columns_exporter, path, "/dev/null", true);
	export_to_null(&info_exporter, path, "/dev/null", false);
	export_to_null(&folded_exporter, path, "/dev/null", false);
	export_to_null(&firefox_exporter, path, "/dev/null", false);
	close(fd);
	return 0;
}
