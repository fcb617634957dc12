/* genprofile - write a synthetic profile with known content, fast (through
 * the writer API, not text): for the export benchmark and export tests.
 *
 *   genprofile OUT THREAD_SAMPLES [THREADS [FORMAT]]
 *
 * The profiled "process" is genprofile itself: its maps come from
 * /proc/self/maps and its PCs lie inside its own functions hot_a, hot_b and
 * hot_c, so a perf report of the export must show them with CPU-time shares
 * of exactly 60%, 30% and 10%, and energy shares the same.  Every fifth
 * sample no thread ran (all cpu deltas 0) and its energy is split equally.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "../profile/profile.h"

#define CPU_PER_SAMPLE_NS 900000ULL
#define INTERVAL_NS 1000000ULL

__attribute__((noinline)) int hot_a(int x) { return x * 3 + 1; }
__attribute__((noinline)) int hot_b(int x) { return x * 5 + 2; }
__attribute__((noinline)) int hot_c(int x) { return x * 7 + 3; }

static uint64_t now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void fill_info(struct profile_info *info)
{
	struct profile_host *h = &info->host;

	memset(info, 0, sizeof(*info));
	info->format = PROFILE_FORMAT_NATIVE;
	snprintf(h->hostname, sizeof(h->hostname), "genhost");
	snprintf(h->os_release, sizeof(h->os_release), "6.1.0-gen");
	snprintf(h->os_version, sizeof(h->os_version), "#1 SMP");
	snprintf(h->arch, sizeof(h->arch), "x86_64");
	snprintf(h->cpu_desc, sizeof(h->cpu_desc), "Synthetic CPU @ 1.00GHz");
	snprintf(h->cpu_id, sizeof(h->cpu_id), "GenuineIntel,6,85,4");
	h->nr_cpus_online = h->nr_cpus_avail = 2;
	h->total_mem_kb = 4000000;
	snprintf(h->sampler_version, sizeof(h->sampler_version), "0.1.0");
	snprintf(h->cmdline, sizeof(h->cmdline), "sampler -f 1000 -p rapl -o out -- ./genprofile");
	h->realtime_ns = now_ns(CLOCK_REALTIME);
	h->monotonic_ns = now_ns(CLOCK_MONOTONIC);
	h->start_ns = h->monotonic_ns;
	h->target_hz = 1000;
	info->nchannels = 2;
	snprintf(info->channels[0].name, CHANNEL_NAME_MAX, "package-0");
	snprintf(info->channels[0].source, CHANNEL_SOURCE_MAX, "rapl");
	snprintf(info->channels[0].unit, CHANNEL_UNIT_MAX, "uJ");
	info->channels[0].scale = 1e-6;
	info->channels[0].kind = CHANNEL_ENERGY;
	info->channels[0].scope = CHANNEL_PER_SAMPLE;
	snprintf(info->channels[1].name, CHANNEL_NAME_MAX, "instructions");
	snprintf(info->channels[1].source, CHANNEL_SOURCE_MAX, "perf");
	info->channels[1].scale = 1;
	info->channels[1].kind = CHANNEL_COUNTER;
	info->channels[1].scope = CHANNEL_PER_THREAD;
	profile_info_index_channels(info);
}

/* The executable and library maps of this very process. */
static int write_maps(struct profile_writer *w, uint32_t pid, uint64_t t, struct error *err)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[8192];

	if (!f)
		return error_set(err, "cannot read /proc/self/maps");
	while (fgets(line, sizeof(line), f)) {
		struct profile_map m = { .pid = pid, .time_ns = t };
		char perms[8] = "", path[4096] = "";
		uint64_t start, end;

		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %x:%x %" SCNu64 " %4095[^\n]",
			   &start, &end, perms, &m.pgoff, &m.dev_major, &m.dev_minor, &m.inode,
			   path) < 7)
			continue;
		m.start = start;
		m.len = end - start;
		m.prot = (perms[0] == 'r' ? PROT_READ : 0) | (perms[1] == 'w' ? PROT_WRITE : 0) |
			 (perms[2] == 'x' ? PROT_EXEC : 0);
		snprintf(m.path, sizeof(m.path), "%s", path + strspn(path, " "));
		if (profile_write_map(w, &m, err) < 0) {
			fclose(f);
			return -1;
		}
	}
	fclose(f);
	return 0;
}

static const char *const function_names[] = { "hot_a", "hot_b", "hot_c" };

/* Which function thread i is in at sample j: 0, 1, 2 in a 6:3:1 pattern. */
static unsigned pick_function(uint64_t j, uint32_t i)
{
	unsigned k = (j * 7 + i * 3) % 10;

	return k < 6 ? 0 : k < 9 ? 1 : 2;
}

static uint64_t function_pc(unsigned f)
{
	switch (f) {
	case 0:
		return (uint64_t)(uintptr_t)hot_a + 1;
	case 1:
		return (uint64_t)(uintptr_t)hot_b + 2;
	default:
		return (uint64_t)(uintptr_t)hot_c + 3;
	}
}

