/* signals.c - the sampler's signal table, and pairing the copies of one
 * signal that reached both the sampler and the command.
 *
 * Why not simply forward everything the sampler gets: the command stays in
 * the sampler's process group (it must: at a terminal, ^C and ^Z go to the
 * foreground group, and a job's reads from the terminal need it), so every
 * signal sent to that group - a terminal's ^C, `kill -TERM -PGID`, `kill %1`,
 * timeout(1)'s kill(0, sig), the command's own kill(0, SIGUSR1) - reaches
 * the command directly and the sampler too.  Passing the sampler's copy on
 * would deliver it twice.  The kernel does not say whether a signal was
 * addressed to a process or to its group (both arrive as SI_USER with the
 * sender's pid), so the sampler pairs copies instead.  (Giving the command
 * a process group of its own when no terminal is involved would avoid the
 * pairing, but the command's own kill(0, sig) would then miss the group it
 * was started in, and a job started in the background of a terminal could
 * not be brought to the foreground with it.)
 *
 *
 *   - every signal-delivery stop of the command for a forwarded signal is
 *     noted with its sender and si_code (the engine reports them here);
 *   - a group signal is queued on the command before the sampler: the
 *     kernel walks a process group newest member first, and the command
 *     joined after the sampler.  So when the sampler takes its copy, the
 *     command's copy is either still pending (ShdPnd in its status) or was
 *     already reported in a stop, once the engine has handled every event;
 *   - a copy of the sampler's from the same sender with the same si_code
 *     pairs with such a note (or pending signal) and is not passed on.
 *
 * Copies that reach the sampler at once merge, as the kernel merges the
 * copies of a signal that is still pending: timeout(1) sends its signal to
 * the command and then to its process group, and without a sampler the
 * command takes the two as one.  So the sampler holds each signal it takes
 * for RELAY_MERGE_NS before it acts on it, and drops copies of it that
 * arrive meanwhile.
 *
 * A note that finds no partner within RELAY_PAIR_NS lapses.  The price: a
 * process that sends a signal to the command itself and, less than that
 * later, the same signal to the sampler, has the second one taken as the
 * group copy of the first.  Signals from the command's own processes never
 * go back to it (the engine checks the sender); after the command exited
 * there is nothing to pass on, and HUP, INT, QUIT and TERM ask the sampler
 * to stop following what is left of the command's tree.
 */
#include "signals.h"

#include <unistd.h>

#include "procfs.h"

/* How long a note waits for its partner: the sampler takes its copy at its
 * next loop turn, which a sample that waits for a thread stuck in the
 * kernel can hold up for a second (STOP_WAIT_SLICES in snapshot.c). */
#define RELAY_PAIR_NS 2000000000ull
/* How long a signal the sampler took waits for copies that merge with it:
 * longer than a loaded machine keeps a runnable sender off the CPU between
 * two system calls (CFS with 8 runnable tasks a CPU: about 25 ms), short
 * next to anyone waiting for the signal to act. */
#define RELAY_MERGE_NS 50000000ull

enum signal_role {
	ROLE_BLOCK,		/* blocked, never taken: it cannot end the sampler */
	ROLE_FORWARD,		/* passed on when it reached the sampler alone */
	ROLE_FORWARD_END,	/* the same; also ends a run whose command is gone */
	ROLE_WAIT,		/* SIGCHLD: the engine's events */
	ROLE_FAULT,		/* the sampler's own faults: on_fault */
	ROLE_DEFAULT,		/* left as the sampler got it */
};

/* Every signal not named here is blocked: PIPE (a closed output pipe is a
 * write error), XFSZ (a file size limit: a write error too), XCPU, ALRM,
 * VTALRM, PROF, PWR, STKFLT and the real-time signals.  The sampler
 * uses none of them, so whoever sends them cannot end it; the command gets
 * its own copy of whatever it sends to its process group. */
static const struct {
	int sig;
	enum signal_role role;
} roles[] = {
	/* what a user sends to end a command or ask it something */
	{ SIGHUP, ROLE_FORWARD_END },
	{ SIGINT, ROLE_FORWARD_END },
	{ SIGQUIT, ROLE_FORWARD_END },
	{ SIGTERM, ROLE_FORWARD_END },
	{ SIGUSR1, ROLE_FORWARD },
	{ SIGUSR2, ROLE_FORWARD },
	{ SIGCHLD, ROLE_WAIT },
	{ SIGIO, ROLE_WAIT },		/* a --control command arrived (window.c) */
	/* the sampler's own faults end it as they would (blocking them would
	 * not stop a real fault anyway); sent by others, they are dropped */
	{ SIGILL, ROLE_FAULT },
	{ SIGTRAP, ROLE_FAULT },
	{ SIGABRT, ROLE_FAULT },
	{ SIGBUS, ROLE_FAULT },
	{ SIGFPE, ROLE_FAULT },
	{ SIGSEGV, ROLE_FAULT },
	{ SIGSYS, ROLE_FAULT },
	/* job control stops and continues the sampler with its job */
	{ SIGTSTP, ROLE_DEFAULT },
	{ SIGTTIN, ROLE_DEFAULT },
	{ SIGTTOU, ROLE_DEFAULT },
	{ SIGCONT, ROLE_DEFAULT },
	/* ignored unless caught; SIGKILL and SIGSTOP cannot be blocked */
	{ SIGWINCH, ROLE_DEFAULT },
	{ SIGURG, ROLE_DEFAULT },
	{ SIGKILL, ROLE_DEFAULT },
	{ SIGSTOP, ROLE_DEFAULT },
};

