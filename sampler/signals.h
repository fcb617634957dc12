/* signals.h - what the sampler does with each signal, in one place.
 *
 * The sampler stands in for the command it runs: a signal sent to the
 * sampler alone is meant for the command and is passed on (forwarded); one
 * that reached the command too (sent to a process group holding both, typed
 * at their terminal, sent by the command's own processes) is not passed on a
 * second time.  No other signal may end the sampler: those it neither
 * forwards nor needs are blocked (they stay pending, harmlessly), and a
 * fault signal (SIGSEGV...) sent by another process is dropped.  See
 * signals.c for the table and the reasons.
 */
#ifndef SAMPLER_SIGNALS_H
#define SAMPLER_SIGNALS_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* Block every signal the sampler waits for or must not die of, and catch
 * the fault signals, so that only real faults end it (first thing, before
 * the target starts).  *old gets the mask the sampler was given, for the
 * target to start with; exec gives it the dispositions the sampler got. */
void signals_block(sigset_t *old);

/* What the engine's loop waits for: SIGCHLD, SIGIO (--control) and the
 * forwarded signals. */
void signals_wait_set(sigset_t *set);

/* One of the signals that ask to end the run (HUP, INT, QUIT, TERM). */
bool signals_ends_run(int sig);

/* Merges the copies of a signal the sampler gets at once, and pairs its
 * copy with the one the command got from the same kill (a process group
 * signal reaches every member). */
struct signal_relay {
	struct relay_note {
		pid_t pid;		/* sender (0: the kernel) */
		int code;		/* si_code */
		uint64_t at_ns;		/* 0: no note */
	} got[NSIG];			/* what the command received, not yet paired */
	struct relay_note absorb[NSIG];	/* pending at the command: pair it on arrival */
	struct relay_held {
		siginfo_t info;		/* the first copy */
		uint64_t due_ns;	/* 0: none held */
	} held[NSIG];			/* taken by the sampler, not yet acted on */
};

/* Whether the command should see stops for sig reported to the relay
 * (a forwarded signal: only those are paired). */
bool signals_forwarded(int sig);

/* The command (the first process) reached its signal-delivery stop for
 * info->si_signo (a forwarded signal): note it for pairing. */
void relay_note_target(struct signal_relay *r, const siginfo_t *info, uint64_t now_ns);

/* The sampler took info (a forwarded signal): hold it for RELAY_MERGE_NS,
 * so that copies that follow it at once merge with it. */
void relay_hold(struct signal_relay *r, const siginfo_t *info, uint64_t now_ns);
/* When the next held signal is due (0: none held). */
uint64_t relay_next_due(const struct signal_relay *r);
/* Take a held signal that is due by now_ns into *info: true, or false. */
bool relay_take_due(struct signal_relay *r, uint64_t now_ns, siginfo_t *info);

/* The sampler received info (a forwarded signal, the target's events all
 * handled): did the command get it too?  True when the command received
 * the same signal from the same sender and it is not yet paired, or has
 * it pending now.  target is the command's pid. */
bool relay_reached_target(struct signal_relay *r, const siginfo_t *info, pid_t target,
			  uint64_t now_ns);

#endif
