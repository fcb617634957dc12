/* mpi_app [UNITS] - a load-imbalanced MPI job for the MPI tests and
 * docs/USAGE.md: rank r does (r + 1) x UNITS million work units (default
 * 20), so the ranks' CPU times stand 1:2:3:4 (10/20/30/40% with 4 ranks)
 * and the slowest rank is the last.  Ranks that are done wait for the others
 * sleeping (MPI_Ibarrier polled every millisecond): Open MPI's blocking
 * waits spin, which would add CPU time the work did not take.
 * Prints per rank: rank=R units=N checksum=X, and at the end its process
 * CPU time, MPI_Init and MPI_Finalize included (the truth a profile of the
 * rank must add up to): rank=R cpu_s=S */
#include <mpi.h>
#include <stdio.h>

#include "../workload.h"

static void wait_for_all(void)
{
	struct timespec ms = { 0, 1000000 };
	MPI_Request req;
	int done = 0;

	MPI_Ibarrier(MPI_COMM_WORLD, &req);
	for (;;) {
		MPI_Test(&req, &done, MPI_STATUS_IGNORE);
		if (done)
			break;
		nanosleep(&ms, NULL);
	}
}

int main(int argc, char **argv)
{
	uint64_t units = (uint64_t)(arg_double(argc, argv, 1, 20) * 1e6);
	uint64_t sum;
	int rank;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	sum = work_units(units * (uint64_t)(rank + 1), (uint64_t)rank + 1);
	printf("rank=%d units=%llu checksum=%llu\n", rank,
	       (unsigned long long)(units * (uint64_t)(rank + 1)), (unsigned long long)sum);
	wait_for_all();
	MPI_Finalize();
	printf("rank=%d cpu_s=%.6f\n", rank, cpu_s());
	return 0;
}