/* What the profile itself says: each function's share of CPU time, of
 * thread-samples (wall time) and of energy (attributed by CPU time, split
 * equally when no thread ran), for the tests to compare perf report with. */
static void print_expected(const double cpu[3], const double wall[3], const double energy[3])
{
	double tc = cpu[0] + cpu[1] + cpu[2], tw = wall[0] + wall[1] + wall[2];
	double te = energy[0] + energy[1] + energy[2];

	for (unsigned f = 0; f < 3; f++)
		printf("expect %s cpu=%.4f wall=%.4f energy=%.4f\n", function_names[f],
		       tc ? 100 * cpu[f] / tc : 0, tw ? 100 * wall[f] / tw : 0,
		       te ? 100 * energy[f] / te : 0);
}

int main(int argc, char **argv)
{
	uint64_t total, nsamples, energy_total = 0, thread_samples = 0;
	uint32_t nthreads, pid = getpid();
	struct profile_thread_sample *ts;
	struct profile_stats stats = { 0 };
	struct profile_info info;
	struct profile_sample s;
	struct profile_writer *w;
	struct error err = { "" };
	uint64_t *counters, *cpu;
	double value, cpu_by_f[3] = { 0 }, wall_by_f[3] = { 0 }, energy_by_f[3] = { 0 };

	if (argc < 3) {
		fprintf(stderr, "usage: genprofile OUT THREAD_SAMPLES [THREADS [native|pperf]]\n");
		return 1;
	}
	total = strtoull(argv[2], NULL, 0);
	nthreads = argc > 3 ? strtoul(argv[3], NULL, 0) : 4;
	if (nthreads == 0)
		nthreads = 1;
	nsamples = total / nthreads;
	fill_info(&info);
	if (argc > 4 && strcmp(argv[4], "pperf") == 0)
		info.format = PROFILE_FORMAT_PPERF;
	w = profile_writer_open(argv[1], info.format, &info, &err);
	if (!w)
		goto fail;
	uint64_t t = info.host.start_ns;
	struct profile_process p = { .pid = pid, .time_ns = t };
	struct profile_exec e = { .pid = pid, .time_ns = t };

	snprintf(e.comm, sizeof(e.comm), "genprofile");
	snprintf(e.argv, sizeof(e.argv), "./genprofile %s", argv[2]);
	if (profile_write_process(w, &p, &err) < 0 || profile_write_exec(w, &e, &err) < 0)
		goto fail;
	for (uint32_t i = 0; i < nthreads; i++) {
		struct profile_thread th = { pid + i, pid, t };

		if (profile_write_thread(w, &th, &err) < 0)
			goto fail;
	}
	if (write_maps(w, pid, t, &err) < 0)
		goto fail;
	ts = calloc(nthreads, sizeof(*ts));
	counters = calloc(nthreads, sizeof(*counters));
	cpu = calloc(nthreads, sizeof(*cpu));
	for (uint32_t i = 0; i < nthreads; i++) {
		ts[i].tid = pid + i;
		ts[i].counters = &counters[i];
	}
	s.threads = ts;
	s.nthreads = nthreads;
	s.values = &value;
	for (uint64_t j = 0; j < nsamples; j++) {
		bool idle = j % 5 == 4;

		t += INTERVAL_NS;
		s.time_ns = t;
		value = 1000 + j % 17;
		energy_total += 1000 + j % 17;
		for (uint32_t i = 0; i < nthreads; i++) {
			unsigned f = pick_function(j, i);

			if (!idle) {
				cpu[i] += CPU_PER_SAMPLE_NS;
				counters[i] += 1000;
				cpu_by_f[f] += CPU_PER_SAMPLE_NS;
			}
			/* all threads ran alike (or none ran): equal energy shares */
			energy_by_f[f] += value / nthreads;
			wall_by_f[f] += 1;
			ts[i].pc = function_pc(f);
			ts[i].cpu_ns = cpu[i];
		}
		thread_samples += nthreads;
		if (profile_write_sample(w, &s, &err) < 0)
			goto fail;
	}
	stats.wall_ns = nsamples * INTERVAL_NS;
	stats.samples = nsamples;
	stats.thread_samples = thread_samples;
	stats.threads_seen = nthreads;
	stats.processes_seen = 1;
	stats.nchannels = 2;
	stats.channel_totals[0] = energy_total;
	stats.channel_totals[1] = 1000.0 * nthreads * (nsamples - nsamples / 5);
	if (profile_writer_finish(w, &stats, NULL, &err) < 0)
		goto fail;
	printf("%" PRIu64 " samples, %" PRIu64 " thread-samples, energy %" PRIu64 " uJ\n",
	       nsamples, thread_samples, energy_total);
	print_expected(cpu_by_f, wall_by_f, energy_by_f);
	free(ts);
	free(counters);
	free(cpu);
	return 0;
fail:
	fprintf(stderr, "genprofile: error: %s\n", err.msg);
	return 1;
}
