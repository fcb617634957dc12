/* host.h - facts about the machine and the run for the profile header. */
#ifndef SAMPLER_HOST_H
#define SAMPLER_HOST_H

#include "../profile/profile.h"

/* Fill everything but start_ns: uname, /proc/cpuinfo, /proc/meminfo, the
 * sampler's own command line, and one REALTIME/MONOTONIC anchor pair. */
void host_fill(struct profile_host *host, int argc, char **argv, double target_hz);

/* CLOCK_MONOTONIC in ns. */
uint64_t host_now_ns(void);

#endif
