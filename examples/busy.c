/* busy [SECONDS] - one thread spinning for SECONDS (default 0.5). */
#include <stdio.h>

#include "workload.h"

int main(int argc, char **argv)
{
	uint64_t x = spin_for(arg_double(argc, argv, 1, 0.5));

	return x == 42;	/* practically never: keeps x alive */
}
