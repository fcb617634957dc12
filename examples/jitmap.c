/* jitmap [SECONDS] - code generated at run time that names itself the way
 * JIT compilers do for perf (node --perf-basic-prof, Java agents): a loop
 * copied into an anonymous executable mapping, called from jit_caller(),
 * and one line for it in /tmp/perf-PID.map, "START SIZE NAME", with a name
 * as node writes them.  Prints "pid=PID map=/tmp/perf-PID.map"; the map
 * file stays after the exit (as a JIT's does), for the exporters to read. */
#include <stdio.h>
#include <unistd.h>

#include "jitcode.h"
#include "workload.h"

#define JIT_NAME "LazyCompile:*hot_loop /srv/app.js:12"

int main(int argc, char **argv)
{
	double end = now_s() + arg_double(argc, argv, 1, 1.0);
	void *code = jit_loop_new();
	char path[64];
	FILE *map;

	if (code == MAP_FAILED) {
		fprintf(stderr, "jitmap: no executable anonymous memory here\n");
		return 1;
	}
	/* /tmp, not $TMPDIR: perf and sampler-export look for a JIT's map
	 * only at /tmp/perf-PID.map (perf's fixed convention). */
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	map = fopen(path, "w");
	if (!map) {
		perror(path);
		return 1;
	}
	fprintf(map, "%lx %zx %s\n", (unsigned long)code, sizeof(jit_loop_code), JIT_NAME);
	fclose(map);
	printf("pid=%d map=%s\n", (int)getpid(), path);
	fflush(stdout);
	while (now_s() < end)
		jit_caller(code);
	return 0;
}
