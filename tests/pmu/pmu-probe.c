/* pmu-probe - drive PMU plug-ins through struct pmu_set, without the
 * recorder: the plug-ins' unit test.
 *
 *   pmu-probe [-n READS] [-i MS] [-q] -p SPEC [-p SPEC...] [-- CMD [ARG...]]
 *   pmu-probe -p help
 *
 * Prints the channels, one "read" line per read (unless -q), then per
 * channel the total / mean / missing / refused count of per-sample
 * channels (the refusals' warning on stderr, as the sampler's), the
 * final count of per-thread channels for the followed thread, and the read
 * latency.  With CMD, the command is attached before it runs (as the
 * recorder would) and read every MS until it exits, then once more;
 * without, the probe follows itself for READS reads.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* gettid() */
#endif
#include "../../pmu/pmu.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PROG "pmu-probe"

struct probe {
	struct pmu_set set;
	struct channel_desc channels[CHANNEL_MAX_PER_RUN];
	size_t nchannels;
	double *totals;
	unsigned long *missing;
	uint64_t *counts;
	double *values;
	double lat_sum_us, lat_max_us;
	unsigned long reads;
	int quiet;
};

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static void sleep_ms(unsigned ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static void print_channels(struct probe *p)
{
	p->nchannels = pmu_set_channels(&p->set, p->channels, CHANNEL_MAX_PER_RUN);
	for (size_t i = 0; i < p->nchannels; i++) {
		const struct channel_desc *c = &p->channels[i];

		printf("channel name=%s source=%s unit=%s scale=%g kind=%s scope=%s\n",
		       c->name, c->source, c->unit, c->scale, channel_kind_name(c->kind),
		       c->scope == CHANNEL_PER_SAMPLE ? "sample" : "thread");
	}
}

static int read_once(struct probe *p, pid_t tid, struct error *err)
{
	double t0 = now_us(), dt;

	if (pmu_set_read(&p->set, p->values, err) < 0)
		return -1;
	if (tid && p->set.nthread && pmu_set_read_thread(&p->set, tid, p->counts, err) < 0)
		return -1;
	dt = now_us() - t0;
	p->lat_sum_us += dt;
	if (dt > p->lat_max_us)
		p->lat_max_us = dt;
	p->reads++;
	for (size_t i = 0; i < p->set.nsample; i++) {
		if (isnan(p->values[i]))
			p->missing[i]++;
		else
			p->totals[i] += p->values[i];
	}
	if (!p->quiet) {
		printf("read i=%lu values=", p->reads);
		for (size_t i = 0; i < p->set.nsample; i++)
			printf("%s%.17g", i ? "," : "", p->values[i]);
		printf(" counters=");
		for (size_t i = 0; i < p->set.nthread; i++)
			printf("%s%llu", i ? "," : "", (unsigned long long)p->counts[i]);
		printf("\n");
	}
	return 0;
}

/* The totals; the refusals also as the sampler says them, on stderr. */
static void print_summary(const struct probe *p, const struct channel_refused *refused)
{
	size_t s = 0, t = 0;

	for (size_t i = 0; i < p->nchannels; i++) {
		const struct channel_desc *c = &p->channels[i];

		if (c->scope == CHANNEL_PER_SAMPLE) {
			unsigned long good = p->reads - p->missing[s];
			char line[512];

			printf("total name=%s value=%.17g mean=%.17g missing=%lu refused=%llu\n", c->name,
			       p->totals[s], good ? p->totals[s] / good : NAN, p->missing[s],
			       (unsigned long long)channel_refused_total(&refused[s]));
			channel_refused_warning(c, &refused[s], line, sizeof(line));
			if (line[0])
				fprintf(stderr, PROG ": warning: %s\n", line);
			s++;
		} else {
			printf("thread name=%s value=%llu\n", c->name, (unsigned long long)p->counts[t++]);
		}
	}
	printf("latency reads=%lu mean_us=%.1f max_us=%.1f total_ms=%.1f\n", p->reads,
	       p->reads ? p->lat_sum_us / p->reads : 0, p->lat_max_us, p->lat_sum_us / 1000);
}

/* Start CMD stopped on a pipe, attach it, let it go. */
static pid_t start_command(struct probe *p, char **argv, struct error *err)
{
	int go[2];
	pid_t pid;
	char c;

	if (pipe(go) < 0)
		return error_set(err, "pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		return error_set(err, "fork: %s", strerror(errno));
	if (pid == 0) {
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(126);
		execvp(argv[0], argv);
		fprintf(stderr, PROG ": cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(go[0]);
	if (pmu_set_attach(&p->set, pid, err) < 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return -1;
	}
	if (write(go[1], "g", 1) != 1)
		return error_set(err, "cannot start the command: %s", strerror(errno));
	close(go[1]);
	return pid;
}

static int run(struct probe *p, char **cmd, unsigned long nreads, unsigned interval_ms,
	       struct error *err)
{
	struct channel_refused refused[CHANNEL_MAX_PER_RUN];
	pid_t tid = cmd ? 0 : gettid();
	int status = 0;

	if (cmd) {
		tid = start_command(p, cmd, err);
		if (tid < 0)
			return -1;
	} else if (p->set.nthread && pmu_set_attach(&p->set, tid, err) < 0) {
		return -1;
	}
	for (unsigned long i = 0; cmd || i < nreads; i++) {
		int done = cmd && waitpid(tid, &status, WNOHANG) == tid;

		if (!done)
			sleep_ms(interval_ms);
		if (read_once(p, tid, err) < 0)
			return -1;
		if (done)
			break;
	}
	pmu_set_refused(&p->set, refused);
	print_summary(p, refused);
	pmu_set_detach(&p->set, tid);
	return cmd && WIFEXITED(status) ? WEXITSTATUS(status) : 0;
}

int main(int argc, char **argv)
{
	struct probe p = { .set = { .prog = PROG } };
	struct error err = { "" };
	unsigned long nreads = 5;
	unsigned interval_ms = 10;
	int opt, ret;

	while ((opt = getopt(argc, argv, "+n:i:qp:")) != -1) {
		switch (opt) {
		case 'n':
			nreads = strtoul(optarg, NULL, 10);
			break;
		case 'i':
			interval_ms = (unsigned)strtoul(optarg, NULL, 10);
			break;
		case 'q':
			p.quiet = 1;
			break;
		case 'p':
			if (strcmp(optarg, "help") == 0) {
				pmu_print_help(stdout);
				return 0;
			}
			if (strncmp(optarg, "help=", 5) == 0) {
				if (pmu_check(optarg + 5, stdout, &err) == 0)
					return 0;
				error_print(PROG, &err);
				return 125;
			}
			if (pmu_set_add(&p.set, optarg, &err) < 0) {
				error_print(PROG, &err);
				pmu_set_release(&p.set);
				return 125;
			}
			break;
		default:
			fprintf(stderr, "usage: " PROG " [-n READS] [-i MS] [-q] -p SPEC... [-- CMD...]\n");
			return 125;
		}
	}
	print_channels(&p);
	p.values = calloc(p.set.nsample + 1, sizeof(*p.values));
	p.totals = calloc(p.set.nsample + 1, sizeof(*p.totals));
	p.missing = calloc(p.set.nsample + 1, sizeof(*p.missing));
	p.counts = calloc(p.set.nthread + 1, sizeof(*p.counts));
	fflush(stdout);
	ret = run(&p, optind < argc ? argv + optind : NULL, nreads, interval_ms, &err);
	if (ret < 0) {
		error_print(PROG, &err);
		ret = 125;
	}
	pmu_set_release(&p.set);
	free(p.values);
	free(p.totals);
	free(p.missing);
	free(p.counts);
	return ret;
}
