/* ptfloor - the bare ptrace floor the sampler's stop latency is judged by
 * (issue 14): PTRACE_INTERRUPT one busy thread, wait for its stop,
 * PTRACE_GETREGSET, PTRACE_CONT, once per ms, nothing else.
 *
 *   ptfloor [CYCLES]
 *
 * For tracer and tracee on the same CPU and on different CPUs, with the
 * tracer sleeping in waitpid or polling with WNOHANG, at normal priority
 * and (when permitted) SCHED_FIFO, prints the time the tracee was held per
 * cycle (from PTRACE_INTERRUPT to the return of PTRACE_CONT):
 *   floor same-cpu wait normal: median 24.1 us, p10 20.3, p90 40.2
 * A benchmark: it never fails (a configuration it cannot set up says so). */
#include <elf.h>
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int pin(pid_t pid, int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(pid, sizeof(set), &set);
}

static int cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static pid_t start_busy(int cpu)
{
	pid_t pid = fork();

	if (pid == 0) {
		struct sched_param sp = { .sched_priority = 0 };
		volatile uint64_t x = 0;

		sched_setscheduler(0, SCHED_OTHER, &sp);	/* not the tracer's FIFO */
		pin(0, cpu);
		for (;;)
			x++;
	}
	return pid;
}

/* wait for pid's stop: sleeping in waitpid, or polling */
static int wait_stop(pid_t pid, int poll)
{
	int status;

	if (!poll)
		return waitpid(pid, &status, __WALL) == pid ? 0 : -1;
	for (;;) {
		pid_t got = waitpid(pid, &status, __WALL | WNOHANG);

		if (got == pid)
			return 0;
		if (got < 0)
			return -1;
	}
}

static void run(const char *cpus, int tracee_cpu, int poll, int fifo, int cycles)
{
	uint64_t *held = calloc((size_t)cycles, sizeof(*held)), next;
	struct sched_param sp = { .sched_priority = fifo ? 50 : 0 };
	struct user_regs_struct regs;
	struct iovec iov = { &regs, sizeof(regs) };
	const char *label = fifo ? "fifo" : "normal";
	pid_t pid;
	int n = 0;

	if (sched_setscheduler(0, fifo ? SCHED_FIFO : SCHED_OTHER, &sp) < 0) {
		printf("floor %s %s %s: - (not permitted)\n", cpus, poll ? "poll" : "wait", label);
		free(held);
		return;
	}
	pin(0, 0);
	pid = start_busy(tracee_cpu);
	if (pid < 0 || ptrace(PTRACE_SEIZE, pid, 0, 0) < 0) {
		printf("floor %s: - (cannot trace: %s)\n", cpus, strerror(errno));
		goto out;
	}
	usleep(20000);
	next = now_ns();
	for (int i = 0; i < cycles; i++) {
		struct timespec due;
		uint64_t t0;

		next += 1000000;
		due.tv_sec = (time_t)(next / 1000000000u);
		due.tv_nsec = (long)(next % 1000000000u);
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &due, NULL);
		t0 = now_ns();
		if (ptrace(PTRACE_INTERRUPT, pid, 0, 0) < 0 || wait_stop(pid, poll) < 0 ||
		    ptrace(PTRACE_GETREGSET, pid, NT_PRSTATUS, &iov) < 0 ||
		    ptrace(PTRACE_CONT, pid, 0, 0) < 0)
			break;
		held[n++] = now_ns() - t0;
	}
	if (n) {
		qsort(held, (size_t)n, sizeof(*held), cmp);
		printf("floor %s %s %s: median %.1f us, p10 %.1f, p90 %.1f (%d cycles)\n", cpus,
		       poll ? "poll" : "wait", label, held[n / 2] / 1e3, held[n / 10] / 1e3,
		       held[n * 9 / 10] / 1e3, n);
	}
out:
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, __WALL);
	}
	sp.sched_priority = 0;
	sched_setscheduler(0, SCHED_OTHER, &sp);
	free(held);
}

int main(int argc, char **argv)
{
	int cycles = argc > 1 ? atoi(argv[1]) : 1000;
	int ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN);

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (int fifo = 0; fifo <= 1; fifo++)
		for (int poll = 0; poll <= 1; poll++) {
			/* a real-time tracer polling on the tracee's CPU keeps it
			 * from ever reaching its stop */
			if (!(fifo && poll))
				run("same-cpu", 0, poll, fifo, cycles);
			if (ncpu > 1)
				run("other-cpu", 1, poll, fifo, cycles);
		}
	return 0;
}
