/* host.c - host facts for profile_host (what perf.data feature headers need). */
#include "host.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t host_now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

/* The "some" line of /proc/pressure/cpu into line, or -1. */
static int cpu_pressure_some(char *line, size_t size)
{
	FILE *f = fopen("/proc/pressure/cpu", "re");
	int found = -1;

	if (!f)
		return -1;
	while (found < 0 && fgets(line, (int)size, f))
		if (strncmp(line, "some ", 5) == 0)
			found = 0;
	fclose(f);
	return found;
}

long long host_cpu_wait_us(void)
{
	char line[256];
	const char *t;

	if (cpu_pressure_some(line, sizeof(line)) < 0 || !(t = strstr(line, " total=")))
		return -1;
	return strtoll(t + 7, NULL, 10);
}

double host_cpu_busy_share(void)
{
	char line[256];
	const char *a;
	double pct;

	if (cpu_pressure_some(line, sizeof(line)) < 0 || !(a = strstr(line, " avg10=")))
		return -1;
	pct = strtod(a + 7, NULL);
	return pct >= 0 && pct <= 100 ? pct / 100 : -1;
}

int host_runnable_tasks(void)
{
	FILE *f = fopen("/proc/stat", "re");
	char line[256];
	int n = -1;

	if (!f)
		return -1;
	while (n < 0 && fgets(line, sizeof(line), f))
		if (strncmp(line, "procs_running ", 14) == 0)
			n = atoi(line + 14);
	fclose(f);
	return n;
}

/* Copy, truncating to size (uname fields may be longer than ours). */
static void copy_str(char *dst, size_t size, const char *src)
{
	size_t len = strnlen(src, size - 1);

	memcpy(dst, src, len);
	dst[len] = '\0';
}

/* "key<spaces>: value" lines of /proc/cpuinfo: the first value of key. */
static int cpuinfo_value(FILE *f, const char *key, char *out, size_t size)
{
	char line[512];
	size_t klen = strlen(key);

	rewind(f);
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');
		char *end;

		if (strncmp(line, key, klen) || !colon || (line[klen] != ' ' && line[klen] != '\t' && line[klen] != ':'))
			continue;
		colon++;
		while (*colon == ' ')
			colon++;
		end = colon + strlen(colon);
		while (end > colon && (end[-1] == '\n' || end[-1] == ' '))
			*--end = '\0';
		copy_str(out, size, colon);
		return 0;
	}
	return -1;
}

static void fill_cpu(struct profile_host *host)
{
	/* sized so that the joined string always fits cpu_id[64] */
	char vendor[24] = "", family[12] = "", model[12] = "", stepping[12] = "";
	FILE *f = fopen("/proc/cpuinfo", "re");

	if (!f)
		return;
	if (cpuinfo_value(f, "model name", host->cpu_desc, sizeof(host->cpu_desc)) < 0)
		cpuinfo_value(f, "Hardware", host->cpu_desc, sizeof(host->cpu_desc));
	/* perf's cpuid string on x86: vendor,family,model,stepping */
	if (cpuinfo_value(f, "vendor_id", vendor, sizeof(vendor)) == 0 &&
	    cpuinfo_value(f, "cpu family", family, sizeof(family)) == 0 &&
	    cpuinfo_value(f, "model", model, sizeof(model)) == 0) {
		cpuinfo_value(f, "stepping", stepping, sizeof(stepping));
		snprintf(host->cpu_id, sizeof(host->cpu_id), "%s,%s,%s,%s",
			 vendor, family, model, stepping[0] ? stepping : "0");
	} else if (cpuinfo_value(f, "CPU implementer", vendor, sizeof(vendor)) == 0) {
		cpuinfo_value(f, "CPU part", model, sizeof(model));
		snprintf(host->cpu_id, sizeof(host->cpu_id), "%s,%s", vendor, model);
	}
	fclose(f);
}

static uint64_t mem_total_kb(void)
{
	char line[256];
	unsigned long long kb = 0;
	FILE *f = fopen("/proc/meminfo", "re");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemTotal: %llu kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

static void join_args(char *out, size_t size, int argc, char **argv)
{
	size_t used = 0;

	out[0] = '\0';
	for (int i = 0; i < argc && used + 1 < size; i++) {
		int n = snprintf(out + used, size - used, "%s%s", i ? " " : "", argv[i]);

		if (n < 0)
			break;
		used += (size_t)n;
	}
}

/* Read the monotonic clock on both sides of the realtime one and take the
 * middle: the pair then names one instant within a microsecond. */
static void fill_anchor(struct profile_host *host)
{
	uint64_t best = UINT64_MAX;

	for (int i = 0; i < 3; i++) {
		uint64_t m0 = clock_ns(CLOCK_MONOTONIC);
		uint64_t rt = clock_ns(CLOCK_REALTIME);
		uint64_t m1 = clock_ns(CLOCK_MONOTONIC);

		if (m1 - m0 < best) {
			best = m1 - m0;
			host->realtime_ns = rt;
			host->monotonic_ns = m0 + (m1 - m0) / 2;
		}
	}
}

void host_fill(struct profile_host *host, int argc, char **argv, double target_hz)
{
	struct utsname u;

	memset(host, 0, sizeof(*host));
	if (uname(&u) == 0) {
		copy_str(host->hostname, sizeof(host->hostname), u.nodename);
		copy_str(host->os_release, sizeof(host->os_release), u.release);
		copy_str(host->os_version, sizeof(host->os_version), u.version);
		copy_str(host->arch, sizeof(host->arch), u.machine);
	}
	fill_cpu(host);
	host->nr_cpus_online = (uint32_t)sysconf(_SC_NPROCESSORS_ONLN);
	host->nr_cpus_avail = (uint32_t)sysconf(_SC_NPROCESSORS_CONF);
	host->total_mem_kb = mem_total_kb();
	copy_str(host->sampler_version, sizeof(host->sampler_version), SAMPLER_VERSION);
	join_args(host->cmdline, sizeof(host->cmdline), argc, argv);
	fill_anchor(host);
	host->target_hz = target_hz;
}
