/* switchevent.h - the per-thread perf event that marks a thread's context
 * switches, for telling without a system call whether a thread ran (the
 * engine's quiet threads, sampler/quiet.h; its cost, bench/detect).
 *
 * The caller maps its ring (a header page and one data page) and closes
 * the descriptor: the mapping keeps the event. */
#ifndef SAMPLER_COMMON_SWITCHEVENT_H
#define SAMPLER_COMMON_SWITCHEVENT_H

#include <stdbool.h>
#include <sys/types.h>

/* Open the switch event of thread tid: a descriptor, or -1 with errno.
 * Its switch records carry their time (CLOCK_MONOTONIC, the profile's).
 *  - without registers: a dummy software event whose only output is a
 *    PERF_RECORD_SWITCH at every switch in and out (user space only:
 *    allowed at perf_event_paranoid 2), in a forward ring;
 *  - with_registers: the context-switch counter sampled at every switch
 *    out with the time (CLOCK_MONOTONIC) and the user SP and PC (in
 *    ascending register number), switch records carrying their time too,
 *    into a ring written newest first (write_backward), so the last switch
 *    and the PC the thread left the CPU at are read at the head.  Counting
 *    switches in the kernel is refused to unprivileged users at
 *    perf_event_paranoid >= 2: fall back to the first kind. */
int switch_event_open(pid_t tid, bool with_registers);

#endif
