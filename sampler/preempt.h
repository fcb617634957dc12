/* preempt.h - stops that land where the thread was.
 *
 * A stop sent to a thread running on another CPU (PTRACE_INTERRUPT) is
 * taken at that thread's next entry into the kernel: the interrupt the
 * kernel sends its CPU, or a system call made before that arrives, and
 * then the sample is at the call's return.  Where inter-processor
 * interrupts are slow (a VM: tens of microseconds) a program that makes
 * system calls often has most of its samples there (docs/USAGE.md,
 * Limitations).
 *
 * A preemptor is a thread of the sampler pinned to one CPU, at real-time
 * priority just below the sampler's, that wakes on its own CPU's timer a
 * little before each sample and holds that CPU until the sampler has sent
 * its stops: a target thread running there is preempted by a local timer,
 * at the instruction it was at, and its stop finds it off the CPU.
 */
#ifndef SAMPLER_PREEMPT_H
#define SAMPLER_PREEMPT_H

#include <stdbool.h>
#include <stdint.h>

struct preemptors;

/* One preemptor on every CPU the sampler may run on, for samples due at
 * start_ns + k * period_ns (CLOCK_MONOTONIC).  NULL (nothing to undo) when
 * the sampler is not at real-time priority (a preemptor could not take its
 * CPU from the target at once) or a thread cannot be made. */
struct preemptors *preempt_start(uint64_t start_ns, uint64_t period_ns);

/* Could preempt_start() start them: real-time priority, two CPUs, a
 * period longer than the lead? */
bool preempt_possible(uint64_t period_ns);

/* Hold the CPUs at the coming samples, or not (sampling off). */
void preempt_enable(struct preemptors *p, bool on);

/* The stops of this sample are sent: let the CPUs go. */
void preempt_release(struct preemptors *p);

/* How many times a preemptor held its CPU, and gave it up unreleased. */
uint64_t preempt_holds(const struct preemptors *p);
uint64_t preempt_timeouts(const struct preemptors *p);

/* Stop and join the preemptors; NULL is fine. */
void preempt_stop(struct preemptors *p);

#endif
