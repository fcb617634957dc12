/* hw-die HOW [SECONDS] - spin for SECONDS (default 0.2), print "dying", then
 * die: "kill" (SIGKILL to itself), "segv" (a write through NULL), "abort". */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../examples/workload.h"

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "kill";
	uint64_t x = spin_for(arg_double(argc, argv, 2, 0.2));

	printf("dying by %s\n", how);
	fflush(stdout);
	if (strcmp(how, "kill") == 0)
		kill(getpid(), SIGKILL);
	else if (strcmp(how, "segv") == 0)
		*(volatile uint64_t *)(uintptr_t)(x & 0) = x;
	else if (strcmp(how, "abort") == 0)
		abort();
	fprintf(stderr, "hw-die: unknown way '%s' (kill, segv, abort)\n", how);
	return 2;
}
