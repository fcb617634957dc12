/* hw-selfstop [SECONDS] - spin SECONDS (default 0.1), print "stopping",
 * stop itself with SIGSTOP, and once continued (by someone else) spin again
 * and print "continued after N ms". */
#include <signal.h>
#include <stdio.h>

#include "../../examples/workload.h"

int main(int argc, char **argv)
{
	double seconds = arg_double(argc, argv, 1, 0.1), stopped;
	uint64_t x = spin_for(seconds);

	printf("stopping\n");
	fflush(stdout);
	stopped = now_s();
	raise(SIGSTOP);
	printf("continued after %.0f ms\n", (now_s() - stopped) * 1e3);
	x += spin_for(seconds);
	return x == 42;
}
