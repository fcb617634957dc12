/* segv [SECONDS] - spin for SECONDS (default 0.2), then dereference NULL. */
#include "workload.h"

int main(int argc, char **argv)
{
	volatile int *nowhere = NULL;

	spin_for(arg_double(argc, argv, 1, 0.2));
	return *nowhere;
}
