/* jit [SECONDS] - code generated at run time, as a JIT compiler makes it:
 * a loop copied into an anonymous executable mapping and called there for
 * most of the time, from jit_caller(), calling back jit_callback().  A
 * sample in it has a PC in no file mapping, without CFI: its stack goes on
 * through the frame pointer the code keeps (jitcode.h). */
#include <stdio.h>

#include "jitcode.h"
#include "workload.h"

int main(int argc, char **argv)
{
	double end = now_s() + arg_double(argc, argv, 1, 1.0);
	void *code = jit_loop_new();

	if (code == MAP_FAILED) {
		fprintf(stderr, "jit: no executable anonymous memory here\n");
		return 1;
	}
	while (now_s() < end)
		jit_caller(code);
	return 0;
}
