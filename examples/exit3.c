/* exit3 [SECONDS] - spin for SECONDS (default 0.2), then exit with status 3. */
#include "workload.h"

int main(int argc, char **argv)
{
	spin_for(arg_double(argc, argv, 1, 0.2));
	return 3;
}
