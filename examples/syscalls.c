/* syscalls SECONDS [UNITS] - one thread that runs work() (UNITS units of
 * work, default 20000: about 40 us here) and then a cheap system call
 * (getppid), over and over, for SECONDS of wall time: nearly all of its
 * time is in work(), as perf record shows (the call and its wrapper under
 * 2%), but a stop that reaches its CPU late lands at the call's return
 * (sampler/preempt.h; tests/t1310). */
#include <sys/syscall.h>
#include <unistd.h>

#include "workload.h"

static uint64_t sink;

__attribute__((noinline)) void work(uint64_t units)
{
	sink += work_units(units, sink);
}

int main(int argc, char **argv)
{
	double seconds = arg_double(argc, argv, 1, 1), end;
	uint64_t units = (uint64_t)arg_double(argc, argv, 2, 20000);

	end = now_s() + seconds;
	do {
		work(units);
		syscall(SYS_getppid);
	} while (now_s() < end);
	return sink == 42;	/* keeps the work */
}
