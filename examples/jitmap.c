/* jitmap [SECONDS] - code generated at run time that names itself the way
 * JIT compilers do for perf (node --perf-basic-prof, Java agents): a loop
 * copied into an anonymous executable mapping, called from jit_caller(),
 * and one line for it in /tmp/perf-PID.map, "START SIZE NAME", with a name
 * as node writes them.  Prints "pid=PID map=/tmp/perf-PID.map"; the map
 * file stays after the exit (as a JIT's does), for the exporters to read. */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "workload.h"

#define JIT_NAME "LazyCompile:*hot_loop /srv/app.js:12"

#if defined(__x86_64__)
/* mov $0x100000, %ecx; 1: dec %rcx; jnz 1b; ret */
static const unsigned char loop_code[] = {
	0xb9, 0x00, 0x00, 0x10, 0x00, 0x48, 0xff, 0xc9, 0x75, 0xfb, 0xc3,
};
#endif

__attribute__((noinline)) void jit_caller(void (*fn)(void))
{
	fn();
	__asm__ volatile("" ::: "memory");	/* no tail call */
}

int main(int argc, char **argv)
{
	double end = now_s() + arg_double(argc, argv, 1, 1.0);
	void *code = MAP_FAILED;
	char path[64];
	FILE *map;

#if defined(__x86_64__)
	code = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (code != MAP_FAILED)
		memcpy(code, loop_code, sizeof(loop_code));
#endif
	if (code == MAP_FAILED) {
		fprintf(stderr, "jitmap: no executable anonymous memory here\n");
		return 1;
	}
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	map = fopen(path, "w");
	if (!map) {
		perror(path);
		return 1;
	}
	fprintf(map, "%lx %zx %s\n", (unsigned long)code, sizeof(loop_code), JIT_NAME);
	fclose(map);
	printf("pid=%d map=%s\n", (int)getpid(), path);
	fflush(stdout);
	while (now_s() < end)
		jit_caller((void (*)(void))code);
	return 0;
}