static enum signal_role role_of(int sig)
{
	for (size_t i = 0; i < sizeof(roles) / sizeof(roles[0]); i++)
		if (roles[i].sig == sig)
			return roles[i].role;
	return ROLE_BLOCK;
}

/* The actions the fault signals had (the default, or a sanitizer's). */
static struct sigaction fault_saved[NSIG];

/* A fault signal another process sent (the target's kill(0, SIGSEGV)) is
 * not the sampler's fault: drop it.  A real one, or the sampler's own
 * raise() and abort(), gets the action it had before: returning re-runs a
 * faulting instruction, which faults again; the others are raised again. */
static void on_fault(int sig, siginfo_t *info, void *context)
{
	(void)context;
	if (info->si_code <= 0 && info->si_pid != getpid())
		return;
	sigaction(sig, &fault_saved[sig], NULL);
	if (info->si_code <= 0 || sig == SIGTRAP || sig == SIGSYS || sig == SIGABRT)
		raise(sig);
}

/* Catch sig with on_fault unless it is ignored (the target must start
 * with what the sampler was given: exec resets a caught signal to the
 * default, but keeps an ignored one ignored). */
static void catch_fault(int sig)
{
	struct sigaction sa = { .sa_sigaction = on_fault, .sa_flags = SA_SIGINFO | SA_RESTART };

	if (sigaction(sig, NULL, &fault_saved[sig]) < 0 ||
	    fault_saved[sig].sa_handler == SIG_IGN)
		return;
	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
}

void signals_block(sigset_t *old)
{
	sigset_t block;

	sigemptyset(&block);
	for (int sig = 1; sig < NSIG; sig++) {
		enum signal_role role = role_of(sig);

		if (role == ROLE_FAULT)
			catch_fault(sig);
		else if (role != ROLE_DEFAULT)
			sigaddset(&block, sig);	/* fails harmlessly on glibc's own */
	}
	sigprocmask(SIG_BLOCK, &block, old);
}

bool signals_forwarded(int sig)
{
	enum signal_role role = sig > 0 && sig < NSIG ? role_of(sig) : ROLE_BLOCK;

	return role == ROLE_FORWARD || role == ROLE_FORWARD_END;
}

void signals_wait_set(sigset_t *set)
{
	sigemptyset(set);
	for (int sig = 1; sig < NSIG; sig++)
		if (signals_forwarded(sig) || role_of(sig) == ROLE_WAIT)
			sigaddset(set, sig);
}

bool signals_ends_run(int sig)
{
	return sig > 0 && sig < NSIG && role_of(sig) == ROLE_FORWARD_END;
}

static bool note_is(const struct relay_note *n, const siginfo_t *info, uint64_t now_ns)
{
	return n->at_ns && now_ns - n->at_ns < RELAY_PAIR_NS &&
	       n->pid == info->si_pid && n->code == info->si_code;
}

void relay_note_target(struct signal_relay *r, const siginfo_t *info, uint64_t now_ns)
{
	int sig = info->si_signo;

	if (!signals_forwarded(sig))
		return;
	if (note_is(&r->absorb[sig], info, now_ns)) {
		r->absorb[sig].at_ns = 0;	/* paired while it was pending */
		return;
	}
	r->got[sig] = (struct relay_note){ info->si_pid, info->si_code, now_ns };
}

void relay_hold(struct signal_relay *r, const siginfo_t *info, uint64_t now_ns)
{
	struct relay_held *h = &r->held[info->si_signo];

	if (h->due_ns)
		return;		/* merges with the copy held */
	h->info = *info;
	h->due_ns = now_ns + RELAY_MERGE_NS;
}

uint64_t relay_next_due(const struct signal_relay *r)
{
	uint64_t due = 0;

	for (int sig = 1; sig < NSIG; sig++)
		if (r->held[sig].due_ns && (!due || r->held[sig].due_ns < due))
			due = r->held[sig].due_ns;
	return due;
}

bool relay_take_due(struct signal_relay *r, uint64_t now_ns, siginfo_t *info)
{
	for (int sig = 1; sig < NSIG; sig++) {
		struct relay_held *h = &r->held[sig];

		if (h->due_ns && h->due_ns <= now_ns) {
			*info = h->info;
			h->due_ns = 0;
			return true;
		}
	}
	return false;
}

bool relay_reached_target(struct signal_relay *r, const siginfo_t *info, pid_t target,
			  uint64_t now_ns)
{
	int sig = info->si_signo;
	uint64_t pending;

	if (!signals_forwarded(sig))
		return false;
	if (note_is(&r->got[sig], info, now_ns)) {
		r->got[sig].at_ns = 0;
		return true;
	}
	if (procfs_read_pending(target, &pending) < 0 || !(pending & (1ull << (sig - 1))))
		return false;
	/* Passing it on would merge with the pending one anyway; pair it
	 * with the stop it will cause, so that stop leaves no note. */
	r->absorb[sig] = (struct relay_note){ info->si_pid, info->si_code, now_ns };
	return true;
}
