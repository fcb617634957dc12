/* profile-synth - synthetic profiles for the format tests and benchmarks.
 *
 *   profile-synth write OUT [THREADS [SAMPLES [SEED]]]
 *	write a steady run through the profile API: 1 kHz with +-30 us of
 *	jitter, each thread at one of a few hot PCs (now and then a cold
 *	one), CPU deltas of about 1 ms; prints the size and the bytes per
 *	thread-sample
 *   profile-synth write OUT THREADS SAMPLES SEED HANG
 *	the same, but after HANG samples print "hanging" and wait to be
 *	killed (for crash-safety tests: SIGKILL with records still buffered)
 *   profile-synth read FILE [REPEAT]
 *	read FILE REPEAT times; prints thread-samples and thread-samples/s
 *	(a figure for benchmarks, never asserted in tests)
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../../profile/profile.h"

#define PROG "profile-synth"

/* xorshift64*: reproducible without global state */
static uint64_t next_random(uint64_t *state)
{
	*state ^= *state >> 12;
	*state ^= *state << 25;
	*state ^= *state >> 27;
	return *state * 2685821657736338717ull;
}

static uint64_t uniform(uint64_t *state, uint64_t n)
{
	return next_random(state) % n;
}

static void fill_info(struct profile_info *info)
{
	memset(info, 0, sizeof(*info));
	strcpy(info->host.hostname, "synth");
	strcpy(info->host.arch, "x86_64");
	info->host.nr_cpus_online = info->host.nr_cpus_avail = 2;
	info->host.start_ns = 1000000000;
	info->host.target_hz = 1000;
}

struct run {
	uint32_t nthreads;
	uint64_t samples;
	uint64_t seed;
	uint64_t hang_after;		/* 0: never */
	uint64_t thread_samples;
};

/* Hot loop PCs of a function, weighted towards the first. */
static uint64_t pick_pc(uint64_t *rnd)
{
	static const uint64_t hot[] = { 0x555555555140, 0x555555555148, 0x555555555150,
					0x555555555163, 0x5555555551a0 };
	uint64_t r = uniform(rnd, 100);

	if (r < 40)
		return hot[0];
	if (r < 95)
		return hot[1 + r % 4];
	return 0x7ffff7a00000 + uniform(rnd, 0x100000);	/* now and then in libc */
}

static int write_run(struct profile_writer *w, struct run *run, struct error *err)
{
	struct profile_thread_sample *ts = calloc(run->nthreads, sizeof(*ts));
	struct profile_sample s = { .threads = ts, .nthreads = run->nthreads };
	uint64_t t = 1000000000, rnd = run->seed | 1;
	int ret = 0;

	if (!ts)
		return error_set(err, "out of memory");
	for (uint32_t i = 0; i < run->nthreads && ret == 0; i++) {
		struct profile_thread th = { .tid = 1000 + i, .pid = 1000, .time_ns = t };

		ts[i].tid = th.tid;
		ret = profile_write_thread(w, &th, err);
	}
	for (uint64_t n = 0; n < run->samples && ret == 0; n++) {
		/* an absolute schedule: slot + a stop latency of 5..65 us */
		s.time_ns = t + 1000000 * (n + 1) + 5000 + uniform(&rnd, 60000);
		for (uint32_t i = 0; i < run->nthreads; i++) {
			ts[i].pc = pick_pc(&rnd);
			ts[i].cpu_ns += 940000 + uniform(&rnd, 60000);
		}
		ret = profile_write_sample(w, &s, err);
		run->thread_samples += run->nthreads;
		if (n + 1 == run->hang_after) {
			printf("hanging\n");
			fflush(stdout);
			for (;;)
				pause();
		}
	}
	free(ts);
	return ret;
}

static int cmd_write(const char *path, struct run *run)
{
	struct profile_stats stats = { 0 };
	struct profile_writer *w;
	struct profile_info info;
	struct error err;
	struct stat st;

	fill_info(&info);
	w = profile_writer_open(path, PROFILE_FORMAT_NATIVE, &info, &err);
	if (!w)
		goto fail;
	if (write_run(w, run, &err) < 0) {
		profile_writer_abandon(w);
		goto fail;
	}
	stats.samples = run->samples;
	stats.thread_samples = run->thread_samples;
	stats.wall_ns = run->samples * 1000000;
	stats.threads_seen = run->nthreads;
	stats.processes_seen = 1;
	if (profile_writer_finish(w, &stats, NULL, &err) < 0 || stat(path, &st) < 0)
		goto fail;
	printf("threads=%u samples=%" PRIu64 " thread_samples=%" PRIu64 " bytes=%lld bytes_per_thread_sample=%.2f\n",
	       run->nthreads, run->samples, run->thread_samples, (long long)st.st_size,
	       (double)st.st_size / (double)run->thread_samples);
	return 0;
fail:
	error_print(PROG, &err);
	return 1;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int cmd_read(const char *path, int repeat)
{
	uint64_t thread_samples = 0, checksum = 0;
	struct profile_record rec;
	struct error err;
	double start = now(), secs;

	for (int i = 0; i < repeat; i++) {
		struct profile_reader *r = profile_reader_open(path, &err);
		int ret;

		if (!r)
			goto fail;
		while ((ret = profile_read_next(r, &rec, &err)) > 0) {
			if (rec.type != PROFILE_REC_SAMPLE)
				continue;
			thread_samples += rec.sample.nthreads;
			for (uint32_t j = 0; j < rec.sample.nthreads; j++)
				checksum += rec.sample.threads[j].pc + rec.sample.threads[j].cpu_delta_ns;
		}
		profile_reader_close(r);
		if (ret < 0)
			goto fail;
	}
	secs = now() - start;
	printf("thread_samples=%" PRIu64 " seconds=%.3f thread_samples_per_second=%.0f checksum=%" PRIu64 "\n",
	       thread_samples, secs, secs > 0 ? thread_samples / secs : 0, checksum);
	return 0;
fail:
	error_print(PROG, &err);
	return 1;
}

int main(int argc, char **argv)
{
	struct run run = { .nthreads = 4, .samples = 10000, .seed = 42 };

	if (argc >= 3 && strcmp(argv[1], "write") == 0) {
		if (argc > 3)
			run.nthreads = (uint32_t)strtoul(argv[3], NULL, 0);
		if (argc > 4)
			run.samples = strtoull(argv[4], NULL, 0);
		if (argc > 5)
			run.seed = strtoull(argv[5], NULL, 0);
		if (argc > 6)
			run.hang_after = strtoull(argv[6], NULL, 0);
		return cmd_write(argv[2], &run);
	}
	if (argc >= 3 && strcmp(argv[1], "read") == 0)
		return cmd_read(argv[2], argc > 3 ? atoi(argv[3]) : 1);
	fprintf(stderr, "usage: %s write OUT [THREADS [SAMPLES [SEED]]] | read FILE [REPEAT]\n", PROG);
	return 1;
}
