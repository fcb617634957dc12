/* host.h - facts about the machine and the run for the profile header. */
#ifndef SAMPLER_HOST_H
#define SAMPLER_HOST_H

#include "../profile/profile.h"

/* Fill everything but start_ns: uname, /proc/cpuinfo, /proc/meminfo, the
 * sampler's own command line, and one REALTIME/MONOTONIC anchor pair. */
void host_fill(struct profile_host *host, int argc, char **argv, double target_hz);

/* CLOCK_MONOTONIC in ns. */
uint64_t host_now_ns(void);

/* The kernel's CPU pressure: the us some runnable task of the machine
 * has waited for a CPU, since boot (/proc/pressure/cpu, "some" total),
 * or -1 where the kernel does not say (no PSI). */
long long host_cpu_wait_us(void);
/* The share of the last 10 s in which some runnable task waited for a CPU
 * (/proc/pressure/cpu, "some" avg10, 0 to 1), or -1 where unknown. */
double host_cpu_busy_share(void);
/* Tasks runnable now (/proc/stat procs_running, the caller included),
 * or -1 where unknown. */
int host_runnable_tasks(void);

#endif
