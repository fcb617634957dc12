/* summary-check - print the end-of-run summary (sampler/summary.c) for a
 * run described on the command line, as the engine would have measured it:
 *
 *   summary-check HZ WALL_S SAMPLES STOP_US OWN_CPU_S TRACERS NCPUS REALTIME
 *                 [CPU_WAIT_SHARE [CARRY]]
 *
 * CPU_WAIT_SHARE: of the run, some task waited for a CPU (PSI, 0 to 1;
 * default unknown); CARRY: off (default), on or refused (--carry-preempted).
 *
 * Every sample stopped one running thread; the warnings go to stderr.  A
 * run's measured figures depend on the machine; this fixes them, so that
 * t1091 can hold each cause the warning names to what was measured. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../sampler/summary.h"

int main(int argc, char **argv)
{
	struct profile_info info;
	struct engine_stats st;
	struct tune tune;
	struct tune_state tuned = { .qos_fd = -1 };
	struct summary_run run = { .info = &info, .tune = &tune, .tuned = &tuned };
	double wall_s;

	if (argc < 9 || argc > 11) {
		fprintf(stderr, "usage: summary-check HZ WALL_S SAMPLES STOP_US OWN_CPU_S TRACERS NCPUS REALTIME [CPU_WAIT_SHARE [CARRY]]\n");
		return 2;
	}
	memset(&info, 0, sizeof(info));
	memset(&st, 0, sizeof(st));
	memset(&tune, 0, sizeof(tune));
	tune.cpu = TUNE_CPU_NONE;
	tune.nice = TUNE_NICE_NONE;
	run.hz = atof(argv[1]);
	wall_s = atof(argv[2]);
	st.profile.wall_ns = (uint64_t)(wall_s * 1e9);
	st.sampled_ns = st.profile.wall_ns;
	st.profile.samples = strtoull(argv[3], NULL, 10);
	st.profile.thread_samples = st.profile.samples;
	st.stops = st.profile.samples;
	st.profile.latency_ns = (uint64_t)(atof(argv[4]) * 1e3) * st.profile.samples;
	st.own_cpu_ns = (uint64_t)(atof(argv[5]) * 1e9);
	st.tracers = atoi(argv[6]);
	st.ncpus = atoi(argv[7]);
	tuned.realtime = atoi(argv[8]);
	st.cpu_wait_share = argc > 9 ? atof(argv[9]) : -1;
	st.carry_on = argc > 10 && strcmp(argv[10], "off") != 0;
	st.carry_refused = argc > 10 && strcmp(argv[10], "refused") == 0;
	summary_print("sampler", &run, &st);
	return 0;
}
